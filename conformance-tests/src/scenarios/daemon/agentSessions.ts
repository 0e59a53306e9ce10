/**
 * Agent profiles for the daemon under test (agents.md): written as the
 * workspace's `.arbor/agents/<name>.json`, the one way the suite can give a
 * daemon a profile, and a scripted session that runs with one.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import { Abort } from '../scenario.js';
import { describe, type DaemonContext, type Initialized } from './context.js';

/** Writes each profile (an object, or a file's text as given) into the test workspace. */
export function writeAgentProfiles(
  ctx: DaemonContext,
  profiles: Readonly<Record<string, object | string>>,
): void {
  const dir = join(ctx.workspace, '.arbor', 'agents');
  mkdirSync(dir, { recursive: true });
  for (const [name, profile] of Object.entries(profiles))
    writeFileSync(
      join(dir, `${name}.json`),
      typeof profile === 'string' ? profile : JSON.stringify(profile),
    );
}

/** A session of the editor's context running with `agent` (none: the daemon's default), scripted. */
export async function profileSession(
  c: Initialized,
  ctx: DaemonContext,
  options: {
    mode: string;
    agent: string | undefined;
    conversations: JsonObject;
    budgets?: JsonObject;
  },
): Promise<string> {
  const created = await c.conn.request(Methods.SessionNew.method, {
    workspaceRoot: ctx.workspace,
    permissionMode: options.mode,
    chatContext: { kind: 'editor' },
    ...(options.agent && { agent: options.agent }),
  });
  const sessionId = (created?.result as JsonObject | undefined)?.sessionId;
  if (typeof sessionId !== 'string') throw new Abort(`session/new got ${describe(created)}`);
  const set = await c.conn.request(Methods.SetScript.method, {
    sessionId,
    script: { version: 1, conversations: options.conversations },
    ...(options.budgets && { budgets: options.budgets }),
  });
  if (!set || set.error) throw new Abort(`_arbor/testing/setScript failed: ${describe(set)}`);
  return sessionId;
}
