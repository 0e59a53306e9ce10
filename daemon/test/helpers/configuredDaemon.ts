/**
 * A spawned `arbor daemon --stdio --provider scripted` with a config file and
 * a script, and a workspace with a file a command could remove and, if given,
 * a `.arbor/settings.json`: the setting for process-level tests of what the
 * config and the workspace decide (permission rules, hooks).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods, type ExecutionTreeNode } from '@arbor/protocol';
import { tempDir } from '../permissions/helpers.js';
import { spawnStdioDaemon, type DaemonProcess } from './wire.js';

/** A scripted conversation: one run_command call, then `done`. */
export const commandCall = (command: string): object[] => [
  { toolCalls: [{ id: 'call_1', name: 'run_command', arguments: { command } }] },
  { text: 'done' },
];

export function spawnConfiguredDaemon(
  config: object,
  conversations: Record<string, object[]>,
  dataDir = tempDir('arbor-data-'),
): DaemonProcess {
  const dir = tempDir('arbor-config-');
  writeFileSync(join(dir, 'script.json'), JSON.stringify({ version: 1, conversations }));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return spawnStdioDaemon([
    '--provider',
    'scripted',
    '--script',
    join(dir, 'script.json'),
    '--data-dir',
    dataDir,
    '--config',
    join(dir, 'config.json'),
  ]);
}

/** A workspace holding `victim.txt`, and `.arbor/settings.json` when `settings` is given. */
export function workspaceWith(settings?: object): string {
  const ws = tempDir();
  writeFileSync(join(ws, 'victim.txt'), 'still here');
  if (settings) {
    mkdirSync(join(ws, '.arbor'));
    writeFileSync(join(ws, '.arbor/settings.json'), JSON.stringify(settings));
  }
  return ws;
}

/** The tree nodes of the messages received since `from`, each with its upserts merged. */
export function nodesSince(proc: DaemonProcess, from: number): ExecutionTreeNode[] {
  const nodes = new Map<string, ExecutionTreeNode>();
  for (const message of proc.client.received.messages.slice(from)) {
    if (message['method'] !== Methods.TreeUpdate.method) continue;
    for (const node of (message['params'] as { nodes: ExecutionTreeNode[] }).nodes)
      nodes.set(node.id, { ...nodes.get(node.id), ...node });
  }
  return [...nodes.values()];
}
