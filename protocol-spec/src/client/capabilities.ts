/** Capability paths (`daemon.testing.scriptedProvider`) looked up in negotiated objects. */
import type { CapabilityPath } from '../descriptor.js';
import type { ClientCapabilities, DaemonCapabilities } from '../lifecycle.js';

export interface NegotiatedCapabilities {
  client: ClientCapabilities;
  daemon: DaemonCapabilities;
}

/** Present (any value but undefined, null or false) at every step of the path. */
export function hasCapability(negotiated: NegotiatedCapabilities, path: CapabilityPath): boolean {
  const [side, ...rest] = path.split('.');
  let cursor: unknown = side === 'client' ? negotiated.client : negotiated.daemon;
  for (const key of rest) {
    if (cursor === null || typeof cursor !== 'object') return false;
    cursor = (cursor as Record<string, unknown>)[key];
  }
  return cursor !== undefined && cursor !== null && cursor !== false;
}
