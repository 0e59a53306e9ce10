/**
 * The one seam between the agent and the user's lifecycle hooks. A
 * HookRunner holds the daemon's hooks (config `hooks`) for its life; each
 * turn gets a TurnHooks bound to its request, tree and signal, which the
 * turn runner and the loop call at the five points: SessionStart and
 * UserPromptSubmit before the first model call, PreToolUse before the
 * permission gate, PostToolUse after a call ran, Stop when the root loop
 * answers. Every run is a `hook` node in the tree (under the tool call's
 * node, else the turn's); a failing or hanging hook is an `error` node and
 * has no say: the turn goes on as if it were not configured.
 */
import { realpathSync } from 'node:fs';
import type { ExecutionTree } from '../agent/executionTree.js';
import { cutText } from '../agent/executionTree.js';
import type { GateHookVerdict } from '../agent/toolGate.js';
import type { Log } from '../agent/turnContext.js';
import type { TurnRequest } from '../agent/turnRunner.js';
import type { ToolResult } from '../agent/toolResult.js';
import type { Tool } from '../tools/tool.js';
import {
  DEFAULT_HOOK_TIMEOUT_MS,
  type HookCommand,
  type HookEvent,
  type UserHooks,
} from './hookConfig.js';
import { matchesTool } from './hookMatcher.js';
import { runHookProcess, type HookProcessEnd } from './hookProcess.js';
import { WorkspaceHooksReader } from './workspaceHooks.js';

/** How often Stop hooks may send the model back to work in one turn. */
export const MAX_STOP_CONTINUES = 3;
/** Largest text of the event a hook gets (a tool's result, the answer). */
const MAX_INPUT_TEXT_CHARS = 16_000;
/** Largest text a hook adds for the model. */
const MAX_HOOK_TEXT_CHARS = 10_000;

export interface HookRunnerOptions {
  /** The config file's `hooks`. */
  user: UserHooks;
  log: Log;
}

export class HookRunner {
  private readonly workspaceFiles = new WorkspaceHooksReader();
  /** Sessions whose SessionStart hooks ran in this daemon. */
  private readonly started = new Set<string>();

  constructor(private readonly options: HookRunnerOptions) {}

  forTurn(turn: { request: TurnRequest; tree: ExecutionTree; signal: AbortSignal }): TurnHooks {
    return new TurnHooks(this, turn);
  }

  /** The hooks of `event` in force for the workspace now: the user's, then the workspace file's if trusted. */
  commands(
    event: HookEvent,
    workspaceRoot: () => string,
  ): { commands: HookCommand[]; error?: string } {
    const user = this.options.user[event] ?? [];
    if (this.options.user.workspaceFile !== true) return { commands: user };
    const read = this.workspaceFiles.read(workspaceRoot());
    if ('error' in read) return { commands: user, error: read.error };
    return { commands: [...user, ...(read.hooks[event] ?? [])] };
  }

  /** True the first time it is asked for a session (its SessionStart runs once per daemon). */
  firstTurnOf(sessionId: string): boolean {
    if (this.started.has(sessionId)) return false;
    this.started.add(sessionId);
    return true;
  }

  get log(): Log {
    return this.options.log;
  }
}

/** What PreToolUse hooks made of a call: arguments (maybe rewritten, re-validated) and their verdict for the gate. */
export type PreToolUseOutcome = { args: unknown; verdict?: GateHookVerdict } | { invalid: string };

export class TurnHooks {
  private stopContinues = 0;
  private realRoot: string | undefined;

  constructor(
    private readonly runner: HookRunner,
    private readonly turn: { request: TurnRequest; tree: ExecutionTree; signal: AbortSignal },
  ) {}

  /** Resolved on first use: a turn without hooks touches no file. */
  private get workspaceRoot(): string {
    return (this.realRoot ??= realPath(this.turn.request.workspaceRoot));
  }

  /** A session's first turn in this daemon: its SessionStart hooks; returns text for the model. */
  async sessionStart(): Promise<string | undefined> {
    const { request, tree } = this.turn;
    const commands = this.commands('SessionStart');
    if (commands.length === 0 || !this.runner.firstTurnOf(request.sessionId)) return undefined;
    const source = request.history.length === 0 ? 'startup' : 'resume';
    const texts: string[] = [];
    for (const command of commands) {
      const end = await this.run('SessionStart', command, tree.rootId, 0, { source });
      if (end.kind === 'answer' && end.answer?.context) texts.push(end.answer.context);
    }
    return joined('SessionStart', texts);
  }

  /** Before the first model call: a deny ends the turn (its reason for the user), else text for the model. */
  async userPromptSubmit(): Promise<{ denied: string } | { context: string | undefined }> {
    const { request, tree } = this.turn;
    const texts: string[] = [];
    for (const command of this.commands('UserPromptSubmit')) {
      const end = await this.run('UserPromptSubmit', command, tree.rootId, 0, {
        prompt: request.text,
      });
      const denied = deniedBy(end);
      if (denied !== undefined)
        return { denied: `A UserPromptSubmit hook blocked the prompt: ${denied}` };
      if (end.kind === 'answer' && end.answer?.context) texts.push(end.answer.context);
    }
    return { context: joined('UserPromptSubmit', texts) };
  }

  /**
   * Before the permission gate. Hooks run in order, each seeing the arguments
   * as the one before rewrote them; the first deny ends it. Rewritten
   * arguments are validated against the tool's schema again.
   */
  async preToolUse(call: {
    tool: Tool;
    args: unknown;
    nodeId: string;
    toolCallId: string;
    depth: number;
  }): Promise<PreToolUseOutcome> {
    let args = call.args;
    let verdict: GateHookVerdict | undefined;
    for (const command of this.commands('PreToolUse', call.tool.name)) {
      const end = await this.run('PreToolUse', command, call.nodeId, call.depth, {
        tool: { name: call.tool.name, args, toolCallId: call.toolCallId },
      });
      const denied = deniedBy(end);
      if (denied !== undefined) return { args, verdict: { decision: 'deny', reason: denied } };
      if (end.kind !== 'answer' || end.answer === undefined) continue;
      const { answer } = end;
      if (answer.args !== undefined) {
        const parsed = call.tool.input.safeParse(answer.args);
        if (!parsed.success) {
          return {
            invalid: `A PreToolUse hook (${command.command}) rewrote the arguments of ${call.tool.name} into invalid ones: ${parsed.error.message}`,
          };
        }
        args = parsed.data;
      }
      // ask outranks allow; neither outranks the gate's own deny, ask or block.
      if (answer.decision === 'ask' || (answer.decision === 'allow' && verdict === undefined)) {
        verdict = { decision: answer.decision, ...(answer.reason && { reason: answer.reason }) };
      }
    }
    return { args, ...(verdict && { verdict }) };
  }

  /** After a call ran: what hooks add (context, or a deny's reason) is appended to the result the model sees. */
  async postToolUse(
    call: { tool: Tool; args: unknown; nodeId: string; toolCallId: string; depth: number },
    result: ToolResult,
  ): Promise<ToolResult> {
    const texts: string[] = [];
    for (const command of this.commands('PostToolUse', call.tool.name)) {
      const end = await this.run('PostToolUse', command, call.nodeId, call.depth, {
        tool: { name: call.tool.name, args: call.args, toolCallId: call.toolCallId },
        result: { content: cutText(result.content, MAX_INPUT_TEXT_CHARS), isError: result.isError },
      });
      const denied = deniedBy(end);
      if (denied !== undefined) texts.push(denied);
      else if (end.kind === 'answer' && end.answer?.context) texts.push(end.answer.context);
    }
    const added = joined('PostToolUse', texts);
    return added === undefined ? result : { ...result, content: `${result.content}\n\n${added}` };
  }

  /**
   * When the root loop answers: a deny (or block) with a reason sends the
   * model back to work with the reason as a note, at most MAX_STOP_CONTINUES times a turn.
   */
  async stop(answer: string): Promise<string | undefined> {
    if (this.stopContinues >= MAX_STOP_CONTINUES) return undefined;
    for (const command of this.commands('Stop')) {
      const end = await this.run('Stop', command, this.turn.tree.rootId, 0, {
        answer: cutText(answer, MAX_INPUT_TEXT_CHARS),
        stopHookActive: this.stopContinues > 0,
      });
      const denied = deniedBy(end);
      if (denied === undefined) continue;
      this.stopContinues++;
      return `[Stop hook] Do not stop yet: ${cutText(denied, MAX_HOOK_TEXT_CHARS)}`;
    }
    return undefined;
  }

  private commands(event: HookEvent, toolName?: string): HookCommand[] {
    const found = this.runner.commands(event, () => this.workspaceRoot);
    if (found.error !== undefined) {
      // Trusted but unreadable: shown once per event and turn point, like a failed hook.
      const { tree } = this.turn;
      const id = tree.add({
        parentId: tree.rootId,
        kind: 'hook',
        name: event,
        title: '.arbor/settings.json',
        depth: 0,
        status: 'running',
      });
      tree.finish(id, { status: 'error', result: found.error, isError: true });
    }
    return toolName === undefined
      ? found.commands
      : found.commands.filter((command) => matchesTool(command.matcher, toolName));
  }

  /** One hook run, as a `hook` node under `parentId`. */
  private async run(
    event: HookEvent,
    command: HookCommand,
    parentId: string,
    depth: number,
    input: Record<string, unknown>,
  ): Promise<HookProcessEnd> {
    const { request, tree, signal } = this.turn;
    const nodeId = tree.add({
      parentId,
      kind: 'hook',
      name: event,
      title: command.command,
      depth,
      status: 'running',
    });
    const end = await runHookProcess({
      command: command.command,
      workspaceRoot: this.workspaceRoot,
      input: {
        event,
        sessionId: request.sessionId,
        turnId: request.turnId,
        workspaceRoot: this.workspaceRoot,
        permissionMode: request.permissionMode(),
        ...input,
      },
      env: { ARBOR_HOOK_EVENT: event, ARBOR_WORKSPACE_ROOT: this.workspaceRoot },
      timeoutMs: command.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
      signal,
    });
    if (signal.aborted) {
      // Stopped with the turn, not a failure of the hook.
      tree.finish(nodeId, { status: 'cancelled' });
      return end;
    }
    if (end.kind === 'failed') {
      this.runner.log('warn', `${event} hook "${command.command}" failed: ${end.why}`);
    }
    tree.finish(nodeId, {
      status: end.kind === 'failed' ? 'error' : 'done',
      result: describe(end),
      ...(end.kind === 'failed' && { isError: true }),
    });
    return end;
  }
}

/** The reason of a hook that blocked (exit 2) or answered deny / block; undefined otherwise. */
function deniedBy(end: HookProcessEnd): string | undefined {
  if (end.kind === 'block') return cutText(end.reason, MAX_HOOK_TEXT_CHARS);
  if (end.kind !== 'answer') return undefined;
  const decision = end.answer?.decision;
  if (decision !== 'deny' && decision !== 'block') return undefined;
  return cutText(end.answer?.reason || 'no reason given', MAX_HOOK_TEXT_CHARS);
}

function joined(event: HookEvent, texts: string[]): string | undefined {
  if (texts.length === 0) return undefined;
  return texts.map((text) => `[${event} hook] ${cutText(text, MAX_HOOK_TEXT_CHARS)}`).join('\n\n');
}

/** What the hook's node shows as its result. */
function describe(end: HookProcessEnd): string {
  switch (end.kind) {
    case 'failed':
      return `failed, ignored: ${end.why}`;
    case 'block':
      return `blocked (exit code 2): ${end.reason}`;
    case 'answer':
      return end.answer === undefined ? 'no opinion' : JSON.stringify(end.answer);
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
