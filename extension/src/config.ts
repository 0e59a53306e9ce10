/** The extension's settings, read in one place with their defaults. */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

export type TraceLevel = 'off' | 'messages' | 'verbose';

export interface ArborSettings {
  nodePath: string;
  /** Attach to this daemon socket instead of spawning one. */
  socket: string;
  dataDir: string;
  /** Extra daemon arguments (e.g. `--provider scripted --script demo.json`). */
  daemonArgs: string[];
  /** Overrides the bundled daemon entry point. */
  daemonPath: string;
  trace: TraceLevel;
  model: string;
  models: string[];
  permissionMode: 'plan' | 'default' | 'auto';
}

export function readSettings(): ArborSettings {
  const c = vscode.workspace.getConfiguration('arbor');
  return {
    nodePath: c.get<string>('nodePath') || 'node',
    socket: c.get<string>('daemon.socket') ?? '',
    dataDir: expandHome(c.get<string>('daemon.dataDir') ?? ''),
    daemonArgs: c.get<string[]>('daemon.args') ?? [],
    daemonPath: c.get<string>('daemon.path') ?? '',
    trace: c.get<TraceLevel>('trace.server') ?? 'off',
    model: c.get<string>('model') ?? '',
    models: c.get<string[]>('models') ?? [],
    permissionMode: c.get<'plan' | 'default' | 'auto'>('permissionMode') ?? 'default',
  };
}

/** The daemon's data dir as the daemon resolves it (token lives there). */
export function effectiveDataDir(settings: ArborSettings): string {
  return settings.dataDir || process.env['ARBOR_DATA_DIR'] || path.join(os.homedir(), '.arbor');
}

function expandHome(p: string): string {
  return p.startsWith('~') ? path.join(os.homedir(), p.slice(1)) : p;
}
