/**
 * What one client connection may cost the daemon (security.md, transport.md#transport-preauth-bounds,
 * sessions.md#sessions-detached-slow-consumer): a client that reads nothing, or a stranger
 * without the token, must never grow the daemon's memory without bound or hold a connection
 * forever. The config file's `connections` section may change any of them.
 */
import { z } from 'zod';

export const ConnectionLimits = z
  .object({
    maxQueuedBytes: z
      .number()
      .int()
      .min(64 * 1024)
      .describe(
        'Bytes written to a client and not yet read by it; past this the client is detached from its sessions (session/detached) and resumes by seq',
      ),
    preAuthMaxMessageBytes: z
      .number()
      .int()
      .min(64 * 1024)
      .describe('Largest frame a socket connection may send before it presented the token'),
    authTimeoutMs: z
      .number()
      .int()
      .min(100)
      .describe('A socket connection that has not authenticated by then is closed'),
    maxUnauthenticated: z
      .number()
      .int()
      .min(1)
      .describe('Socket connections not yet authenticated at once; more are closed on arrival'),
  })
  .strict();
export type ConnectionLimits = z.infer<typeof ConnectionLimits>;

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxQueuedBytes: 16 * 1024 * 1024,
  // initialize carries the client tools manifest (up to 256 declarations), so not tiny.
  preAuthMaxMessageBytes: 1024 * 1024,
  authTimeoutMs: 10_000,
  maxUnauthenticated: 32,
};
