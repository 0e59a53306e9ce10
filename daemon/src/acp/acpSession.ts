/**
 * One ACP session bound to one Arbor session view: the session's events
 * become `session/update`s (text, tool calls, plan, budget notices, mode
 * changes), approvals become permission requests, and a prompt is one
 * `chat/send` whose turn end answers it.
 */
import {
  Methods,
  type ApprovalRequestParams,
  type CostSummaryParams,
  type ExecutionTreeNode,
  type PermissionMode,
  type SessionStateParams,
} from '@arbor/protocol';
import type { ArborClient, Disposable, SessionView, ToolCatalogue } from '@arbor/protocol/client';
import {
  RequestError,
  methods,
  type AgentContext,
  type ClientCapabilities,
  type PromptResponse,
  type SessionUpdate,
  type ToolCall,
  type ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import { arborCall } from './arborErrors.js';
import { commandsAnnouncer } from './availableCommands.js';
import { PermissionBridge } from './permissionBridge.js';
import { QuestionBridge } from './questionBridge.js';
import { planEntriesOf } from './planEntries.js';
import { promptEndFor } from './stopReasons.js';
import { SessionUpdates } from './sessionUpdates.js';
import { ToolCallLedger } from './toolCallLedger.js';
import { toolCallId, toolCallOf } from './toolCalls.js';
import { budgetNotice } from './turnNotices.js';

export interface AcpSessionOptions {
  arbor: ArborClient;
  view: SessionView;
  workspaceRoot: string;
  catalogue: ToolCatalogue;
  editor: AgentContext;
  /** What the editor advertised in initialize (form elicitation shows the model's questions). */
  editorCapabilities?: ClientCapabilities | undefined;
  log(message: string): void;
}

type TurnEnd = SessionStateParams & { state: 'idle' };

export class AcpSession implements Disposable {
  readonly #options: AcpSessionOptions;
  readonly #updates: SessionUpdates;
  readonly #ledger = new ToolCallLedger();
  readonly #permissions: PermissionBridge;
  readonly #questions: QuestionBridge;
  readonly #subscriptions: Disposable[];
  /** Whole arguments of the current turn's calls that asked for approval (a node only has a cut preview). */
  readonly #fullArgs = new Map<string, unknown>();
  readonly #costs = new Map<string, CostSummaryParams>();
  /** Editor terminals the current turn's calls run commands in, by tool call id (editorWorkspaceIo.ts). */
  readonly #terminals = new Map<string, string>();
  /** Turn ends seen while a prompt waits for its turnId (a short turn may end before chat/send answers). */
  readonly #ended = new Map<string, TurnEnd>();
  readonly #waiting = new Map<string, (end: TurnEnd) => void>();
  #prompting = false;
  #cancelRequested = false;
  #abandonWait: ((error: Error) => void) | undefined;

  constructor(options: AcpSessionOptions) {
    this.#options = options;
    const { view } = options;
    this.#updates = new SessionUpdates(options.editor, view.sessionId, (error) =>
      options.log(`session/update failed: ${String(error)}`),
    );
    this.#permissions = new PermissionBridge({
      sessionId: view.sessionId,
      approvals: view.approvals,
      describe: (request) => this.#describeApproval(request),
      ask: async (request, cancel) => {
        // The tool call it is about reaches the editor first.
        await this.#updates.flushed();
        return options.editor.request(methods.client.session.requestPermission, request, {
          cancellationSignal: cancel,
        });
      },
      cancelling: () => this.#cancelRequested,
      log: options.log,
    });
    this.#questions = new QuestionBridge({
      sessionId: view.sessionId,
      questions: view.questions,
      capabilities: options.editorCapabilities,
      describe: (request) => this.#describeCall(request.turnId, request.nodeId, 'ask_user'),
      elicit: async (request, cancel) => {
        await this.#updates.flushed();
        return options.editor.request(methods.client.elicitation.create, request, {
          cancellationSignal: cancel,
        });
      },
      ask: async (request, cancel) => {
        await this.#updates.flushed();
        return options.editor.request(methods.client.session.requestPermission, request, {
          cancellationSignal: cancel,
        });
      },
      log: options.log,
    });
    this.#subscriptions = [
      view.on('text', ({ turnId, nodeId, text }) => {
        const node = view.tree.get(nodeId);
        if (node === undefined || node.parentId === null) {
          this.#updates.send({
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text },
          });
        } else this.#showNode(turnId, node);
      }),
      view.on('turnStarted', () => this.#fullArgs.clear()),
      view.on('tree', ({ turnId, changed }) => {
        for (const id of changed) {
          const node = view.tree.get(id);
          if (node !== undefined && node.parentId !== null) this.#showNode(turnId, node);
        }
      }),
      view.on('reset', ({ turnId }) => {
        if (turnId === undefined) return;
        for (const node of view.tree.toSnapshot().nodes) {
          if (node.parentId !== null) this.#showNode(turnId, node);
        }
      }),
      view.on('plan', (entries) =>
        this.#updates.send({ sessionUpdate: 'plan', entries: planEntriesOf(entries) }),
      ),
      view.on('budget', (budget) => this.#updates.send(budgetNotice(budget))),
      view.on(
        'commands',
        commandsAnnouncer((update) => this.#updates.send(update)),
      ),
      view.on('cost', (cost) => this.#costs.set(cost.turnId, cost)),
      view.on('permissionMode', (mode) =>
        this.#updates.send({ sessionUpdate: 'current_mode_update', currentModeId: mode }),
      ),
      view.on('turnEnded', ({ turnId, state }) => {
        if (turnId === undefined || state.state !== 'idle') return;
        const waiter = this.#waiting.get(turnId);
        if (waiter) waiter(state);
        else if (this.#prompting) this.#ended.set(turnId, state);
      }),
      options.arbor.on('close', () =>
        this.#abandonWait?.(new Error('the Arbor daemon connection closed')),
      ),
    ];
  }

  get sessionId(): string {
    return this.#options.view.sessionId;
  }

  /**
   * Sends a stored session's updates (session/load) ahead of anything live,
   * then what a turn still running has done so far (it is not stored yet)
   * and asks for the approvals it waits for.
   */
  async replay(updates: readonly SessionUpdate[]): Promise<void> {
    for (const update of updates) this.#updates.send(update);
    const { view } = this.#options;
    if (view.state !== 'idle' && view.turnId !== undefined) {
      const text = view.turnText();
      if (text !== '') {
        this.#updates.send({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text },
        });
      }
      for (const node of view.tree.toSnapshot().nodes) {
        if (node.parentId !== null) this.#showNode(view.turnId, node);
      }
      this.#permissions.askAwaiting();
      this.#questions.askAwaiting();
    }
    await this.#updates.flushed();
  }

  /** Runs one turn; answers when it ended and every update of it was sent. */
  async prompt(text: string, signal: AbortSignal): Promise<PromptResponse> {
    if (this.#prompting) {
      throw RequestError.invalidRequest(undefined, 'a prompt of this session is still running');
    }
    const { arbor } = this.#options;
    this.#prompting = true;
    this.#cancelRequested = false;
    const onAbort = (): void => void this.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const { turnId } = await arborCall(
        () => arbor.request(Methods.ChatSend, { sessionId: this.sessionId, text }),
        this.sessionId,
      );
      // session/cancel came before the turn had an id: cancel it now that it has one.
      if (this.#cancelRequested) await this.#cancelTurn(turnId);
      const end = await this.#turnEnd(turnId);
      await this.#updates.flushed();
      const outcome = promptEndFor(
        end.stopReason ?? 'end_turn',
        this.#cancelRequested,
        end.error?.message,
      );
      const meta = { arbor: this.#turnMeta(turnId, end) };
      // -32603: JSON-RPC's internal error, with the turn's own message rather than a generic one.
      if ('failure' in outcome) throw new RequestError(-32603, outcome.failure, meta);
      return { stopReason: outcome.stopReason, _meta: meta };
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#ended.clear();
      this.#prompting = false;
    }
  }

  /** `session/cancel`: the running turn is cancelled; its prompt answers `cancelled`. */
  async cancel(): Promise<void> {
    if (!this.#prompting) return;
    this.#cancelRequested = true;
    await this.#cancelTurn(undefined);
  }

  /**
   * A call of the running turn runs its command in this editor terminal: the
   * call's content embeds it, so the editor shows it live. A call the editor
   * has not been shown yet gets it when it is.
   */
  showTerminal(turnId: string, nodeId: string, terminalId: string): void {
    // Called from the tool itself, possibly before this turn's events reached the bridge:
    // so not cleared on turnStarted, but of earlier turns here.
    for (const id of this.#terminals.keys()) {
      if (!id.startsWith(`${turnId}:`)) this.#terminals.delete(id);
    }
    this.#terminals.set(toolCallId(turnId, nodeId), terminalId);
    // Shown now when the view is at this turn already, else with the node's first tree event.
    const { view } = this.#options;
    const node = view.turnId === turnId ? view.tree.get(nodeId) : undefined;
    if (node !== undefined) this.#showNode(turnId, node);
  }

  async setMode(mode: PermissionMode): Promise<void> {
    await this.#options.arbor.request(Methods.SessionSetPermissionMode, {
      sessionId: this.sessionId,
      mode,
    });
  }

  dispose(): void {
    for (const subscription of this.#subscriptions.splice(0)) subscription.dispose();
    this.#permissions.dispose();
    this.#questions.dispose();
  }

  async #cancelTurn(turnId: string | undefined): Promise<void> {
    try {
      await this.#options.arbor.request(Methods.ChatCancel, {
        sessionId: this.sessionId,
        ...(turnId === undefined ? {} : { turnId }),
      });
    } catch (error) {
      this.#options.log(`chat/cancel failed: ${String(error)}`);
    }
  }

  #turnEnd(turnId: string): Promise<TurnEnd> {
    const ended = this.#ended.get(turnId);
    if (ended) return Promise.resolve(ended);
    return new Promise<TurnEnd>((resolve, reject) => {
      this.#waiting.set(turnId, (end) => {
        this.#waiting.delete(turnId);
        this.#abandonWait = undefined;
        resolve(end);
      });
      this.#abandonWait = (error) => {
        this.#waiting.delete(turnId);
        reject(RequestError.internalError(undefined, error.message));
      };
    });
  }

  /** What ACP has no field for: Arbor's own stop reason, the turn's usage and cost. */
  #turnMeta(turnId: string, end: TurnEnd): Record<string, unknown> {
    const meta: Record<string, unknown> = { turnId, stopReason: end.stopReason };
    if (end.usage) meta['usage'] = end.usage;
    const cost = this.#costs.get(turnId);
    this.#costs.delete(turnId);
    if (cost) {
      const { sessionId: _s, seq: _q, turnId: _t, ...summary } = cost;
      meta['cost'] = summary;
    }
    return meta;
  }

  #showNode(turnId: string, node: ExecutionTreeNode): void {
    const update = this.#ledger.update(this.#toolCall(turnId, node));
    if (update) this.#updates.send(update);
  }

  #toolCall(turnId: string, node: ExecutionTreeNode): ToolCall {
    const { view, workspaceRoot, catalogue } = this.#options;
    const call = toolCallOf(node, {
      turnId,
      workspaceRoot,
      catalogue,
      text: view.tree.textOf(node.id),
      fullArgs: this.#fullArgs.get(toolCallId(turnId, node.id)),
    });
    const terminalId = this.#terminals.get(call.toolCallId);
    if (terminalId === undefined) return call;
    // Every update carries the terminal: an update's content replaces the call's.
    return { ...call, content: [{ type: 'terminal', terminalId }, ...(call.content ?? [])] };
  }

  /** The call as the permission prompt shows it: the node when known, with the request's whole arguments. */
  #describeApproval(request: ApprovalRequestParams): ToolCallUpdate {
    this.#fullArgs.set(toolCallId(request.turnId, request.nodeId), request.args);
    return this.#describeCall(request.turnId, request.nodeId, request.name);
  }

  /** The call a request is about, as the editor shows it, brought up to date first. */
  #describeCall(turnId: string, nodeId: string, name: string): ToolCallUpdate {
    const known = this.#options.view.tree.get(nodeId);
    const node: ExecutionTreeNode = known ?? {
      id: nodeId,
      parentId: null,
      kind: 'tool',
      name,
      status: 'awaiting_approval',
      depth: 0,
    };
    const call = this.#toolCall(turnId, node);
    // Bring the editor's tool call up to date (its diff now has the whole content).
    if (known) this.#showNode(turnId, known);
    return call;
  }
}
