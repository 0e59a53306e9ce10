/**
 * Every check the suite can report, gathered from one module per area
 * (registry/*.ts). See registry/define.ts for what a check is.
 */
import type { CheckDef } from './registry/define.js';
import { CLIENT_CHECKS } from './registry/client.js';
import { DAEMON_AGENT_CHECKS } from './registry/daemonAgent.js';
import { DAEMON_PROTOCOL_CHECKS } from './registry/daemonProtocol.js';
import { WIRE_CHECKS } from './registry/wire.js';

export type { CheckDef, Role, Tier } from './registry/define.js';

export const CHECKS: readonly CheckDef[] = [
  ...WIRE_CHECKS,
  ...DAEMON_PROTOCOL_CHECKS,
  ...DAEMON_AGENT_CHECKS,
  ...CLIENT_CHECKS,
];

const byId = new Map(CHECKS.map((def) => [def.id, def]));

export function findCheck(id: string): CheckDef | undefined {
  return byId.get(id);
}

export function getCheck(id: string): CheckDef {
  const def = byId.get(id);
  if (!def) throw new Error(`unknown check id ${id}`);
  return def;
}
