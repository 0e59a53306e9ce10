/**
 * run_command (category execute). The command runs in an operating-system
 * sandbox (bubblewrap, tools/sandbox/) when one works here: the workspace
 * writable, the rest read-only, the daemon's data dir and credential stores
 * hidden, no network unless the config allows it
 * (security.md#security-command-sandbox). Where none works it still runs,
 * confined only by its working directory and the permission gate, and the
 * result says so. Either way its environment has no secrets in it, and
 * secrets the daemon knows are redacted from its output.
 *
 * The command runs in its own process group (detached), so cancelling the
 * turn or hitting the timeout kills the whole tree it started, not just the shell.
 * Its output shows in its tree node as it arrives (the node's `output`).
 *
 * A session whose I/O runs commands elsewhere (workspaceIo.ts: an ACP
 * editor's terminal) has them run there, unless the sandbox would confine
 * the command here: a command in an editor's terminal runs outside any
 * sandbox of the daemon, so while one is configured and works, the daemon
 * spawns the command itself as above.
 */
import { realpathSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { daemonSecrets, type SecretRedactor } from '../../security/secretRedactor.js';
import { probeBubblewrap } from '../sandbox/bubblewrap.js';
import { killGroup, sandboxedSpawn, type SandboxedProcess } from '../sandbox/sandboxedSpawn.js';
import { sandboxSettings, type SandboxSettings } from '../sandbox/sandboxSettings.js';
import { defineTool, type Tool, type ToolContext, type ToolOutput } from '../tool.js';
import { resolveInWorkspace, WorkspaceEscapeError } from './confinement.js';
import type { Workspace } from './workspace.js';
import type { CommandRequest, CommandResult, CommandRunner } from './workspaceIo.js';

export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
export const MAX_COMMAND_TIMEOUT_MS = 600_000;
/** Output kept per call (stdout and stderr interleaved); the rest is counted, not kept. */
export const MAX_COMMAND_OUTPUT_BYTES = 64 * 1024;
/** The `timeout_ms` argument of run_command and run_task. */
export const CommandTimeout = z
  .number()
  .int()
  .min(1)
  .max(MAX_COMMAND_TIMEOUT_MS)
  .default(DEFAULT_COMMAND_TIMEOUT_MS);

/** Grace between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1000;

export interface RunCommandOptions {
  /** Default: the daemon's, as configured at startup. */
  sandbox?: SandboxSettings;
  /** What a command's environment derives from (default process.env); secrets are removed. */
  env?: NodeJS.ProcessEnv;
  /** Secrets replaced in the output (default the daemon's). */
  redactor?: SecretRedactor;
}

/** Second line of the result when the command ran outside any sandbox. */
export function unsandboxedNote(reason: string): string {
  return `[ran without a sandbox: ${reason}]`;
}

export function runCommandTool(workspace: Workspace, options: RunCommandOptions = {}): Tool {
  const redactor = options.redactor ?? daemonSecrets;
  return defineTool({
    name: 'run_command',
    description:
      'Runs a shell command (/bin/sh -c) in the workspace (or `cwd`, a directory inside it) and returns its exit code and output. ' +
      'No input is provided on stdin. Where a sandbox is available the command can write only inside the workspace and /tmp (a private one), ' +
      'has no network unless the user allowed it, and does not see credentials; the result says when it ran without a sandbox.',
    input: z.object({
      command: z.string().min(1),
      cwd: z.string().min(1).default('.'),
      timeout_ms: CommandTimeout,
    }),
    category: 'execute',
    parallelSafe: false,
    // A session grant covers the same command line only.
    grantKey: ({ command }) => command,
    execute: async ({ command, cwd, timeout_ms }, ctx) => {
      const dir = commandDirectory(workspace, cwd);
      if (typeof dir !== 'string') return dir;
      const settings = options.sandbox ?? sandboxSettings();
      const spawned = spawnedCommands(settings, options.env ?? process.env);
      const elsewhere = workspace.io.commands;
      // An editor's terminal would run the command outside the sandbox: only where none would confine it.
      const runner =
        elsewhere !== undefined && (elsewhere.honoursSandbox || !(await sandboxConfines(settings)))
          ? elsewhere
          : spawned;
      const request: CommandRequest = {
        command,
        cwd: dir,
        workspaceRoot: realpathSync(workspace.root),
        timeoutMs: timeout_ms,
      };
      return commandOutput(await runner.run(request, ctx), timeout_ms, redactor);
    },
  }) as Tool;
}

/** Real path of a command's `cwd`, a directory inside the workspace; else the error result. */
export function commandDirectory(workspace: Workspace, cwd: string): string | ToolOutput {
  try {
    const resolved = resolveInWorkspace(workspace.root, cwd);
    if (!resolved.exists || !statSync(resolved.real).isDirectory())
      return { content: `cwd ${cwd} is not a directory of the workspace`, isError: true };
    return resolved.real;
  } catch (caught) {
    if (caught instanceof WorkspaceEscapeError) return { content: caught.message, isError: true };
    throw caught;
  }
}

/** Whether a command the daemon spawns here runs in a sandbox (the config's mode, and bwrap works). */
export async function sandboxConfines(settings: SandboxSettings): Promise<boolean> {
  if (settings.mode === 'off') return false;
  return (await probeBubblewrap()).ok;
}

/** The result as the model sees it: how it ended, where it ran, its bounded and redacted output. */
export function commandOutput(
  result: CommandResult,
  timeoutMs: number,
  redactor: SecretRedactor,
): ToolOutput {
  const { dropped } = result;
  const cut = dropped === 'earlier' || dropped > 0;
  const output = cut ? redactor.redactCut(result.output) : redactor.redact(result.output);
  const head = dropped === 'earlier' ? '[… earlier output not kept]\n' : '';
  const tail =
    typeof dropped === 'number' && dropped > 0
      ? `\n[… ${dropped} more bytes of output not kept]`
      : '';
  const status =
    result.failure !== undefined
      ? result.failure
      : result.stopped === 'timeout'
        ? `killed after the ${timeoutMs} ms timeout`
        : result.stopped === 'cancelled'
          ? 'killed: the turn was cancelled'
          : result.signal
            ? `killed by ${result.signal}`
            : `exit code ${result.exitCode}`;
  const note = result.note === undefined ? '' : `${result.note}\n`;
  const rest = `${note}${head}${output}${tail}`;
  return {
    content: result.failure !== undefined && rest === '' ? status : `${status}\n${rest}`,
    isError:
      result.failure !== undefined ||
      result.stopped !== undefined ||
      result.signal !== null ||
      result.exitCode !== 0,
  };
}

/** Commands the daemon spawns itself: sandboxed when it can, secrets out of the environment. */
function spawnedCommands(settings: SandboxSettings, env: NodeJS.ProcessEnv): CommandRunner {
  return {
    honoursSandbox: true,
    run: async (request, ctx) => {
      let started: SandboxedProcess;
      try {
        started = await sandboxedSpawn(request.command, {
          cwd: request.cwd,
          workspaceRoot: request.workspaceRoot,
          dataDir: settings.dataDir,
          network: settings.network,
          env,
          allowEnv: settings.allowEnv,
          mode: settings.mode,
        });
      } catch (caught) {
        return failed((caught as Error).message);
      }
      const note =
        started.sandbox === 'none' ? unsandboxedNote(started.unsandboxedReason ?? '') : undefined;
      const result = await followChild(started.child, request.timeoutMs, ctx);
      return note === undefined ? result : { ...result, note };
    },
  };
}

function failed(message: string): CommandResult {
  return {
    exitCode: null,
    signal: null,
    failure: `failed to start: ${message}`,
    output: '',
    dropped: 0,
  };
}

/** Collects a spawned command's output until it ends; kills its group at the timeout or on cancel. */
function followChild(
  child: SandboxedProcess['child'],
  timeoutMs: number,
  ctx: ToolContext,
): Promise<CommandResult> {
  return new Promise((resolve) => {
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
    // Live in the call's tree node too; a decoder per stream keeps characters whole.
    for (const stream of [child.stdout, child.stderr]) {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => ctx.output?.(decoder.write(chunk)));
    }
    let stopped: 'timeout' | 'cancelled' | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'cancelled'): void => {
      if (stopped) return;
      stopped = why;
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = (): void => stop('cancelled');
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    const finish = (code: number | null, signal: NodeJS.Signals | null, failure?: Error): void => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      // Children that outlived the shell go too.
      if (stopped) {
        killGroup(child.pid, 'SIGKILL');
        clearTimeout(killTimer);
      }
      resolve({
        exitCode: code,
        signal,
        ...(stopped === undefined ? {} : { stopped }),
        ...(failure === undefined ? {} : { failure: `failed to start: ${failure.message}` }),
        output: Buffer.concat(chunks).toString('utf8'),
        dropped,
      });
    };
    child.once('error', (e) => finish(null, null, e));
    child.once('close', (code, signal) => finish(code, signal));
  });
}
