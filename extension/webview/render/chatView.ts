/**
 * The chat view: toolbar with session history, connection banner, the
 * transcript of turns, the plan, and the composer. `render(dirty)` runs once
 * per animation frame with what changed since the previous frame.
 */
import type { ExecutionTreeNode, PermissionMode, ToolServerStatus } from '@arbor/protocol';
import type { WebviewMessage } from '../../src/shared/messages.js';
import type { ChatModel, Dirty, QuestionModel, TurnModel } from '../model/chatModel.js';
import { PLAN_ICON, contextText, expandedByDefault, formatCost } from '../model/format.js';
import { approvalCard, updateApprovalCard } from './approvalCard.js';
import { CardView } from './cardView.js';
import { h, icon, setAttr, setText } from './dom.js';
import { syncFlow } from './flowView.js';
import { focusQuestionCard, questionCard, updateQuestionCard } from './questionCard.js';
import { TurnView } from './turnView.js';

export type Post = (message: WebviewMessage) => void;

/** How a tool server that is not ready reads (ready servers are not shown). */
const SERVER_STATUS: Record<ToolServerStatus, string> = {
  starting: 'starting…',
  ready: 'ready',
  error: 'failed',
  disabled: 'not started',
};

const MODES: { value: PermissionMode; label: string; title: string }[] = [
  { value: 'plan', label: 'Plan', title: 'Only read tools run' },
  { value: 'default', label: 'Default', title: 'Other tools ask first' },
  { value: 'auto', label: 'Auto', title: 'All tools run (except always-ask tools)' },
];

export class ChatView {
  readonly root: HTMLElement;
  readonly #turns = new Map<string, TurnView>();
  /** The user's expand/collapse choices, kept across redraws: `${turnId}\0${nodeId}`. */
  readonly #expanded = new Map<string, boolean>();
  readonly #approvalEls = new Map<string, HTMLElement>();
  readonly #questionEls = new Map<string, HTMLElement>();
  readonly #transcript: HTMLElement;
  readonly #empty: HTMLElement;
  readonly #banner: HTMLElement;
  readonly #servers: HTMLElement;
  readonly #title: HTMLElement;
  readonly #history: HTMLElement;
  readonly #historyButton: HTMLButtonElement;
  readonly #plan: HTMLElement;
  readonly #live: HTMLElement;
  readonly #input: HTMLTextAreaElement;
  readonly #mode: HTMLSelectElement;
  readonly #modelPicker: HTMLSelectElement;
  readonly #send: HTMLButtonElement;
  readonly #cancel: HTMLButtonElement;
  readonly #cost: HTMLElement;
  readonly #context: HTMLElement;
  #focusRequests = 0;
  #askAnnouncement: string | undefined;
  /** A new question's card, to take the keyboard at the end of this frame. */
  #focusQuestion: HTMLElement | undefined;
  #lastAnnounced = '';
  /** Follow new output while the user is at the bottom; tracked on scroll so frames never measure layout first. */
  #pinned = true;

  constructor(
    private readonly model: ChatModel,
    private readonly post: Post,
  ) {
    this.#title = h('span', { className: 'toolbar-title' });
    this.#historyButton = h(
      'button',
      {
        className: 'icon-button',
        attrs: {
          type: 'button',
          title: 'Chat history',
          'aria-label': 'Chat history',
          'aria-expanded': 'false',
          'aria-controls': 'history',
        },
        on: { click: () => this.#toggleHistory() },
      },
      icon('history'),
    );
    const newChat = h(
      'button',
      {
        className: 'icon-button',
        attrs: { type: 'button', title: 'New chat', 'aria-label': 'New chat' },
        on: { click: () => this.post({ type: 'newChat' }) },
      },
      icon('add'),
    );
    this.#history = h('nav', {
      className: 'history',
      attrs: { id: 'history', 'aria-label': 'Chat history' },
    });
    this.#history.hidden = true;
    this.#banner = h('div', { className: 'banner', attrs: { role: 'status' } });
    this.#servers = h('div', {
      className: 'tool-servers',
      attrs: { role: 'status', 'aria-label': 'Tool servers' },
    });
    this.#empty = h('div', {
      className: 'empty',
      text: 'Ask Arbor anything about this workspace.',
    });
    this.#transcript = h(
      'main',
      { className: 'transcript', attrs: { 'aria-label': 'Conversation' } },
      this.#empty,
    );
    this.#plan = h('section', { className: 'plan', attrs: { 'aria-label': 'Plan' } });
    this.#live = h('div', {
      className: 'visually-hidden',
      attrs: { 'aria-live': 'polite', role: 'status' },
    });

    this.#input = h('textarea', {
      className: 'composer-input',
      attrs: {
        rows: '3',
        placeholder: 'Ask Arbor… (Enter to send, Shift+Enter for a new line)',
        'aria-label': 'Message',
      },
    });
    this.#input.addEventListener('keydown', (event) => this.#onKey(event));
    this.#mode = h('select', {
      className: 'mode-select',
      attrs: { 'aria-label': 'Permission mode' },
    });
    for (const mode of MODES) {
      this.#mode.append(
        h('option', { text: mode.label, attrs: { value: mode.value, title: mode.title } }),
      );
    }
    this.#mode.addEventListener('change', () => {
      const mode = this.#mode.value as PermissionMode;
      // Show the daemon's mode until it confirms the change (a `mode` message).
      this.#mode.value = this.model.mode;
      this.post({ type: 'setMode', mode });
    });
    this.#modelPicker = h('select', {
      className: 'model-select',
      attrs: { 'aria-label': 'Model' },
    });
    this.#modelPicker.addEventListener('change', () => {
      const value = this.#modelPicker.value;
      this.#modelPicker.value = this.model.model ?? '';
      if (value) this.post({ type: 'setModel', model: value });
    });
    this.#send = h(
      'button',
      {
        className: 'button primary send',
        attrs: { type: 'submit', title: 'Send (Enter)', 'aria-label': 'Send' },
      },
      icon('send'),
    );
    this.#cancel = h(
      'button',
      {
        className: 'button secondary cancel',
        attrs: { type: 'button', title: 'Cancel (Escape)', 'aria-label': 'Cancel' },
        on: { click: () => this.post({ type: 'cancel' }) },
      },
      icon('debug-stop'),
      h('span', { text: 'Cancel' }),
    );
    this.#cost = h('span', { className: 'session-cost', attrs: { title: 'Session cost' } });
    this.#context = h('span', { className: 'context-use' });
    const form = h(
      'form',
      { className: 'composer', attrs: { 'aria-label': 'Composer' } },
      this.#input,
      h(
        'div',
        { className: 'composer-footer' },
        h('label', { className: 'visually-hidden', text: 'Permission mode' }),
        this.#mode,
        this.#modelPicker,
        this.#cost,
        this.#context,
        h('span', { className: 'spacer' }),
        this.#cancel,
        this.#send,
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#submit();
    });

    this.root = h(
      'div',
      { className: 'chat' },
      h('header', { className: 'toolbar' }, this.#historyButton, this.#title, newChat),
      this.#history,
      this.#banner,
      this.#servers,
      this.#transcript,
      this.#plan,
      this.#live,
      form,
    );
    this.#transcript.addEventListener('scroll', () => (this.#pinned = this.#nearBottom()), {
      passive: true,
    });
    // One listener for every copy button, present and future.
    this.root.addEventListener('click', (event) => {
      const button = (event.target as Element).closest?.('.copy-code');
      if (!button) return;
      const code = button.closest('.code-block')?.querySelector('pre')?.textContent ?? '';
      this.post({ type: 'copy', text: code });
      this.#announce('Code copied');
    });
  }

  /** The composer's draft (kept in the webview state across reloads). */
  get draft(): string {
    return this.#input.value;
  }
  set draft(value: string) {
    this.#input.value = value;
  }

  render(dirty: Dirty): void {
    if (dirty.all) this.#redrawAll();
    else {
      for (const turnId of dirty.addedTurns) this.#addTurn(turnId);
      for (const turnId of dirty.turnMeta) this.#updateTurnMeta(turnId);
      for (const [turnId, ids] of dirty.nodes) this.#updateNodes(turnId, ids);
      for (const [turnId, ids] of dirty.texts) this.#updateTexts(turnId, ids);
    }
    if (dirty.all || dirty.approvals || dirty.nodes.size > 0) this.#renderApprovals();
    if (dirty.all || dirty.questions || dirty.nodes.size > 0) this.#renderQuestions();
    if (dirty.all || dirty.plan) this.#renderPlan();
    if (dirty.all || dirty.chrome || dirty.turnMeta.size > 0) {
      this.#renderChrome();
      // Restore waits while a turn runs; a restore marks several turns.
      for (const [turnId, view] of this.#turns) {
        const turn = this.model.turns.get(turnId);
        if (turn) this.#updateChanges(turn, view);
      }
    }
    this.#empty.hidden = this.model.turnOrder.length > 0;
    if (this.#askAnnouncement !== undefined) {
      this.#announce(this.#askAnnouncement);
      this.#askAnnouncement = undefined;
    }
    const ask = this.#focusQuestion;
    this.#focusQuestion = undefined;
    if (ask?.isConnected && !this.#userIsTyping()) focusQuestionCard(ask);
    if (
      this.#pinned &&
      (dirty.all ||
        dirty.addedTurns.length > 0 ||
        dirty.nodes.size > 0 ||
        dirty.texts.size > 0 ||
        dirty.approvals ||
        dirty.questions)
    ) {
      this.#transcript.scrollTop = this.#transcript.scrollHeight;
    }
  }

  // ---- transcript -------------------------------------------------------

  #redrawAll(): void {
    this.#turns.clear();
    this.#approvalEls.clear();
    this.#questionEls.clear();
    this.#transcript.replaceChildren(this.#empty);
    for (const turnId of this.model.turnOrder) this.#addTurn(turnId);
  }

  #addTurn(turnId: string): void {
    const turn = this.model.turns.get(turnId);
    if (!turn || this.#turns.has(turnId)) return;
    const view = new TurnView(turnId, {
      showDiff: (path) =>
        this.post({ type: 'showChangeDiff', turnId, ...(path !== undefined && { path }) }),
      restore: () => this.#restore(turnId),
    });
    this.#turns.set(turnId, view);
    this.#transcript.append(view.el);
    view.updateMeta(turn);
    this.#updateChanges(turn, view);
    this.#syncFlow(turn, view, rootIdOf(turn));
  }

  #updateTurnMeta(turnId: string): void {
    const turn = this.model.turns.get(turnId);
    const view = this.#turns.get(turnId);
    if (turn && view) view.updateMeta(turn);
  }

  /** The turn's changed files and what may be done with them now. */
  #updateChanges(turn: TurnModel, view: TurnView): void {
    const m = this.model;
    view.changes.update({
      changes: m.changesOf(turn),
      canDiff: m.checkpoints.diff,
      canRestore: m.checkpoints.restore,
      running: m.running,
      restored: turn.restored,
    });
  }

  #restore(turnId: string): void {
    if (this.model.running) return;
    this.post({ type: 'restoreCheckpoint', turnId });
  }

  #updateNodes(turnId: string, ids: Set<string>): void {
    const turn = this.model.turns.get(turnId);
    const view = this.#turns.get(turnId);
    if (!turn || !view) return;
    const rootId = rootIdOf(turn);
    /** Nodes whose body gets a new card: the turn node's (activity) or an expanded card's. */
    const flows = new Set<string>();
    for (const id of ids) {
      const node = turn.tree.get(id);
      if (!node) continue;
      const card = view.cards.get(id);
      if (card) card.update(node, turn.tree.children(id).length, this.model.tools);
      // The turn node: its children may be waiting for it; its final upsert carries `changes`.
      if (node.parentId === null) {
        flows.add(node.id);
        this.#updateChanges(turn, view);
      } else if (!card) {
        const parentCard = view.cards.get(node.parentId);
        if (node.parentId === rootId || parentCard?.body) flows.add(node.parentId);
        // The parent is collapsed: only its step count changes.
        const parent = turn.tree.get(node.parentId);
        if (parent && parentCard)
          parentCard.update(parent, turn.tree.children(parent.id).length, this.model.tools);
      }
    }
    for (const id of flows) this.#syncFlow(turn, view, id);
  }

  #updateTexts(turnId: string, ids: Set<string>): void {
    const turn = this.model.turns.get(turnId);
    const view = this.#turns.get(turnId);
    if (!turn || !view) return;
    const flows = new Set<string>();
    for (const id of ids) {
      const node = turn.tree.get(id);
      flows.add(!node || node.parentId === null ? rootIdOf(turn) : id);
    }
    for (const id of flows) this.#syncFlow(turn, view, id);
  }

  /**
   * Draws a node's body in stream order: the turn node's into the activity
   * list (the text after its last card is the answer), an expanded card's
   * into its children (the text after its last child is the card's text).
   */
  #syncFlow(turn: TurnModel, view: TurnView, nodeId: string): void {
    const card = nodeId === rootIdOf(turn) ? undefined : view.cards.get(nodeId);
    if (card && !card.body) return;
    const flow = [...turn.transcript.flowOf(nodeId)];
    // A node of the tree missing from the transcript still gets its card, last.
    const placed = new Set(flow.map((item) => (item.type === 'node' ? item.nodeId : '')));
    for (const child of turn.tree.children(nodeId))
      if (!placed.has(child.id)) flow.push({ type: 'node', nodeId: child.id });
    const last = flow.at(-1);
    const trailing = last?.type === 'text' ? last.text : '';
    if (last?.type === 'text') flow.pop();
    for (const item of flow) {
      if (item.type !== 'node' || view.cards.has(item.nodeId)) continue;
      const node = turn.tree.get(item.nodeId);
      if (node) this.#mountCard(turn, view, node);
    }
    const container = card ? card.body!.children : view.activity;
    syncFlow(container, flow, (id) => view.cards.get(id)?.el);
    if (card) card.setText(trailing);
    else view.setAnswer(trailing);
  }

  /** Creates a node's card; #syncFlow places it. */
  #mountCard(turn: TurnModel, view: TurnView, node: ExecutionTreeNode): CardView {
    const card = new CardView(node.id);
    card.el.setAttribute('role', 'listitem');
    view.cards.set(node.id, card);
    card.update(node, turn.tree.children(node.id).length, this.model.tools);
    const key = `${turn.turnId}\u0000${node.id}`;
    card.header.addEventListener('click', () => {
      const expanded = !card.expanded;
      this.#expanded.set(key, expanded);
      this.#setExpanded(turn, view, card, expanded);
    });
    const expanded = this.#expanded.get(key) ?? expandedByDefault(node);
    if (expanded) this.#setExpanded(turn, view, card, true);
    return card;
  }

  #setExpanded(turn: TurnModel, view: TurnView, card: CardView, expanded: boolean): void {
    const node = turn.tree.get(card.nodeId);
    if (!node) return;
    card.setExpanded(expanded);
    if (!expanded || card.body) return;
    card.ensureBody(node);
    this.#syncFlow(turn, view, node.id);
    this.#renderApprovals();
    this.#renderQuestions();
  }

  /** Makes a node's card visible: expands every ancestor card. */
  #reveal(turn: TurnModel, view: TurnView, nodeId: string): CardView | undefined {
    const chain: string[] = [];
    let current = turn.tree.get(nodeId);
    while (current && current.parentId !== null) {
      chain.unshift(current.id);
      current = turn.tree.get(current.parentId);
    }
    let card: CardView | undefined;
    for (const id of chain) {
      card = view.cards.get(id);
      if (!card) return undefined;
      if (id !== nodeId && !card.expanded) this.#setExpanded(turn, view, card, true);
    }
    return card;
  }

  // ---- approvals --------------------------------------------------------

  #renderApprovals(): void {
    const live = new Set<string>();
    for (const approval of this.model.approvals.values()) {
      live.add(approval.key);
      const turn = this.model.turns.get(approval.request.turnId);
      const view = this.#turns.get(approval.request.turnId);
      if (!turn || !view) continue;
      let el = this.#approvalEls.get(approval.key);
      if (!el) {
        el = approvalCard(approval, {
          decide: (a, decision) => {
            if (this.model.answer(a.request.turnId, a.request.toolCallId, decision)) {
              this.post({
                type: 'approve',
                turnId: a.request.turnId,
                toolCallId: a.request.toolCallId,
                decision,
              });
              this.#renderApprovals();
            }
          },
          showDiff: (a) =>
            this.post({
              type: 'showDiff',
              turnId: a.request.turnId,
              toolCallId: a.request.toolCallId,
            }),
        });
        this.#approvalEls.set(approval.key, el);
        this.#announce(`Approval needed: ${approval.request.name}`);
      } else {
        updateApprovalCard(el, approval);
      }
      const target = this.#promptTarget(turn, view, approval.request.nodeId);
      if (el.parentElement !== target) target.append(el);
    }
    for (const [key, el] of this.#approvalEls) {
      if (!live.has(key)) {
        el.remove();
        this.#approvalEls.delete(key);
      }
    }
  }

  // ---- questions --------------------------------------------------------

  /**
   * One card per question (a re-sent one finds its card by turnId +
   * toolCallId), at the ask_user call's card like an approval. An ended
   * question's card stays, closed, saying how it ended.
   */
  #renderQuestions(): void {
    const fresh: HTMLElement[] = [];
    for (const question of this.model.questions.values()) {
      const turn = this.model.turns.get(question.request.turnId);
      const view = this.#turns.get(question.request.turnId);
      if (!turn || !view) continue;
      let el = this.#questionEls.get(question.key);
      if (!el) {
        el = questionCard(question, { answer: (q, answer) => this.#answerQuestion(q, answer) });
        this.#questionEls.set(question.key, el);
        if (!question.end && question.answer === undefined) {
          fresh.push(el);
          // Said after the chrome's "Waiting for your answer" (render() ends with it).
          this.#askAnnouncement = `Arbor asks: ${question.request.question}`;
        }
      } else {
        updateQuestionCard(el, question);
      }
      const target = this.#promptTarget(turn, view, question.request.nodeId);
      if (el.parentElement !== target) target.append(el);
    }
    for (const [key, el] of this.#questionEls) {
      if (!this.model.questions.has(key)) {
        el.remove();
        this.#questionEls.delete(key);
      }
    }
    // Focused once drawn (render() ends with it): a card made while its call's card mounts is not in the page yet.
    this.#focusQuestion ??= fresh[0];
  }

  #answerQuestion(question: QuestionModel, answer: string): void {
    const { turnId, toolCallId } = question.request;
    if (!this.model.answerQuestion(turnId, toolCallId, answer)) return;
    this.post({ type: 'answerQuestion', turnId, toolCallId, answer });
    const el = this.#questionEls.get(question.key);
    if (el) updateQuestionCard(el, question);
  }

  /** A draft in the composer (or another text box) keeps the keyboard; a new card does not take it. */
  #userIsTyping(): boolean {
    const active = document.activeElement;
    return active instanceof HTMLTextAreaElement && active.value !== '';
  }

  /** At the tool's card when it is known (expanding its ancestors), else under the turn. */
  #promptTarget(turn: TurnModel, view: TurnView, nodeId: string): HTMLElement {
    const node = turn.tree.get(nodeId);
    if (node && node.parentId !== null) {
      const card = this.#reveal(turn, view, node.id);
      if (card) {
        if (!card.expanded) this.#setExpanded(turn, view, card, true);
        if (card.body) return card.body.approvals;
      }
    }
    return view.approvals;
  }

  // ---- plan, chrome, composer --------------------------------------------

  #renderPlan(): void {
    const entries = this.model.plan;
    this.#plan.hidden = entries.length === 0;
    this.#plan.replaceChildren(
      h('div', { className: 'plan-title', text: 'Plan' }),
      h(
        'ol',
        { className: 'plan-list' },
        ...entries.map((entry) =>
          h(
            'li',
            { className: `plan-entry ${entry.status}`, attrs: { 'data-status': entry.status } },
            icon(
              PLAN_ICON[entry.status],
              entry.status.replace('_', ' '),
              entry.status === 'in_progress',
            ),
            h('span', { text: entry.content }),
          ),
        ),
      ),
    );
  }

  /** Tool servers whose tools are missing, one line each: the model cannot call them now. */
  #renderServers(): void {
    const missing = this.model.tools.unavailableServers();
    this.#servers.replaceChildren(
      ...missing.map((server) =>
        h(
          'div',
          {
            className: 'tool-server',
            attrs: { 'data-origin': server.origin, 'data-status': server.status },
          },
          h('span', { className: 'tool-server-name', text: server.origin }),
          h('span', { className: 'tool-server-status', text: SERVER_STATUS[server.status] }),
          ...(server.message
            ? [h('span', { className: 'tool-server-message', text: server.message })]
            : []),
        ),
      ),
    );
    this.#servers.hidden = missing.length === 0;
  }

  #renderChrome(): void {
    const m = this.model;
    setText(this.#title, m.title || 'New chat');
    // Banner: connection trouble first, then the latest notice.
    const conn = m.connection;
    let banner = '';
    let level = 'info';
    if (conn.status !== 'ready') {
      banner =
        conn.message ??
        {
          starting: 'Starting the Arbor daemon…',
          restarting: 'The Arbor daemon stopped; restarting…',
          failed: 'The Arbor daemon is not running.',
          stopped: 'The Arbor daemon stopped.',
          ready: '',
        }[conn.status];
      level = conn.status === 'failed' ? 'error' : 'info';
    } else if (m.noSession) {
      banner = m.noSession;
    } else if (m.notice) {
      banner = m.notice.message;
      level = m.notice.level;
    }
    setText(this.#banner, banner);
    this.#banner.hidden = banner === '';
    setAttr(this.#banner, 'data-level', level);
    this.#renderServers();

    if (this.#mode.value !== m.mode) this.#mode.value = m.mode;
    const models = m.model && !m.models.includes(m.model) ? [m.model, ...m.models] : m.models;
    const current = Array.from(this.#modelPicker.options).map((o) => o.value);
    if (current.join('\n') !== models.join('\n')) {
      this.#modelPicker.replaceChildren(
        ...models.map((value) => h('option', { text: value, attrs: { value } })),
      );
    }
    this.#modelPicker.hidden = models.length === 0;
    // What a pick does: session/setModel keeps the chat; without it a new chat starts.
    const picks = `Model (${m.modelInPlace ? 'from the next turn of this chat' : 'starts a new chat'})`;
    setAttr(this.#modelPicker, 'aria-label', picks);
    setAttr(this.#modelPicker, 'title', picks);
    this.#modelPicker.value = m.model ?? '';

    const usable = conn.status === 'ready' && m.sessionId !== undefined;
    this.#send.disabled = !usable || m.running;
    this.#cancel.hidden = !m.running;
    this.#mode.disabled = !usable;
    this.#input.disabled = !usable && conn.status === 'failed';
    const cost = m.sessionCost();
    setText(this.#cost, m.turnOrder.length > 0 ? formatCost(cost) : '');
    const context = m.contextUse();
    const shown = context && contextText(context);
    setText(this.#context, shown?.short ?? '');
    setAttr(this.#context, 'title', shown?.long);
    setAttr(
      this.#context,
      'data-level',
      context && context.tokens >= 0.8 * context.window ? 'high' : undefined,
    );

    this.#renderHistory();
    if (m.focusRequests !== this.#focusRequests) {
      this.#focusRequests = m.focusRequests;
      this.#input.focus();
    }
    const asks = m.awaitingQuestions().length > 0;
    const approvals = m.awaitingApprovals().length > 0;
    const state =
      m.state === 'requires_action'
        ? asks && !approvals
          ? 'Waiting for your answer'
          : asks
            ? 'Waiting for your answer and approval'
            : 'Waiting for your approval'
        : m.running
          ? 'Arbor is working'
          : '';
    if (state) this.#announce(state);
  }

  #renderHistory(): void {
    const m = this.model;
    this.#history.replaceChildren(
      h(
        'ul',
        { className: 'history-list' },
        ...m.sessions.map((s) =>
          h(
            'li',
            {
              className: `history-item${s.sessionId === m.sessionId ? ' current' : ''}`,
              attrs: { 'data-session-id': s.sessionId },
            },
            h('button', {
              className: 'history-open',
              text: s.title || 'Untitled chat',
              attrs: {
                type: 'button',
                'aria-current': s.sessionId === m.sessionId ? 'true' : undefined,
              },
              on: {
                click: () => {
                  this.post({ type: 'switchSession', sessionId: s.sessionId });
                  this.#toggleHistory(false);
                },
              },
            }),
            h(
              'button',
              {
                className: 'icon-button history-delete',
                attrs: {
                  type: 'button',
                  title: 'Delete chat',
                  'aria-label': `Delete chat ${s.title}`,
                },
                on: { click: () => this.post({ type: 'deleteSession', sessionId: s.sessionId }) },
              },
              icon('trash'),
            ),
          ),
        ),
      ),
    );
    if (m.sessions.length === 0)
      this.#history.append(h('div', { className: 'empty', text: 'No chats yet.' }));
  }

  #toggleHistory(open = this.#history.hidden): void {
    this.#history.hidden = !open;
    this.#historyButton.setAttribute('aria-expanded', String(open));
  }

  #onKey(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.#submit();
    } else if (event.key === 'Escape' && this.model.running) {
      event.preventDefault();
      this.post({ type: 'cancel' });
    }
  }

  #submit(): void {
    const text = this.#input.value.trim();
    if (!text || this.#send.disabled) return;
    this.post({ type: 'send', text });
    this.#input.value = '';
    // Programmatic edits fire no `input` event: announce it, so the saved draft
    // (restored after a window reload) is cleared too.
    this.#input.dispatchEvent(new Event('input', { bubbles: true }));
  }

  #announce(text: string): void {
    if (text === this.#lastAnnounced) return;
    this.#lastAnnounced = text;
    this.#live.textContent = text;
  }

  #nearBottom(): boolean {
    const t = this.#transcript;
    return t.scrollHeight - t.scrollTop - t.clientHeight < 40;
  }
}

/** The turn node's id: the root of the tree, or the turn's id until the root arrives. */
function rootIdOf(turn: TurnModel): string {
  return turn.tree.roots()[0]?.id ?? turn.turnId;
}
