/**
 * The editor's files and terminals as a session's workspace I/O
 * (tools/workspace/workspaceIo.ts), for the daemon in this process: what an
 * ACP client advertised in `initialize` is used, the rest stays the daemon's.
 *
 * - `fs.readTextFile`: read_file, edit_file and apply_patch read a file's
 *   text with `fs/read_text_file`, so unsaved buffers are what the model
 *   sees. The stale-write guard then judges a write by the text the editor
 *   has now (one more read), not by the disk.
 * - `fs.writeTextFile`: write_file, edit_file and apply_patch write with
 *   `fs/write_text_file`, so the editor's buffers, undo and watchers see it.
 * - `terminal`: run_command runs in an editor terminal (`terminal/create`,
 *   `wait_for_exit`, `output`, `kill`, `release`), shown live in the tool
 *   call; runCommand.ts keeps the daemon's own spawn while its sandbox would
 *   confine the command, since the editor's terminal is outside it.
 *
 * The tools confine every path first; the editor only ever gets absolute
 * paths inside the workspace, after the permission gate allowed the call.
 * Each request has a deadline and ends with the turn: a failing or silent
 * editor fails that tool call (WorkspaceIoError), never the turn.
 */
import { existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  methods,
  type AgentContext,
  type ClientCapabilities,
  type EnvVariable,
  type SendRequestOptions,
  type TerminalOutputResponse,
} from '@agentclientprotocol/sdk';
import { isSecretEnv } from '../security/secretEnv.js';
import { sandboxSettings } from '../tools/sandbox/sandboxSettings.js';
import type { ToolContext } from '../tools/tool.js';
import {
  inGitDir,
  namesGitDir,
  realRoot,
  WorkspaceEscapeError,
} from '../tools/workspace/confinement.js';
import { MAX_FILE_BYTES } from '../tools/workspace/fileTools.js';
import { MAX_COMMAND_OUTPUT_BYTES } from '../tools/workspace/runCommand.js';
import type { StaleWriteGuard } from '../tools/workspace/staleWriteGuard.js';
import {
  diskFiles,
  WorkspaceIoError,
  type CommandRequest,
  type CommandResult,
  type CommandRunner,
  type ConfinedFile,
  type WorkspaceFiles,
  type WorkspaceIo,
  type WorkspaceIoFactory,
} from '../tools/workspace/workspaceIo.js';

/** How long one fs/* or terminal/* request (but wait_for_exit) may take before the call fails. */
export const EDITOR_REQUEST_TIMEOUT_MS = 30_000;

export interface EditorWorkspaceOptions {
  editor: AgentContext;
  sessionId: string;
  capabilities: ClientCapabilities | undefined;
  /** The call `ctx` belongs to runs a command in this terminal: the editor shows it in the call. */
  showTerminal(ctx: ToolContext, terminalId: string): void;
  log(message: string): void;
}

/** What the editor advertised, in words for logs and docs; empty: nothing is delegated. */
export function delegatedIo(capabilities: ClientCapabilities | undefined): string[] {
  return [
    ...(capabilities?.fs?.readTextFile === true ? ['fs/read_text_file'] : []),
    ...(capabilities?.fs?.writeTextFile === true ? ['fs/write_text_file'] : []),
    ...(capabilities?.terminal === true ? ['terminal/*'] : []),
  ];
}

/** The session's I/O through the editor; undefined when it advertised none of it (the disk then). */
export function editorWorkspaceIo(options: EditorWorkspaceOptions): WorkspaceIoFactory | undefined {
  if (delegatedIo(options.capabilities).length === 0) return undefined;
  return (root, guard): WorkspaceIo => ({
    files: editorFiles(root, guard, options),
    ...(options.capabilities?.terminal === true && { commands: editorTerminal(root, options) }),
  });
}

/** `path` (a real path inside the workspace) under the root as the editor named it (its cwd). */
function editorPath(root: string, real: string): string {
  return join(root, relative(realRoot(root), real));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Sends one request to the editor: it ends when `signal` aborts (the turn)
 * or after EDITOR_REQUEST_TIMEOUT_MS, and every failure is a WorkspaceIoError.
 */
async function ask<T>(
  what: string,
  signal: AbortSignal,
  send: (options: SendRequestOptions) => Promise<T>,
  timeoutMs = EDITOR_REQUEST_TIMEOUT_MS,
): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    return await send({
      cancellationSignal: AbortSignal.any([signal, deadline]),
      stopWaitingOnCancel: true,
    });
  } catch (error) {
    if (signal.aborted) throw new WorkspaceIoError(`${what}: the turn was cancelled`);
    if (deadline.aborted)
      throw new WorkspaceIoError(`the editor did not answer ${what} within ${timeoutMs / 1000} s`);
    throw new WorkspaceIoError(`the editor failed ${what}: ${messageOf(error)}`);
  }
}

function editorFiles(
  root: string,
  guard: StaleWriteGuard,
  { editor, sessionId, capabilities }: EditorWorkspaceOptions,
): WorkspaceFiles {
  const disk = diskFiles(guard);
  const reads = capabilities?.fs?.readTextFile === true;
  const writes = capabilities?.fs?.writeTextFile === true;

  const readText = async (file: ConfinedFile, signal: AbortSignal): Promise<{ text: string }> => {
    const { requested } = file;
    // What the disk read would refuse at once is refused without asking the editor.
    if (existsSync(file.real)) {
      const stats = statSync(file.real);
      if (stats.isDirectory())
        throw new WorkspaceIoError(`${requested} is a directory; use list_dir`);
      if (!stats.isFile()) throw new WorkspaceIoError(`${requested} is not a regular file`);
    }
    const { content } = await ask(`fs/read_text_file of ${requested}`, signal, (options) =>
      editor.request(
        methods.client.fs.readTextFile,
        { sessionId, path: editorPath(root, file.real) },
        options,
      ),
    );
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > MAX_FILE_BYTES)
      throw new WorkspaceIoError(
        `${requested} is ${bytes} bytes in the editor; files up to ${MAX_FILE_BYTES} bytes can be opened`,
      );
    return { text: content };
  };

  return {
    readText: (file, signal) => (reads ? readText(file, signal) : disk.readText(file, signal)),
    staleReason: async (file, signal) => {
      // Read from the disk: the disk's stat and watcher judge, as without an editor.
      if (!reads) return disk.staleReason(file, signal);
      if (!guard.hasSeen(file.real)) return undefined;
      let current: string | undefined;
      try {
        current = existsSync(file.real) ? (await readText(file, signal)).text : undefined;
      } catch (error) {
        if (signal.aborted) throw error;
        return `${file.requested} cannot be read to check it is unchanged (${messageOf(error)}). Read it again (read_file).`;
      }
      return guard.staleText(file.real, file.requested, current);
    },
    writeText: async (file, text, signal) => {
      if (!writes) return disk.writeText(file, text, signal);
      const rootReal = realRoot(root);
      // As writeFileConfined: the gate saw no .git/ path, so none may be reached another way.
      if (inGitDir(rootReal, file.real) && !namesGitDir(root, file.requested))
        throw new WorkspaceEscapeError(
          file.requested,
          'leads into .git/, a protected path, through a symbolic link or a concurrent change',
          'name the path under .git/ directly so that the write is asked for',
        );
      const created = !existsSync(file.real);
      await ask(`fs/write_text_file of ${file.requested}`, signal, (options) =>
        editor.request(
          methods.client.fs.writeTextFile,
          { sessionId, path: editorPath(root, file.real), content: text },
          options,
        ),
      );
      return { created };
    },
    // Texts read in the editor, or written there and not on disk yet, are judged by content.
    saw: (file, text, stats) => {
      if (reads || (stats === undefined && !existsSync(file.real))) guard.sawText(file.real, text);
      else disk.saw(file, text, stats);
    },
    forget: (file) => disk.forget(file),
  };
}

/**
 * ACP can set a terminal's variables but not remove them: the secrets the
 * daemon keeps from its own commands (security/secretEnv.ts) are set empty,
 * since the editor's environment, which the terminal inherits, is likely the
 * one this process got them from. No value of the daemon's is ever sent.
 */
function terminalEnv(): EnvVariable[] {
  const allowed = new Set(sandboxSettings().allowEnv);
  return Object.entries(process.env)
    .filter(
      ([name, value]) => value !== undefined && !allowed.has(name) && isSecretEnv(name, value),
    )
    .map(([name]) => ({ name, value: '' }));
}

function failure(message: string): CommandResult {
  return { exitCode: null, signal: null, failure: message, output: '', dropped: 0 };
}

function editorTerminal(
  root: string,
  { editor, sessionId, showTerminal, log }: EditorWorkspaceOptions,
): CommandRunner {
  return {
    honoursSandbox: false,
    run: async (request: CommandRequest, ctx: ToolContext): Promise<CommandResult> => {
      if (ctx.signal.aborted)
        return { exitCode: null, signal: null, stopped: 'cancelled', output: '', dropped: 0 };
      // Killing, reading and releasing go on after a cancelled turn: nothing may keep running.
      const after = new AbortController().signal;
      let terminalId: string;
      try {
        // Not abandoned on cancel: a terminal created meanwhile is killed and released below.
        ({ terminalId } = await ask('terminal/create', after, (options) =>
          editor.request(
            methods.client.terminal.create,
            {
              sessionId,
              command: '/bin/sh',
              args: ['-c', request.command],
              cwd: editorPath(root, request.cwd),
              env: terminalEnv(),
              outputByteLimit: MAX_COMMAND_OUTPUT_BYTES,
            },
            options,
          ),
        ));
      } catch (error) {
        return failure(`failed to start: ${messageOf(error)}`);
      }
      showTerminal(ctx, terminalId);
      const ids = { sessionId, terminalId };
      const note = `[ran in the editor's terminal ${terminalId}, without a sandbox]`;
      try {
        const timeout = AbortSignal.timeout(request.timeoutMs);
        let stopped: 'timeout' | 'cancelled' | undefined = ctx.signal.aborted
          ? 'cancelled'
          : undefined;
        let exit: { exitCode?: number | null; signal?: string | null } | undefined;
        if (stopped === undefined)
          try {
            exit = await ask(
              'terminal/wait_for_exit',
              AbortSignal.any([ctx.signal, timeout]),
              (options) => editor.request(methods.client.terminal.waitForExit, ids, options),
              // Ended by the command's own timeout, not a request deadline.
              request.timeoutMs + EDITOR_REQUEST_TIMEOUT_MS,
            );
          } catch (error) {
            if (ctx.signal.aborted) stopped = 'cancelled';
            else if (timeout.aborted) stopped = 'timeout';
            else return { ...failure(`the command's end is unknown: ${messageOf(error)}`), note };
          }
        if (stopped !== undefined) {
          await ask('terminal/kill', after, (options) =>
            editor.request(methods.client.terminal.kill, ids, options),
          ).catch((error: unknown) => log(messageOf(error)));
        }
        let output = '';
        let earlier = false;
        try {
          const read = await ask<TerminalOutputResponse>('terminal/output', after, (options) =>
            editor.request(methods.client.terminal.output, ids, options),
          );
          output = read.output;
          earlier = read.truncated;
          exit ??= read.exitStatus ?? undefined;
        } catch (error) {
          output = `[the output could not be read: ${messageOf(error)}]`;
        }
        // The editor keeps an output's end; so does this bound, should it keep more.
        const bytes = Buffer.from(output, 'utf8');
        if (bytes.length > MAX_COMMAND_OUTPUT_BYTES) {
          output = bytes.subarray(bytes.length - MAX_COMMAND_OUTPUT_BYTES).toString('utf8');
          earlier = true;
        }
        return {
          exitCode: exit?.exitCode ?? null,
          signal: exit?.signal ?? null,
          ...(stopped === undefined ? {} : { stopped }),
          output,
          dropped: earlier ? 'earlier' : 0,
          note,
        };
      } finally {
        void ask('terminal/release', after, (options) =>
          editor.request(methods.client.terminal.release, ids, options),
        ).catch((error: unknown) => log(messageOf(error)));
      }
    },
  };
}
