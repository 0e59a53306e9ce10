/**
 * ChatController: the session the chat view shows, and everything the user
 * does in it. It owns the SessionTracker of the current connection, forwards
 * the current SessionView to the webview (through SessionBridge) and answers
 * the webview's messages with protocol requests.
 */
import * as vscode from 'vscode';
import {
  Methods,
  type CheckpointRestoreResult,
  type PermissionMode,
  type SessionInfo,
} from '@arbor/protocol';
import {
  SessionTracker,
  approvalKey,
  listAgents,
  listCommands,
  loadToolCatalogue,
  promptKey,
  type ArborClient,
  type SessionView,
} from '@arbor/protocol/client';
import { readSettings } from '../config.js';
import type { ConnectionState, DaemonSupervisor } from '../daemon/daemonSupervisor.js';
import type { CheckpointAccess, HostMessage, WebviewMessage } from '../shared/messages.js';
import type { DiffDocuments } from '../tools/diffDocuments.js';
import { Disposable } from '../util/disposable.js';
import { restoreTurn } from './checkpointRestore.js';
import { bridgeSessionView, interruptionMessages, sessionMessage } from './sessionBridge.js';
import { toolServerItems } from '../toolServers/toolServerItems.js';

export interface ChatStatus {
  state: 'offline' | 'idle' | 'running' | 'requires_action';
  sessionCost: number | null;
  /** What waits for the user: an approval first, else the model's question. */
  waitingFor?: 'approval' | 'question';
}

export class ChatController extends Disposable {
  readonly #onDidChangeStatus = this._register(new vscode.EventEmitter<ChatStatus>());
  readonly onDidChangeStatus = this.#onDidChangeStatus.event;

  #tracker: SessionTracker | undefined;
  #client: ArborClient | undefined;
  #sessionId: string | undefined;
  #session: SessionInfo | undefined;
  #view: SessionView | undefined;
  #bridge: { dispose(): void } | undefined;
  #viewSubs: { dispose(): void }[] = [];
  #turnCount = 0;
  readonly #userTexts = new Map<string, string>();
  readonly #costs = new Map<string, number | null>();
  /** Turns whose changes this window put back, per session (the webview forgets them on reload). */
  readonly #restored = new Map<string, Set<string>>();
  #post: (message: HostMessage) => void = () => undefined;

  constructor(
    private readonly supervisor: DaemonSupervisor,
    private readonly output: vscode.OutputChannel,
    private readonly diffs: DiffDocuments,
    private readonly memento: vscode.Memento,
  ) {
    super();
    this._register(supervisor.onDidChangeState((state) => this.#onConnectionState(state)));
    this._register(supervisor.onDidConnect(({ client }) => void this.#onConnected(client)));
    this._register(supervisor.onDidDisconnect(({ reason }) => this.#onDaemonLost(reason)));
  }

  /** Called by the supervisor with a fresh client, before `initialize`. */
  setupClient(client: ArborClient): void {
    this.#tracker?.dispose();
    this.#tracker = new SessionTracker(client);
    this.#client = client;
  }

  /** The webview's sink; messages sent while no webview exists are dropped (it asks again on `ready`). */
  attachWebview(post: (message: HostMessage) => void): void {
    this.#post = post;
  }

  get currentSessionId(): string | undefined {
    return this.#sessionId;
  }

  // ---- webview messages -------------------------------------------------

  async handle(message: WebviewMessage): Promise<void> {
    try {
      switch (message.type) {
        case 'ready':
          return await this.#sendEverything();
        case 'send':
        case 'retry':
          return await this.send(message.text);
        case 'cancel':
          return await this.cancel();
        case 'setMode':
          return await this.setMode(message.mode);
        case 'setModel':
          await this.memento.update('arbor.model', message.model);
          return await this.setModel(message.model);
        case 'setAgent':
          // Remembered for later new chats, as the model is.
          await this.memento.update('arbor.agent', message.agent ?? undefined);
          return await this.newChat(undefined, message.agent);
        case 'approve': {
          const ok = this.#view?.approvals.decide(approvalKey(message), message.decision);
          if (!ok) this.#notice('info', 'That approval is no longer pending.');
          return;
        }
        case 'answerQuestion':
          return this.#answerQuestion(message);
        case 'showDiff': {
          const approval = this.#view?.approvals
            .pending()
            .find((a) => a.key === approvalKey(message));
          if (!approval) return;
          const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
          return await this.diffs.showProposed(approval.request.args, folders);
        }
        case 'showChangeDiff':
          return await this.showChangeDiff(message.turnId, message.path);
        case 'restoreCheckpoint':
          return await this.restoreCheckpoint(message.turnId);
        case 'newChat':
          return await this.newChat();
        case 'switchSession':
          return await this.openSession(message.sessionId);
        case 'deleteSession':
          return await this.deleteSession(message.sessionId);
        case 'copy':
          await vscode.env.clipboard.writeText(message.text);
          return;
      }
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.output.appendLine(`[chat] ${message.type} failed: ${text}`);
      this.#notice('error', text);
    }
  }

  /**
   * The user's answer to a question. With `freeText: false` only an option's
   * label is valid (questions-valid-answer); anything else would make the
   * daemon discard it, so it is refused here and the card stays open.
   */
  #answerQuestion(message: Extract<WebviewMessage, { type: 'answerQuestion' }>): void {
    const key = promptKey(message);
    const question = this.#view?.questions.get(key);
    if (!question) {
      this.#notice('info', 'That question is no longer waiting for an answer.');
      return;
    }
    const { options = [], freeText } = question.request;
    if (!freeText && options.length > 0 && !options.some((o) => o.label === message.answer)) {
      this.#notice('error', 'Pick one of the offered answers.');
      return;
    }
    if (!this.#view!.questions.decide(key, message.answer))
      this.#notice('info', 'That question was already answered.');
  }

  // ---- checkpoints ------------------------------------------------------

  /** Diffs need the daemon's `checkpoints`; restore also a controller, which this window always attaches as. */
  #checkpointAccess(): CheckpointAccess {
    const diff = this.#client?.hasCapability('daemon.checkpoints') ?? false;
    return { diff, restore: diff };
  }

  /** A turn's changes (one file, or all of them) as a diff document beside the chat. */
  async showChangeDiff(turnId: string, path?: string): Promise<void> {
    const client = this.#requireClient();
    const sessionId = this.#sessionId;
    if (!sessionId || !this.#checkpointAccess().diff) return;
    const { diff, truncated } = await client.request(Methods.CheckpointDiff, {
      sessionId,
      turnId,
      ...(path !== undefined && { path }),
    });
    await this.diffs.showUnified(path ?? 'turn changes', diff, truncated);
  }

  /**
   * "Restore to before this turn": lists what will be put back and asks; on
   * a conflict (files changed since by someone else) names them and offers to
   * overwrite them; then says what was restored and marks the turns.
   */
  async restoreCheckpoint(turnId: string): Promise<void> {
    const client = this.#requireClient();
    const sessionId = this.#sessionId;
    if (!sessionId || !this.#checkpointAccess().restore) return;
    if (this.#view && this.#view.state !== 'idle') {
      this.#notice('info', 'Wait for the running turn to end before restoring files.');
      return;
    }
    const outcome = await restoreTurn(client, sessionId, turnId, {
      confirm: async ({ files, omitted }) => {
        const more = omitted > 0 ? `\n…and ${omitted} more` : '';
        const answer = await vscode.window.showWarningMessage(
          'Restore the files to how they were before this turn?',
          {
            modal: true,
            detail:
              'These files go back as they were before the turn (changes of later turns are undone too):\n' +
              `${listFiles(files)}${more}\n\nThe conversation stays as it is.`,
          },
          'Restore',
        );
        return answer === 'Restore';
      },
      confirmOverwrite: async (files) => {
        const answer = await vscode.window.showWarningMessage(
          'Some files changed since Arbor last changed them.',
          {
            modal: true,
            detail:
              'Nothing was restored. These files were changed by someone else (you, an editor, another chat):\n' +
              `${listFiles(files)}\n\nOverwrite them with their content from before the turn?`,
          },
          'Overwrite them',
        );
        return answer === 'Overwrite them';
      },
    });
    if (outcome.kind === 'unknownTurn') {
      this.#notice('error', 'That turn is not in this chat any more.');
      return;
    }
    if (outcome.kind === 'declined') return;
    const { plan, result } = outcome;
    let marked = this.#restored.get(sessionId);
    if (!marked) this.#restored.set(sessionId, (marked = new Set()));
    for (const id of plan.turnIds) marked.add(id);
    if (sessionId === this.#sessionId) this.#post({ type: 'restored', turnIds: plan.turnIds });
    this.#reportRestore(result);
  }

  #reportRestore(result: CheckpointRestoreResult): void {
    const restored = result.restored.length;
    const names = result.restored.slice(0, 3).join(', ') + (restored > 3 ? ', …' : '');
    const parts = [
      `Arbor: restored ${restored} file${restored === 1 ? '' : 's'}${restored > 0 ? ` (${names})` : ''}`,
    ];
    if (result.overwritten?.length)
      parts.push(`overwrote ${result.overwritten.length} changed since`);
    const failed = result.failed ?? [];
    if (failed.length === 0) {
      void vscode.window.showInformationMessage(`${parts.join('; ')}.`);
      return;
    }
    const why = failed.map((f) => `${f.path}: ${f.reason}`);
    void vscode.window.showWarningMessage(
      `${parts.join('; ')}; ${failed.length} could not be restored: ${why.slice(0, 3).join('; ')}${why.length > 3 ? '; …' : ''}`,
    );
    this.output.appendLine(`[chat] restore failed for:\n  ${why.join('\n  ')}`);
  }

  // ---- commands ---------------------------------------------------------

  async send(text: string): Promise<void> {
    const client = this.#requireClient();
    if (!this.#sessionId) await this.newChat();
    const sessionId = this.#sessionId!;
    const { turnId } = await client.request(Methods.ChatSend, { sessionId, text });
    this.#userTexts.set(turnId, text);
    this.#turnCount++;
    this.#post({ type: 'turnStarted', turnId, userText: text });
  }

  async cancel(): Promise<void> {
    if (!this.#client || !this.#sessionId || !this.#view || this.#view.state === 'idle') return;
    const params: { sessionId: string; turnId?: string } = { sessionId: this.#sessionId };
    if (this.#view.turnId) params.turnId = this.#view.turnId;
    await this.#client.request(Methods.ChatCancel, params);
  }

  async setMode(mode: PermissionMode): Promise<void> {
    if (!this.#client || !this.#sessionId) return;
    const result = await this.#client.request(Methods.SessionSetPermissionMode, {
      sessionId: this.#sessionId,
      mode,
    });
    this.#post({ type: 'mode', mode: result.mode });
  }

  /**
   * The model picker: the open chat goes on with the new model from its next
   * turn when the daemon can switch models; otherwise a new chat starts with it.
   */
  async setModel(model: string): Promise<void> {
    if (
      !this.#client ||
      !this.#sessionId ||
      !this.#client.hasCapability('daemon.sessions.setModel')
    )
      return await this.newChat(model);
    await this.#client.request(Methods.SessionSetModel, { sessionId: this.#sessionId, model });
    // session/update brought the model to the view; the picker shows it.
    this.#postModels();
  }

  /** Asks for a mode with a quick pick (the "Set Permission Mode" command). */
  async pickMode(): Promise<void> {
    const current = this.#view?.permissionMode;
    const pick = await vscode.window.showQuickPick(
      [
        {
          label: 'Plan',
          mode: 'plan' as const,
          detail: 'Only read tools run; everything else is blocked.',
        },
        {
          label: 'Default',
          mode: 'default' as const,
          detail: 'Tools that write, execute or reach out ask first.',
        },
        {
          label: 'Auto',
          mode: 'auto' as const,
          detail: 'All tools run (except always-ask tools).',
        },
      ].map((item) => ({ ...item, description: item.mode === current ? 'current' : '' })),
      { title: 'Arbor: Set Permission Mode' },
    );
    if (pick) await this.setMode(pick.mode);
  }

  /** Every tool server of the chat's session, with its status; a failing one offers the logs. */
  async showToolServers(): Promise<void> {
    const client = this.#requireClient();
    const sessionId = this.#sessionId;
    if (!sessionId) {
      void vscode.window.showInformationMessage('Arbor: open a chat to see its tool servers.');
      return;
    }
    const catalogue = await loadToolCatalogue(client, sessionId);
    this.#post({ type: 'tools', tools: catalogue.list(), servers: [...catalogue.servers] });
    if (catalogue.servers.length === 0) {
      void vscode.window.showInformationMessage(
        'Arbor: no MCP servers are configured for this workspace (mcpServers in the config file).',
      );
      return;
    }
    const pick = await vscode.window.showQuickPick(toolServerItems(catalogue.servers), {
      title: 'Arbor: Tool Servers',
      matchOnDetail: true,
    });
    if (pick && pick.server.status !== 'ready') this.output.show(true);
  }

  /**
   * `agent`: the profile picked for this chat (null: none); undefined: the
   * one picked last, if the daemon still has it.
   */
  async newChat(model?: string, agent?: string | null): Promise<void> {
    this.#requireClient();
    // An empty current chat is reused, unless a different model or agent is asked for.
    if (this.#sessionId && this.#turnCount === 0 && model === undefined && agent === undefined) {
      this.#post({ type: 'focusComposer' });
      return;
    }
    const root = workspaceRoot();
    if (!root) {
      this.#post({ type: 'noSession', reason: 'Open a folder to chat with Arbor about it.' });
      return;
    }
    const settings = readSettings();
    const chosenModel =
      model ?? this.memento.get<string>('arbor.model') ?? (settings.model || undefined);
    const chosenAgent = await this.#agentForNewChat(root, agent);
    const { session, view } = await this.#tracker!.create({
      workspaceRoot: root,
      permissionMode: this.#view?.permissionMode ?? settings.permissionMode,
      chatContext: { kind: 'editor' },
      ...(chosenModel && { model: chosenModel }),
      ...(chosenAgent && { agent: chosenAgent }),
    });
    await this.#show(session, view, []);
    await this.#refreshSessions();
    this.#post({ type: 'focusComposer' });
  }

  async openSession(sessionId: string): Promise<void> {
    this.#requireClient();
    if (this.#sessionId && this.#sessionId !== sessionId) {
      const previous = this.#sessionId;
      await this.#tracker!.detach(previous).catch(() => undefined);
    }
    const loaded = await this.#client!.request(Methods.SessionLoad, { sessionId });
    const view = await this.#tracker!.attach(sessionId);
    if (loaded.plan) view.seedPlan(loaded.plan);
    await this.#show(loaded.session, view, loaded.messages);
    await this.#refreshSessions();
  }

  async deleteSession(sessionId: string): Promise<void> {
    const client = this.#requireClient();
    const answer = await vscode.window.showWarningMessage(
      'Delete this chat? This cannot be undone.',
      { modal: true },
      'Delete',
    );
    if (answer !== 'Delete') return;
    this.#tracker!.forget(sessionId);
    await client.request(Methods.SessionDelete, { sessionId });
    if (sessionId === this.#sessionId) {
      this.#unbind();
      this.#sessionId = undefined;
      await this.#openMostRecentOrNew();
    } else {
      await this.#refreshSessions();
    }
  }

  // ---- connection -------------------------------------------------------

  /**
   * The daemon died or went away (owned by the daemon supervisor's helper):
   * a running turn ends in the view now, with the reason, its open approvals
   * and questions closed. Fires while the view is still bound, before the
   * connection state changes and unbinds it.
   */
  #onDaemonLost(reason: string): void {
    if (!this.#view) return;
    for (const message of interruptionMessages(this.#view, reason)) this.#post(message);
  }

  #onConnectionState(state: ConnectionState): void {
    this.#post({
      type: 'connection',
      status: state.status,
      ...(state.message !== undefined && { message: state.message }),
    });
    if (state.status !== 'ready') {
      this.#unbind();
      this.#emitStatus();
    }
  }

  async #onConnected(client: ArborClient): Promise<void> {
    this.#client = client;
    try {
      this.#postModels();
      if (this.#sessionId) await this.openSession(this.#sessionId);
      else await this.#openMostRecentOrNew();
    } catch (error) {
      this.output.appendLine(`[chat] could not open a session: ${(error as Error).message}`);
      this.#sessionId = undefined;
      await this.#openMostRecentOrNew().catch((e: Error) => this.#notice('error', e.message));
    }
  }

  async #openMostRecentOrNew(): Promise<void> {
    const root = workspaceRoot();
    if (!root) {
      this.#post({ type: 'noSession', reason: 'Open a folder to chat with Arbor about it.' });
      return;
    }
    const { sessions } = await this.#client!.request(Methods.SessionList, {
      workspaceRoot: root,
      limit: 1,
    });
    const recent = sessions[0];
    if (recent) await this.openSession(recent.sessionId);
    else {
      this.#turnCount = 1; // force a fresh session
      await this.newChat();
    }
  }

  async #show(
    session: SessionInfo,
    view: SessionView,
    stored: Parameters<typeof sessionMessage>[1],
  ): Promise<void> {
    this.#unbind();
    this.#sessionId = session.sessionId;
    this.#session = session;
    this.#view = view;
    this.#turnCount = new Set(stored.map((m) => m.turnId)).size + (view.turnId ? 1 : 0);
    const message = sessionMessage(session, stored, view, this.#userTexts, {
      access: this.#checkpointAccess(),
      restoredTurns: this.#restored.get(session.sessionId) ?? [],
    });
    this.#costs.clear();
    for (const t of message.turns) if (t.cost !== undefined) this.#costs.set(t.turnId, t.cost);
    const storedTurns = new Set(
      message.turns.filter((t) => t.status !== undefined).map((t) => t.turnId),
    );
    this.#bridge = bridgeSessionView(
      view,
      (m) => this.#post(m),
      storedTurns,
      this.#client?.initializeResult?.clientId,
    );
    this.#viewSubs = [
      view.on('state', () => this.#emitStatus()),
      // tool/approvalRequest and tool/question come after session/state requires_action.
      ...(['added', 'answered', 'removed'] as const).flatMap((event) => [
        view.approvals.on(event, () => this.#emitStatus()),
        view.questions.on(event, () => this.#emitStatus()),
      ]),
      view.on('cost', (p) => {
        this.#costs.set(p.turnId, p.cost);
        this.#emitStatus();
      }),
      view.on('gap', (g) =>
        this.output.appendLine(
          `[chat] missed events after seq ${g.sinceSeq} (${g.reason}); re-attaching`,
        ),
      ),
      view.on('error', (e) => this.output.appendLine(`[chat] re-attach failed: ${e.message}`)),
      view.on('turnEnded', ({ stopReason, state }) => {
        if (stopReason === 'error' && state.error) this.#notice('error', state.error.message);
        void this.#refreshSessions();
        // Tool servers start, fail or change their tools during turns.
        void this.#postTools(session.sessionId);
      }),
      // Deleted from another client (or a terminal): this chat cannot go on.
      view.on('deleted', () => {
        this.#notice('info', 'This chat was deleted from another client; a new chat was started.');
        this.#unbind();
        this.#sessionId = undefined;
        void this.newChat().catch((e: unknown) => this.output.appendLine(`[chat] ${String(e)}`));
      }),
    ];
    this.#post(message);
    this.#postModels();
    void this.#postAgents();
    this.#emitStatus();
    void this.#postTools(session.sessionId);
    void this.#seedCommands(session.sessionId, view);
  }

  /**
   * The session's slash commands for the composer's `/` completion; the
   * bridge posts them, and every `commands/changed` after.
   */
  async #seedCommands(sessionId: string, view: SessionView): Promise<void> {
    const client = this.#client;
    if (!client) return;
    try {
      const commands = await listCommands(client, sessionId);
      if (this.#sessionId === sessionId) view.seedCommands(commands);
    } catch (error) {
      // The composer then completes nothing; typed commands still run.
      this.output.appendLine(`[chat] commands/list failed: ${String(error)}`);
    }
  }

  /** The session's tools (tools/list), so cards show each call's category and subject. */
  async #postTools(sessionId: string): Promise<void> {
    const client = this.#client;
    if (!client) return;
    try {
      const tools = await loadToolCatalogue(client, sessionId);
      // A session switch while the list was on its way: that session posts its own.
      if (this.#sessionId === sessionId)
        this.#post({ type: 'tools', tools: tools.list(), servers: [...tools.servers] });
    } catch (error) {
      // Cards fall back to the raw argument preview.
      this.output.appendLine(`[chat] tools/list failed: ${String(error)}`);
    }
  }

  #unbind(): void {
    this.#bridge?.dispose();
    this.#bridge = undefined;
    for (const s of this.#viewSubs.splice(0)) s.dispose();
    this.#view = undefined;
  }

  async #sendEverything(): Promise<void> {
    const state = this.supervisor.state;
    this.#post({
      type: 'connection',
      status: state.status,
      ...(state.message !== undefined && { message: state.message }),
    });
    this.#postModels();
    if (!this.#client || state.status !== 'ready') return;
    await this.#refreshSessions();
    if (this.#sessionId && this.#view) {
      const loaded = await this.#client.request(Methods.SessionLoad, {
        sessionId: this.#sessionId,
      });
      await this.#show(loaded.session, this.#view, loaded.messages);
    } else if (!workspaceRoot()) {
      this.#post({ type: 'noSession', reason: 'Open a folder to chat with Arbor about it.' });
    }
  }

  async #refreshSessions(): Promise<void> {
    if (!this.#client) return;
    const root = workspaceRoot();
    const { sessions } = await this.#client.request(Methods.SessionList, {
      ...(root && { workspaceRoot: root }),
      limit: 50,
    });
    this.#post({
      type: 'sessions',
      sessions: sessions.map((s) => ({
        sessionId: s.sessionId,
        title: s.title,
        updatedAt: s.updatedAt,
        state: s.state,
      })),
      ...(this.#sessionId !== undefined && { currentId: this.#sessionId }),
    });
  }

  /**
   * The profile a new chat runs with: the one picked now, else the one picked
   * last while the daemon still lists it (a profile file may have gone), else none.
   */
  async #agentForNewChat(root: string, picked: string | null | undefined) {
    const client = this.#client;
    if (picked === null || !client?.hasCapability('daemon.agents')) return undefined;
    if (picked !== undefined) return picked;
    const remembered = this.memento.get<string>('arbor.agent');
    if (remembered === undefined) return undefined;
    const { agents } = await listAgents(client, root).catch(() => ({ agents: [] }));
    return agents.some((entry) => entry.name === remembered) ? remembered : undefined;
  }

  /** The agent picker: the profiles of the workspace and the open chat's one. */
  async #postAgents(): Promise<void> {
    const client = this.#client;
    const root = workspaceRoot();
    if (!client) return;
    const { agents, errors } = await listAgents(client, root).catch((error: Error) => {
      this.output.appendLine(`[chat] agents/list failed: ${error.message}`);
      return { agents: [], errors: undefined };
    });
    const current = this.#view?.agent ?? this.#session?.agent;
    this.#post({
      type: 'agents',
      agents,
      errors: errors ?? [],
      ...(current !== undefined && { current }),
    });
  }

  #postModels(): void {
    const settings = readSettings();
    const current = this.#view?.model ?? this.#session?.model;
    const models = [...new Set([...(settings.model ? [settings.model] : []), ...settings.models])];
    const inPlace = this.#client?.hasCapability('daemon.sessions.setModel') ?? false;
    this.#post({ type: 'models', models, inPlace, ...(current !== undefined && { current }) });
  }

  #emitStatus(): void {
    let cost: number | null = 0;
    for (const c of this.#costs.values()) {
      if (c === null) {
        cost = null;
        break;
      }
      cost += c;
    }
    const state =
      this.supervisor.state.status !== 'ready' ? 'offline' : (this.#view?.state ?? 'idle');
    const view = this.#view;
    const waitingFor =
      state !== 'requires_action' || !view
        ? undefined
        : view.approvals.awaiting().length > 0
          ? ('approval' as const)
          : view.questions.awaiting().length > 0
            ? ('question' as const)
            : undefined;
    this.#onDidChangeStatus.fire({
      state,
      sessionCost: cost,
      ...(waitingFor !== undefined && { waitingFor }),
    });
  }

  #notice(level: 'info' | 'error', message: string): void {
    this.#post({ type: 'notice', level, message });
  }

  #requireClient(): ArborClient {
    if (!this.#client || !this.#tracker || this.supervisor.state.status !== 'ready') {
      throw new Error('The Arbor daemon is not running. Try "Arbor: Restart Daemon".');
    }
    return this.#client;
  }
}

/** At most 20 paths, one a line, for a dialog. */
function listFiles(files: readonly string[]): string {
  const shown = files.slice(0, 20).map((f) => `• ${f}`);
  if (files.length > 20) shown.push(`• …and ${files.length - 20} more`);
  return shown.length > 0 ? shown.join('\n') : '(no files listed)';
}

function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}
