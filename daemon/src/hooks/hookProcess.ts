/**
 * Runs one hook command: `/bin/sh -c` in the workspace root, through the
 * same sandbox and scrubbed environment as run_command (sandboxedSpawn), the
 * event as JSON on stdin. Exit 0 with JSON on stdout is an answer (empty:
 * no opinion); exit 2 blocks, stderr being the reason (Claude Code's
 * convention); anything else, invalid JSON or the timeout is a failure, never
 * an exception: the turn goes on. A stopped hook loses its whole process group.
 */
import { z } from 'zod';
import { killGroup, sandboxedSpawn } from '../tools/sandbox/sandboxedSpawn.js';
import { sandboxSettings } from '../tools/sandbox/sandboxSettings.js';
import { HookAnswer } from './hookConfig.js';

/** Output kept per stream; a hook's answer is small. */
const MAX_STREAM_BYTES = 64 * 1024;
/** Exit code that blocks (Claude Code's). */
export const BLOCK_EXIT_CODE = 2;

export type HookProcessEnd =
  | { kind: 'answer'; answer: HookAnswer | undefined }
  | { kind: 'block'; reason: string }
  | { kind: 'failed'; why: string };

export interface HookProcessRequest {
  command: string;
  /** Real path of the workspace: the hook's working directory, writable in the sandbox. */
  workspaceRoot: string;
  input: unknown;
  /** Extra variables (ARBOR_HOOK_EVENT, ...), on top of the scrubbed environment. */
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
}

export async function runHookProcess(request: HookProcessRequest): Promise<HookProcessEnd> {
  const settings = sandboxSettings();
  let child;
  try {
    ({ child } = await sandboxedSpawn(request.command, {
      cwd: request.workspaceRoot,
      workspaceRoot: request.workspaceRoot,
      dataDir: settings.dataDir,
      network: settings.network,
      env: { ...process.env, ...request.env },
      allowEnv: settings.allowEnv,
      mode: settings.mode,
      input: JSON.stringify(request.input),
    }));
  } catch (error) {
    return { kind: 'failed', why: `failed to start: ${(error as Error).message}` };
  }
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const ended = await new Promise<
    { code: number | null; signal: NodeJS.Signals | null } | { stopped: string } | { error: Error }
  >((resolve) => {
    let stopped: string | undefined;
    const stop = (why: string): void => {
      stopped ??= why;
      killGroup(child.pid, 'SIGKILL');
    };
    const timer = setTimeout(
      () => stop(`timed out after ${request.timeoutMs} ms (killed)`),
      request.timeoutMs,
    );
    const onAbort = (): void => stop('stopped with the turn');
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener('abort', onAbort, { once: true });
    const done = (end: Parameters<typeof resolve>[0]): void => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      // Children that outlived the shell go too.
      killGroup(child.pid, 'SIGKILL');
      resolve(stopped === undefined ? end : { stopped });
    };
    child.once('error', (error) => done({ error }));
    child.once('close', (code, signal) => done({ code, signal }));
  });
  if ('stopped' in ended) return { kind: 'failed', why: ended.stopped };
  if ('error' in ended) return { kind: 'failed', why: `failed to start: ${ended.error.message}` };
  const errText = stderr().trim();
  if (ended.code === BLOCK_EXIT_CODE) {
    return {
      kind: 'block',
      reason: errText || 'blocked by a hook (exit code 2, nothing on stderr)',
    };
  }
  if (ended.code !== 0) {
    const status = ended.signal ? `killed by ${ended.signal}` : `exit code ${ended.code}`;
    return { kind: 'failed', why: errText ? `${status}: ${errText}` : status };
  }
  return parseAnswer(stdout().trim());
}

function parseAnswer(text: string): HookProcessEnd {
  if (text === '') return { kind: 'answer', answer: undefined };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'failed', why: `its output is not JSON: ${text.slice(0, 200)}` };
  }
  const answer = HookAnswer.safeParse(json);
  if (!answer.success) {
    return { kind: 'failed', why: `invalid answer: ${z.prettifyError(answer.error)}` };
  }
  return { kind: 'answer', answer: answer.data };
}

/** Keeps the first MAX_STREAM_BYTES of a stream; the returned function gives them as text. */
function collect(stream: NodeJS.ReadableStream): () => string {
  const chunks: Buffer[] = [];
  let kept = 0;
  stream.on('data', (chunk: Buffer) => {
    const room = MAX_STREAM_BYTES - kept;
    if (room <= 0) return;
    chunks.push(chunk.subarray(0, room));
    kept += Math.min(room, chunk.length);
  });
  return () => Buffer.concat(chunks).toString('utf8');
}
