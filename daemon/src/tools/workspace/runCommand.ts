/**
 * run_command (category execute). It is confined ONLY by its working
 * directory (inside the workspace) and by the permission gate: it is not an
 * operating-system sandbox, and a command the user approves runs with the
 * user's full rights (security.md#security-run-command-not-sandbox).
 *
 * The command runs in its own process group (detached), so cancelling the
 * turn or hitting the timeout kills the whole tree it started, not just the shell.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, type Tool } from '../tool.js';
import { resolveInWorkspace, WorkspaceEscapeError } from './confinement.js';
import type { Workspace } from './workspace.js';

export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
export const MAX_COMMAND_TIMEOUT_MS = 600_000;
/** Output kept per call (stdout and stderr interleaved); the rest is counted, not kept. */
export const MAX_COMMAND_OUTPUT_BYTES = 64 * 1024;
/** Grace between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1000;

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export function runCommandTool(workspace: Workspace): Tool {
  return defineTool({
    name: 'run_command',
    description:
      'Runs a shell command (/bin/sh -c) in the workspace (or `cwd`, a directory inside it) and returns its exit code and output. ' +
      "No input is provided on stdin. The command runs with the user's rights; it is not sandboxed.",
    input: z.object({
      command: z.string().min(1),
      cwd: z.string().min(1).default('.'),
      timeout_ms: z
        .number()
        .int()
        .min(1)
        .max(MAX_COMMAND_TIMEOUT_MS)
        .default(DEFAULT_COMMAND_TIMEOUT_MS),
    }),
    category: 'execute',
    parallelSafe: false,
    // A session grant covers the same command line only.
    grantKey: ({ command }) => command,
    execute: ({ command, cwd, timeout_ms }, ctx) => {
      let dir: string;
      try {
        const resolved = resolveInWorkspace(workspace.root, cwd);
        if (!resolved.exists || !statSync(resolved.real).isDirectory())
          return { content: `cwd ${cwd} is not a directory of the workspace`, isError: true };
        dir = resolved.real;
      } catch (caught) {
        if (caught instanceof WorkspaceEscapeError)
          return { content: caught.message, isError: true };
        throw caught;
      }
      return new Promise((resolve) => {
        const child = spawn('/bin/sh', ['-c', command], {
          cwd: dir,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const chunks: Buffer[] = [];
        let kept = 0;
        let dropped = 0;
        const collect = (chunk: Buffer): void => {
          const room = MAX_COMMAND_OUTPUT_BYTES - kept;
          if (room > 0) {
            chunks.push(chunk.subarray(0, room));
            kept += Math.min(room, chunk.length);
          }
          dropped += Math.max(0, chunk.length - Math.max(0, room));
        };
        child.stdout.on('data', collect);
        child.stderr.on('data', collect);
        let stopped: 'timeout' | 'cancelled' | undefined;
        let killTimer: NodeJS.Timeout | undefined;
        const stop = (why: 'timeout' | 'cancelled'): void => {
          if (stopped) return;
          stopped = why;
          killGroup(child.pid, 'SIGTERM');
          killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
          killTimer.unref();
        };
        const timer = setTimeout(() => stop('timeout'), timeout_ms);
        const onAbort = (): void => stop('cancelled');
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
        const finish = (
          code: number | null,
          signal: NodeJS.Signals | null,
          failure?: Error,
        ): void => {
          clearTimeout(timer);
          ctx.signal.removeEventListener('abort', onAbort);
          // Children that outlived the shell go too.
          if (stopped) {
            killGroup(child.pid, 'SIGKILL');
            clearTimeout(killTimer);
          }
          const output = Buffer.concat(chunks).toString('utf8');
          const tail = dropped > 0 ? `\n[… ${dropped} more bytes of output not kept]` : '';
          const status = failure
            ? `failed to start: ${failure.message}`
            : stopped === 'timeout'
              ? `killed after the ${timeout_ms} ms timeout`
              : stopped === 'cancelled'
                ? 'killed: the turn was cancelled'
                : signal
                  ? `killed by ${signal}`
                  : `exit code ${code}`;
          resolve({
            content: `${status}\n${output}${tail}`,
            isError:
              failure !== undefined || stopped !== undefined || signal !== null || code !== 0,
          });
        };
        child.once('error', (e) => finish(null, null, e));
        child.once('close', (code, signal) => finish(code, signal));
      });
    },
  }) as Tool;
}
