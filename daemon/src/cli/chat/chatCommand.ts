/**
 * `arbor chat`: the terminal client. Connects (spawning the daemon or
 * attaching to a socket), creates or continues a session, then runs one turn
 * per message — the given one, or each line typed at the prompt.
 */
import { statSync } from 'node:fs';
import { Methods, type CommandInfo, type StopReason } from '@arbor/protocol';
import {
  loadToolCatalogue,
  SessionTracker,
  ToolCatalogue,
  type SessionView,
} from '@arbor/protocol/client';
import type { ArborConnection } from '@arbor/protocol/client/node';
import { ConfigError } from '../../config/daemonConfig.js';
import { ApprovalPrompter, type ApprovalDisplay } from './approvalPrompt.js';
import { PromptSeat } from './promptSeat.js';
import { QuestionPrompter } from './questionPrompt.js';
import { CHAT_HELP, parseChatArgs, type ChatOptions } from './chatArgs.js';
import {
  ChangedTurns,
  DIFF_COMMAND,
  UNDO_COMMAND,
  changesOfView,
  parseTurnCommand,
  runDiffCommand,
  runUndoCommand,
  type CommandIo,
} from './checkpointCommands.js';
import { openDaemonConnection } from './daemonConnection.js';
import { isModelCommand, runModelCommand } from './modelCommand.js';
import { TOOLS_COMMAND, runToolsCommand } from './toolsCommand.js';
import { HELP_COMMAND, completeLine, helpLines, sessionCommands } from './helpCommand.js';
import { streamJsonEvents } from './jsonEvents.js';
import { TerminalInput } from './terminalInput.js';
import { createStyle, wantsColor, type Style } from './terminalStyle.js';
import { TurnRenderer, type TurnEnd } from './turnRenderer.js';

/** Exit codes: 0 the turn ended normally; 1 it failed or hit a limit; 130 it was cancelled. */
export function exitCodeFor(stopReason: StopReason): number {
  if (stopReason === 'end_turn') return 0;
  if (stopReason === 'cancelled') return 130;
  return 1;
}

export async function chatCommand(argv: string[]): Promise<number> {
  const options = parseChatArgs(argv);
  if (options.help) {
    process.stdout.write(CHAT_HELP);
    return 0;
  }
  if (options.session === undefined) checkWorkspace(options.workspace);
  // A reader that stops early (`arbor chat --json … | head`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });

  const daemonLog: string[] = [];
  const connection = await openDaemonConnection(options, (text) => daemonLog.push(text));
  const chat = new ChatClient(connection, options);
  try {
    try {
      await connection.client.initialize();
    } catch (error) {
      const log = daemonLog.join('').trim();
      throw new Error(
        `the daemon did not start: ${error instanceof Error ? error.message : String(error)}` +
          (log ? `\n${log}` : ''),
      );
    }
    await chat.open();
    if (options.message !== undefined) return await chat.runTurn(options.message);
    return await chat.interactive();
  } finally {
    chat.close();
    await connection.close();
  }
}

function checkWorkspace(dir: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) throw new ConfigError(`--workspace ${dir} is not a directory`);
}

class ChatClient {
  readonly #connection: ArborConnection;
  readonly #options: ChatOptions;
  readonly #tracker: SessionTracker;
  readonly #input = new TerminalInput(process.stdin, process.stdout);
  readonly #style: Style;
  /** Prompts and notes go to stderr when stdout carries JSON. */
  readonly #errStyle: Style;
  #view: SessionView | undefined;
  /** The session's tools (tools/list), so tool lines say what each call is about. */
  #tools = new ToolCatalogue();
  /** The turns that changed files, for /undo and /diff. */
  readonly #changed = new ChangedTurns();
  #closed = false;

  constructor(connection: ArborConnection, options: ChatOptions) {
    this.#connection = connection;
    this.#options = options;
    // Created before initialize(), so the client declares the approvals capability.
    this.#tracker = new SessionTracker(connection.client);
    this.#style = createStyle(!options.json && wantsColor(process.stdout));
    this.#errStyle = createStyle(wantsColor(process.stderr));
    connection.client.on('error', (error) => {
      process.stderr.write(this.#errStyle.dim(`arbor chat: ${error.message}\n`));
    });
    connection.client.on('close', () => {
      this.#closed = true;
    });
  }

  async open(): Promise<void> {
    const options = this.#options;
    const client = this.#connection.client;
    let view: SessionView;
    if (options.session !== undefined) {
      view = await this.#tracker.attach(options.session, { role: 'controller', sinceSeq: null });
      if (options.mode !== undefined && options.mode !== view.permissionMode) {
        await client.request(Methods.SessionSetPermissionMode, {
          sessionId: view.sessionId,
          mode: options.mode,
        });
      }
    } else {
      const params: Parameters<SessionTracker['create']>[0] = { workspaceRoot: options.workspace };
      if (options.mode !== undefined) params.permissionMode = options.mode;
      if (options.model !== undefined) params.model = options.model;
      if (options.agent !== undefined) params.agent = options.agent;
      view = (await this.#tracker.create(params)).view;
    }
    this.#view = view;
    // Rendering does without it (raw argument previews) if the daemon cannot list tools.
    this.#tools = await loadToolCatalogue(client, view.sessionId).catch(() => new ToolCatalogue());
    if (options.json) {
      streamJsonEvents(client, view, process.stdout);
    } else {
      const style = this.#style;
      process.stdout.write(
        style.dim(
          `session ${view.sessionId} · ${options.session !== undefined ? 'continued' : options.workspace}` +
            ` · mode ${view.permissionMode ?? options.mode ?? 'default'}` +
            (view.model ? ` · ${view.model}` : '') +
            (view.agent ? ` · agent ${view.agent}` : ''),
        ) + '\n\n',
      );
    }
  }

  /** One turn: send, render until session/state idle, return the exit code. */
  async runTurn(text: string): Promise<number> {
    const view = this.#view!;
    const client = this.#connection.client;
    const live = !this.#options.json && process.stdout.isTTY === true;
    const renderer = this.#options.json
      ? undefined
      : new TurnRenderer(view, {
          out: process.stdout,
          style: this.#style,
          live,
          tools: this.#tools,
        });
    const display: ApprovalDisplay = renderer ?? this.#stderrDisplay();
    const promptStyle = renderer ? this.#style : this.#errStyle;
    // Approvals and questions take turns at the keyboard.
    const seat = new PromptSeat();
    const prompter = new ApprovalPrompter(view, this.#input, display, promptStyle, seat);
    const questions = new QuestionPrompter(view, this.#input, display, promptStyle, {
      seat,
      width: () => (renderer ? process.stdout.columns : process.stderr.columns) || 80,
    });

    let turnId: string | undefined;
    const ends = new Map<string | undefined, TurnEnd>();
    let settle: ((end: TurnEnd) => void) | undefined;
    const ended = new Promise<TurnEnd>((resolve) => (settle = resolve));
    const offEnd = view.on('turnEnded', (event) => {
      const end: TurnEnd = { stopReason: event.stopReason, error: event.state.error?.message };
      ends.set(event.turnId, end);
      if (turnId !== undefined && event.turnId === turnId) settle!(end);
    });
    const offClose = client.on('close', () =>
      settle!({ stopReason: 'error', error: 'the connection to the daemon closed' }),
    );

    let interrupts = 0;
    this.#input.beginTurn(() => {
      interrupts++;
      if (interrupts > 1) this.#hardExit();
      display.note([this.#style.yellow('Cancelling the turn… (Ctrl-C again to exit)')]);
      const params: { sessionId: string; turnId?: string } = { sessionId: view.sessionId };
      if (turnId !== undefined) params.turnId = turnId;
      client.request(Methods.ChatCancel, params).catch(() => undefined);
    });
    try {
      turnId = (await client.request(Methods.ChatSend, { sessionId: view.sessionId, text })).turnId;
      const early = ends.get(turnId);
      if (early) settle!(early);
      const end = await ended;
      renderer?.finish(end);
      this.#changed.record(turnId, text, changesOfView(view));
      if (!renderer && end.stopReason !== 'end_turn') {
        process.stderr.write(
          `arbor chat: turn ended: ${end.stopReason}${end.error ? ` — ${end.error}` : ''}\n`,
        );
      }
      return exitCodeFor(end.stopReason);
    } catch (error) {
      renderer?.dispose();
      throw error;
    } finally {
      this.#input.endTurn();
      prompter.dispose();
      questions.dispose();
      offEnd.dispose();
      offClose.dispose();
    }
  }

  /** A prompt per line until end of input, Ctrl-C / Ctrl-D at the prompt, or /exit. */
  async interactive(): Promise<number> {
    const out = this.#options.json ? process.stderr : process.stdout;
    const style = this.#options.json ? this.#errStyle : this.#style;
    if (this.#input.isTTY) {
      out.write(
        style.dim(
          'Type a message; /model <provider:model> switches the model; /tools lists the tools; /diff shows what the last turn changed, /undo puts it back; /help lists every command, Tab completes one; /exit or Ctrl-D to quit.\n',
        ),
      );
    }
    // Read again for /help and after each turn (commands/changed keeps the view's list fresh).
    const commands = (): readonly CommandInfo[] => this.#view?.commands ?? [];
    if (this.#view)
      this.#view.seedCommands(await sessionCommands(this.#connection.client, this.#view.sessionId));
    this.#input.completer = (line) => completeLine(commands(), line);
    let code = 0;
    for (;;) {
      if (this.#closed) return 1;
      const line = await this.#input.prompt(this.#input.isTTY ? style.bold('› ') : '');
      if (line === undefined) return code;
      const text = line.trim();
      if (text === '') continue;
      if (text === '/exit' || text === '/quit') return code;
      if (isModelCommand(text)) {
        const said = await runModelCommand(this.#connection.client, this.#view!, text);
        out.write(style.dim(`${said}\n`));
        continue;
      }
      if (text === HELP_COMMAND) {
        if (this.#view)
          this.#view.seedCommands(
            await sessionCommands(this.#connection.client, this.#view.sessionId),
          );
        out.write(style.dim(`${helpLines(commands()).join('\n')}\n`));
        continue;
      }
      if (text === TOOLS_COMMAND) {
        const lines = await runToolsCommand(this.#connection.client, this.#view!);
        out.write(style.dim(`${lines.join('\n')}\n`));
        continue;
      }
      const undo = parseTurnCommand(text, UNDO_COMMAND);
      const diff = parseTurnCommand(text, DIFF_COMMAND);
      if (undo !== undefined || diff !== undefined) {
        const io: CommandIo = {
          style,
          print: (lines) => out.write(`${lines.join('\n')}\n`),
          confirm: async (question) => {
            const answer = await this.#input.prompt(question);
            // A pipe does not echo: the answer goes on the question's line, so output reads alike.
            if (!this.#input.isTTY) out.write(`${answer ?? ''}\n`);
            return /^\s*y(es)?\s*$/i.test(answer ?? '');
          },
        };
        const client = this.#connection.client;
        if (undo !== undefined) await runUndoCommand(client, this.#view!, this.#changed, undo, io);
        else await runDiffCommand(client, this.#view!, this.#changed, diff!, io);
        continue;
      }
      code = await this.runTurn(text);
      if (!this.#options.json) out.write('\n');
    }
  }

  close(): void {
    this.#input.close();
  }

  #stderrDisplay(): ApprovalDisplay {
    return {
      prompt: (lines) => {
        if (lines) process.stderr.write(`${lines.join('\n')}\n`);
      },
      note: (lines) => process.stderr.write(`${lines.join('\n')}\n`),
      // Raw mode does not echo: the typed answer is redrawn on its own line.
      typing: (text) => {
        if (!process.stderr.isTTY || !this.#input.isTTY) return;
        process.stderr.write(text === undefined ? '\n' : `\r\u001b[K  › ${text}`);
      },
    };
  }

  /** The second Ctrl-C: leave now, restoring the terminal and stopping a spawned daemon. */
  #hardExit(): never {
    this.#input.close();
    if (process.stdout.isTTY) process.stdout.write('\u001b[?25h\n');
    this.#connection.process?.child.kill('SIGTERM');
    this.#connection.socket?.destroy();
    process.exit(130);
  }
}
