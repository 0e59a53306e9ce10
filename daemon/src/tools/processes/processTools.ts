/**
 * The tools of background processes, bound to one session: process_start
 * (execute, like run_command: same sandbox, environment and gate) returns
 * once the process has run for a short grace, with what it wrote so far;
 * process_output and process_list (read) show what it wrote since and how it
 * is; process_kill stops it. Separate tools rather than a flag on
 * run_command: their results, arguments (no timeout) and lifetime differ,
 * and a background process is always spawned by the daemon, never in an
 * editor's terminal.
 *
 * A turn's tree nodes end with the turn, so a process's output shows live
 * only in the node of the process_start call, during its grace; later
 * output reaches the tree through the node of each process_output call.
 */
import { z } from 'zod';
import { defineTool, type Tool, type ToolContext, type ToolOutput } from '../tool.js';
import { commandDirectory, unsandboxedNote } from '../workspace/runCommand.js';
import type { Workspace } from '../workspace/workspace.js';
import { realRoot } from '../workspace/confinement.js';
import { STOP_GRACE_MS, type BackgroundProcess } from './backgroundProcess.js';
import { MAX_PROCESS_OUTPUT_CHARS, type SessionProcesses } from './sessionProcesses.js';

/** How long process_start watches a new process before it returns. */
export const START_GRACE_MS = 1500;
/** Output one result shows at most (characters); the rest is read with `since`. */
export const MAX_OUTPUT_READ_CHARS = 32 * 1024;

const ProcessId = z.string().min(1).max(50).describe('The id process_start returned (`p1`, …)');

export interface ProcessToolsOptions {
  /** Default START_GRACE_MS. */
  startGraceMs?: number;
}

export function processTools(
  processes: SessionProcesses,
  sessionId: string,
  workspace: Workspace,
  options: ProcessToolsOptions = {},
): Tool[] {
  const graceMs = options.startGraceMs ?? START_GRACE_MS;
  const unknown = (id: string): ToolOutput => ({
    content: `No background process "${id}" in this session. ${listing(processes, sessionId)}`,
    isError: true,
  });
  return [
    defineTool({
      name: 'process_start',
      description:
        'Starts a long-running shell command (/bin/sh -c) in the background — a dev server, a watcher — in the workspace (or `cwd`, a directory inside it), ' +
        `sandboxed like run_command, and returns after ${graceMs / 1000} s with its id and what it wrote so far. ` +
        'Read what it writes next with process_output, stop it with process_kill; process_list lists this session’s processes. ' +
        'Use run_command for commands that finish.',
      input: z.object({
        command: z.string().min(1),
        cwd: z.string().min(1).default('.'),
      }),
      category: 'execute',
      parallelSafe: false,
      // A session grant covers the same command line only, as for run_command.
      grantKey: ({ command }) => command,
      execute: async ({ command, cwd }, ctx) => {
        const directory = commandDirectory(workspace, cwd);
        if (typeof directory !== 'string') return directory;
        const started = await processes.start(sessionId, {
          command,
          cwd,
          directory,
          workspaceRoot: realRoot(workspace.root),
        });
        if ('error' in started) return { content: started.error, isError: true };
        const job = started.process;
        const stopShowing = job.listen((text) => ctx.output?.(text));
        await settled(job, graceMs, ctx);
        stopShowing();
        const notes = [
          ...(started.unsandboxedReason === undefined
            ? []
            : [unsandboxedNote(started.unsandboxedReason)]),
          ...(started.isolatedNetwork
            ? [
                '[its sandbox has no network: ports it listens on answer only inside that sandbox, not to run_command or the user (the config setting sandbox.network lifts this)]',
              ]
            : []),
        ];
        const id = job.info.id;
        return {
          content: [
            `${id}: ${stateLine(job)}`,
            ...notes,
            ...readOutput(job, undefined, processes).lines,
            job.running
              ? `[process_output {"id":"${id}"} shows what it writes next; process_kill {"id":"${id}"} stops it]`
              : '',
          ]
            .filter((line) => line !== '')
            .join('\n'),
          isError: !job.running && !endedWell(job),
        };
      },
    }) as Tool,
    defineTool({
      name: 'process_output',
      description:
        'Shows what a background process (process_start) wrote since you last read it, or from the position `since`, and whether it still runs or how it ended.',
      input: z.object({
        id: ProcessId,
        since: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(
            'Read from this position (a number an earlier result gave); default: where the last read ended',
          ),
      }),
      category: 'read',
      execute: ({ id, since }, ctx) => {
        const job = processes.get(sessionId, id);
        if (job === undefined) return unknown(id);
        if (since !== undefined && since > job.output.total) {
          return {
            content: `since ${since} is past the end of ${id}'s output (${job.output.total} characters).`,
            isError: true,
          };
        }
        const { lines, text } = readOutput(job, since, processes);
        // Its node shows the output read: the start call's node ended with its grace.
        ctx.output?.(text);
        return [`${id} ${shownCommand(job, processes)}: ${stateLine(job)}`, ...lines].join('\n');
      },
    }) as Tool,
    defineTool({
      name: 'process_kill',
      description: `Stops a background process (process_start) and everything it started: SIGTERM, then SIGKILL if it has not exited after ${STOP_GRACE_MS / 1000} s. Its output stays readable.`,
      input: z.object({ id: ProcessId }),
      category: 'execute',
      execute: async ({ id }) => {
        const job = processes.get(sessionId, id);
        if (job === undefined) return unknown(id);
        if (!job.running) return `${id} had already ended: ${stateLine(job)}.`;
        await job.stop('process_kill');
        return `${id} stopped: ${stateLine(job)}.`;
      },
    }) as Tool,
    defineTool({
      name: 'process_list',
      description:
        'Lists the background processes of this session (process_start): id, command, whether each runs or how it ended.',
      input: z.object({}),
      category: 'read',
      execute: () => listing(processes, sessionId),
    }) as Tool,
  ];
}

/** Until the process exits, the grace is over or the turn stops. */
function settled(job: BackgroundProcess, graceMs: number, ctx: ToolContext): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, graceMs);
    ctx.signal.addEventListener('abort', done, { once: true });
    void job.exited.then(done);
  });
}

function endedWell(job: BackgroundProcess): boolean {
  const { status } = job;
  return status.state === 'exited' && status.failure === undefined && status.exitCode === 0;
}

function stateLine(job: BackgroundProcess): string {
  const status = job.status;
  if (status.state === 'running') {
    const seconds = Math.round((Date.now() - job.info.startedAt) / 1000);
    return `running (pid ${job.info.pid}, for ${seconds} s)`;
  }
  if (status.failure !== undefined) return `failed to start: ${status.failure}`;
  const by =
    status.stoppedBy === 'process_kill'
      ? ' (process_kill)'
      : status.stoppedBy === 'session_end'
        ? ' (its session ended)'
        : '';
  return status.signal !== null
    ? `killed by ${status.signal}${by}`
    : `exited with code ${status.exitCode}${by}`;
}

/** The command in backquotes, redacted: the model wrote it, but results also reach the clients. */
function shownCommand(job: BackgroundProcess, processes: SessionProcesses): string {
  return `\`${processes.redactor.redact(job.info.command)}\``;
}

function listing(processes: SessionProcesses, sessionId: string): string {
  const list = processes.list(sessionId);
  if (list.length === 0) return 'This session has no background processes.';
  return [
    'Background processes of this session:',
    ...list.map(
      (p) => `- ${p.info.id} ${shownCommand(p, processes)} (cwd ${p.info.cwd}): ${stateLine(p)}`,
    ),
  ].join('\n');
}

/**
 * The output part of a result: a line saying which characters follow, the
 * text (redacted), and how to read what was left out. Without `since`: what
 * is new since the last read, only its end when that is too long.
 */
function readOutput(
  job: BackgroundProcess,
  since: number | undefined,
  processes: SessionProcesses,
): { lines: string[]; text: string } {
  const { output, info } = job;
  const requested = since ?? job.delivered;
  const from = since ?? Math.max(requested, output.total - MAX_OUTPUT_READ_CHARS);
  const window = output.read(from, MAX_OUTPUT_READ_CHARS);
  job.delivered = Math.max(job.delivered, window.end);
  const lines: string[] = [];
  if (window.start > requested) {
    lines.push(
      requested < output.first
        ? `[… characters ${requested}–${window.start} not shown: only the last ${MAX_PROCESS_OUTPUT_CHARS} are kept]`
        : `[… characters ${requested}–${window.start} not shown: process_output {"id":"${info.id}","since":${requested}} shows them]`,
    );
  }
  if (window.text === '') {
    lines.push(`[no new output; ${output.total} characters in all]`);
    return { lines, text: '' };
  }
  const text = processes.redactor.redactWindow(window.text);
  lines.push(`[output ${window.start}–${window.end} of ${output.total} characters]`, text);
  if (window.end < output.total) {
    lines.push(
      `[… ${output.total - window.end} more characters: process_output {"id":"${info.id}","since":${window.end}}]`,
    );
  }
  return { lines, text };
}
