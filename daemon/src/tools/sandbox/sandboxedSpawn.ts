/**
 * The one way the daemon starts a shell command: `/bin/sh -c <command>`
 * inside bubblewrap when it works here (security.md#security-command-sandbox),
 * else directly, and in both cases with the secrets taken out of its
 * environment. The process is detached (its own process group), so the
 * caller can kill the whole tree; a sandboxed tree also dies with bwrap.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { homedir } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { scrubEnv } from '../../security/secretEnv.js';
import { bubblewrapArgs, hiddenPaths, probeBubblewrap } from './bubblewrap.js';

export type SandboxKind = 'bubblewrap' | 'none';

export interface SandboxedSpawnOptions {
  /** Real path the command starts in (inside the workspace). */
  cwd: string;
  /** Real path of the workspace: writable in the sandbox. */
  workspaceRoot: string;
  /** The daemon's data dir: hidden. */
  dataDir: string;
  /** The sandbox keeps the network (default: none). */
  network: boolean;
  /** What the command's environment derives from; secrets are removed (scrubEnv). */
  env: NodeJS.ProcessEnv;
  /** Variables kept although their names look like secrets. */
  allowEnv?: readonly string[];
  /** `off`: never sandboxed. Default `auto`: sandboxed when bwrap works here. */
  mode?: 'auto' | 'off';
  /** Written to the command's stdin, then closed (hooks read their event there); absent: no stdin. */
  input?: string;
}

export interface SandboxedProcess {
  /** stdout and stderr are pipes; stdin is one only with `input` (already written and closed). */
  child: ChildProcessByStdio<Writable | null, Readable, Readable>;
  sandbox: SandboxKind;
  /** Why it runs without one (sandbox `none`). */
  unsandboxedReason?: string;
}

export async function sandboxedSpawn(
  command: string,
  options: SandboxedSpawnOptions,
): Promise<SandboxedProcess> {
  const env = scrubEnv(options.env, options.allowEnv);
  const probe =
    options.mode === 'off'
      ? ({ ok: false, reason: 'the sandbox is off in the config' } as const)
      : await probeBubblewrap();
  if (!probe.ok) {
    const child = start('/bin/sh', ['-c', command], options, env);
    return { child, sandbox: 'none', unsandboxedReason: probe.reason };
  }
  const args = bubblewrapArgs({
    workspaceRoot: options.workspaceRoot,
    cwd: options.cwd,
    hidden: hiddenPaths({
      dataDir: options.dataDir,
      home: options.env['HOME'] || homedir(),
      env: options.env,
    }),
    network: options.network,
  });
  // The daemon's TMPDIR may lie outside what the sandbox lets a command write.
  if (env['TMPDIR'] !== undefined) env['TMPDIR'] = '/tmp';
  const child = start(probe.bwrap, [...args, '/bin/sh', '-c', command], options, env);
  return { child, sandbox: 'bubblewrap' };
}

function start(
  file: string,
  args: string[],
  options: SandboxedSpawnOptions,
  env: NodeJS.ProcessEnv,
): SandboxedProcess['child'] {
  const common = { cwd: options.cwd, env, detached: true };
  if (options.input === undefined)
    return spawn(file, args, { ...common, stdio: ['ignore', 'pipe', 'pipe'] });
  const child = spawn(file, args, { ...common, stdio: ['pipe', 'pipe', 'pipe'] });
  // A command that exits without reading its stdin closes the pipe early: not an error.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input);
  return child;
}

/** Signals the whole process group a spawned command leads (it is detached); quiet when it is gone. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
