/**
 * The chat view: toolbar with session history, connection banner, the
 * transcript of turns, the plan, the waiting approval and the composer.
 * `render(dirty)` runs once per animation frame with what changed since the
 * previous frame.
 */
import type { ApprovalDecision, ExecutionTreeNode, ToolServerStatus } from '@arbor/protocol';
import type { ConnectionStatus, WebviewMessage } from '../../src/shared/messages.js';
import type {
  ApprovalModel,
  ChatModel,
  Dirty,
  QuestionModel,
  TurnModel,
} from '../model/chatModel.js';
import { PLAN_ICON, contextText, formatCost } from '../model/format.js';
import { approvalCard, focusApprovalCard, updateApprovalCard } from './approvalCard.js';
import { ApprovalDock } from './approvalDock.js';
import { CardView } from './cardView.js';
import { h, icon, setAttr, setText } from './dom.js';
import { syncFlow } from './flowView.js';
import { HistoryView } from './historyView.js';
import { ModePicker } from './modePicker.js';
import { AgentPicker } from './agentPicker.js';
import { CommandMenu } from './commandMenu.js';
import { focusQuestionCard, questionCard, updateQuestionCard } from './questionCard.js';
import { attachTreeKeys, ensureTabStop } from './treeKeys.js';
import { TurnView } from './turnView.js';

export type Post = (message: WebviewMessage) => void;

/** The user's expand/collapse choices by `${turnId}\0${nodeId}`, kept in the webview state across reloads. */
export interface ExpandedStore {
  get(key: string): boolean | undefined;
  set(key: string, expanded: boolean): void;
}

/** How a tool server that is not ready reads (ready servers are not shown). */
const SERVER_STATUS: Record<ToolServerStatus, string> = {
  starting: 'starting…',
  ready: 'ready',
  error: 'failed',
  disabled: 'not started',
};

/** What a connection state looks like in the banner: trouble is an error, not news. */
const CONNECTION_LEVEL: Record<ConnectionStatus, 'info' | 'error'> = {
  ready: 'info',
  starting: 'info',
  restarting: 'error',
  failed: 'error',
  stopped: 'error',
};

export class ChatView {
  readonly root: HTMLElement;
  readonly #turns = new Map<string, TurnView>();
  readonly #approvalEls = new Map<string, HTMLElement>();
  readonly #questionEls = new Map<string, HTMLElement>();
  readonly #transcript: HTMLElement;
  readonly #empty: HTMLElement;
  readonly #banner: HTMLElement;
  readonly #servers: HTMLElement;
  readonly #title: HTMLElement;
  readonly #history: HistoryView;
  readonly #historyButton: HTMLButtonElement;
  readonly #dock: ApprovalDock;
  readonly #hint: HTMLElement;
  readonly #plan: HTMLElement;
  readonly #live: HTMLElement;
  readonly #input: HTMLTextAreaElement;
  readonly #commands: CommandMenu;
  readonly #mode: ModePicker;
  readonly #modelPicker: HTMLSelectElement;
  readonly #agentPicker: AgentPicker;
  readonly #send: HTMLButtonElement;
  readonly #cancel: HTMLButtonElement;
  readonly #cost: HTMLElement;
  readonly #context: HTMLElement;
  #focusRequests = 0;
  #composerInserts = 0;
  #askAnnouncement: string | undefined;
  /**
   * Cards of questions and approvals new in this frame: the oldest takes the
   * keyboard at its end (expanding a card draws prompts re-entrantly, so the
   * order they were made in is not the order they were asked in).
   */
  readonly #fresh = new Set<HTMLElement>();
  #lastAnnounced = '';
  /** The turn showing Retry. */
  #retryTurn: string | undefined;
  /** Follow new output while the user is at the bottom; tracked on scroll so frames never measure layout first. */
  #pinned = true;

  constructor(
    private readonly model: ChatModel,
    private readonly post: Post,
    private readonly expandedStore: ExpandedStore = new Map<string, boolean>(),
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
    // "New chat" is the view's title-bar action (package.json): one button, not two.
    this.#history = new HistoryView({
      open: (sessionId) => {
        this.post({ type: 'switchSession', sessionId });
        this.#toggleHistory(false);
      },
      remove: (sessionId) => this.post({ type: 'deleteSession', sessionId }),
    });
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
    // First: an open command list takes the keys it uses before the composer does.
    this.#commands = new CommandMenu(this.#input, () => this.model.commands);
    this.#input.addEventListener('keydown', (event) => this.#onKey(event));
    // Shows the daemon's mode until it confirms the change (a `mode` message).
    this.#mode = new ModePicker((mode) => this.post({ type: 'setMode', mode }));
    this.#modelPicker = h('select', {
      className: 'model-select',
      attrs: { 'aria-label': 'Model' },
    });
    this.#modelPicker.addEventListener('change', () => {
      const value = this.#modelPicker.value;
      this.#modelPicker.value = this.model.model ?? '';
      if (value) this.post({ type: 'setModel', model: value });
    });
    this.#agentPicker = new AgentPicker((agent) => this.post({ type: 'setAgent', agent }));
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
    this.#hint = h('div', { className: 'composer-hint', attrs: { role: 'status' } });
    this.#hint.hidden = true;
    this.#dock = new ApprovalDock({
      decide: (approval, decision) => this.#decide(approval, decision),
      reveal: (approval) => {
        const el = this.#approvalEls.get(approval.key);
        if (el) this.#bringApproval(el);
      },
    });
    const form = h(
      'form',
      { className: 'composer', attrs: { 'aria-label': 'Composer' } },
      this.#commands.el,
      this.#input,
      this.#hint,
      h(
        'div',
        { className: 'composer-footer' },
        this.#mode.el,
        this.#agentPicker.el,
        this.#modelPicker,
        this.#cost,
        this.#context,
        h('span', { className: 'spacer' }),
        h('span', { className: 'composer-actions' }, this.#cancel, this.#send),
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#submit();
    });

    this.root = h(
      'div',
      { className: 'chat' },
      h('header', { className: 'toolbar' }, this.#historyButton, this.#title),
      this.#history.el,
      this.#banner,
      this.#servers,
      this.#transcript,
      this.#plan,
      this.#live,
      this.#dock.el,
      form,
    );
    // Escape closes the history, else cancels a running turn, wherever the keyboard is
    // (an approval's own Escape denies it first).
    this.root.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      if (!this.#history.el.hidden) {
        event.preventDefault();
        this.#toggleHistory(false);
        this.#historyButton.focus();
      } else if (this.model.running) {
        event.preventDefault();
        this.post({ type: 'cancel' });
      }
    });
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
    if (dirty.all) this.#pinned = true;
    if (dirty.all || dirty.approvals || dirty.nodes.size > 0) this.#renderApprovals();
    if (dirty.all || dirty.questions || dirty.nodes.size > 0) this.#renderQuestions();
    if (dirty.all || dirty.plan) this.#renderPlan();
    if (dirty.all || dirty.chrome) this.#commands.refresh();
    if (dirty.all || dirty.chrome || dirty.turnMeta.size > 0 || dirty.addedTurns.length > 0) {
      this.#renderChrome();
      this.#syncRetry();
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
    if (
      this.#pinned &&
      (dirty.all ||
        dirty.addedTurns.length > 0 ||
        dirty.nodes.size > 0 ||
        dirty.texts.size > 0 ||
        dirty.approvals ||
        dirty.questions)
    ) {
      this.#scrollToEnd();
    }
    if (this.#fresh.size > 0) this.#focusFresh();
  }

  /** The oldest new prompt takes the keyboard (a question before an approval), unless the user is typing. */
  #focusFresh(): void {
    const first = (els: Iterable<HTMLElement>) =>
      [...els].find((el) => this.#fresh.has(el) && el.isConnected);
    const ask = first(this.#questionEls.values());
    const approval = first(this.#approvalEls.values());
    this.#fresh.clear();
    const typing = this.#userIsTyping();
    if (ask) {
      if (!typing) focusQuestionCard(ask);
    } else if (approval) {
      // A draft keeps the keyboard; the dock beside it answers the approval.
      if (typing) approval.scrollIntoView({ block: 'nearest' });
      else this.#bringApproval(approval);
    }
  }

  /**
   * To the latest output. Cards off screen are laid out lazily
   * (content-visibility), so the height grows as they are measured: follow it
   * for a few frames until the end stays put.
   */
  #scrollToEnd(frames = 4): void {
    const t = this.#transcript;
    t.scrollTop = t.scrollHeight;
    if (frames > 1)
      requestAnimationFrame(() => {
        if (this.#pinned && t.scrollHeight - t.scrollTop - t.clientHeight > 1)
          this.#scrollToEnd(frames - 1);
      });
  }

  /** Scrolls an approval wholly into view and gives it the keyboard. */
  #bringApproval(el: HTMLElement): void {
    el.scrollIntoView({ block: 'nearest' });
    focusApprovalCard(el);
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
    const view = new TurnView(
      turnId,
      {
        showDiff: (path) =>
          this.post({ type: 'showChangeDiff', turnId, ...(path !== undefined && { path }) }),
        restore: () => this.#restore(turnId),
      },
      () => this.#retry(turnId),
    );
    attachTreeKeys(view.activity, {
      setExpanded: (item, expanded) => {
        const card = view.cards.get(item.dataset['nodeId'] ?? '');
        const current = this.model.turns.get(turnId);
        if (card && current) this.#toggle(current, view, card, expanded);
      },
    });
    this.#turns.set(turnId, view);
    this.#transcript.append(view.el);
    view.updateMeta(turn, this.model.retryable() === turn);
    this.#updateChanges(turn, view);
    this.#syncFlow(turn, view, rootIdOf(turn));
  }

  #updateTurnMeta(turnId: string): void {
    const turn = this.model.turns.get(turnId);
    const view = this.#turns.get(turnId);
    if (turn && view) view.updateMeta(turn, this.model.retryable() === turn);
  }

  /** Retry shows on the latest interrupted turn only, while nothing runs. */
  #syncRetry(): void {
    const now = this.model.retryable()?.turnId;
    if (now === this.#retryTurn) return;
    const before = this.#retryTurn;
    this.#retryTurn = now;
    for (const id of [before, now]) if (id !== undefined) this.#updateTurnMeta(id);
  }

  #retry(turnId: string): void {
    const turn = this.model.retryable();
    if (turn?.turnId !== turnId) return;
    this.post({ type: 'retry', turnId, text: turn.userText });
  }

  /** The turn's changed files and what may be done with them now. */
  #updateChanges(turn: TurnModel, view: TurnView): void {
    const m = this.model;
    // The turn node's other facts for the user: the instructions the model had, what was not kept.
    view.setNotes(m.instructionsOf(turn), turn.omitted ?? []);
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
    ensureTabStop(view.activity);
  }

  /** Creates a node's card; #syncFlow places it. */
  #mountCard(turn: TurnModel, view: TurnView, node: ExecutionTreeNode): CardView {
    const card = new CardView(node.id);
    view.cards.set(node.id, card);
    card.update(node, turn.tree.children(node.id).length, this.model.tools);
    card.header.addEventListener('click', () => {
      card.el.focus({ preventScroll: true });
      this.#toggle(turn, view, card, !card.expanded);
    });
    // Collapsed unless the user opened it (before a reload too).
    if (this.expandedStore.get(expandedKey(turn.turnId, node.id)))
      this.#setExpanded(turn, view, card, true);
    return card;
  }

  /** The user's expand or collapse: remembered for the node. */
  #toggle(turn: TurnModel, view: TurnView, card: CardView, expanded: boolean): void {
    this.expandedStore.set(expandedKey(turn.turnId, card.nodeId), expanded);
    this.#setExpanded(turn, view, card, expanded);
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
          decide: (a, decision) => this.#decide(a, decision),
          showDiff: (a) =>
            this.post({
              type: 'showDiff',
              turnId: a.request.turnId,
              toolCallId: a.request.toolCallId,
            }),
        });
        this.#approvalEls.set(approval.key, el);
        this.#announce(`Approval needed: ${approval.request.name}`);
        if (approval.answer === undefined) this.#fresh.add(el);
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
    const waiting = this.model.awaitingApprovals();
    this.#dock.show(waiting[0], waiting.length);
  }

  #decide(approval: ApprovalModel, decision: ApprovalDecision): void {
    const { turnId, toolCallId } = approval.request;
    if (!this.model.answer(turnId, toolCallId, decision)) return;
    this.post({ type: 'approve', turnId, toolCallId, decision });
    const el = this.#approvalEls.get(approval.key);
    // The keyboard goes back to the composer unless another approval waits.
    const focusWasHere =
      el?.contains(document.activeElement) || this.#dock.el.contains(document.activeElement);
    this.#renderApprovals();
    if (!focusWasHere) return;
    const next = this.model.awaitingApprovals()[0];
    const nextEl = next && this.#approvalEls.get(next.key);
    if (nextEl) this.#bringApproval(nextEl);
    else this.#input.focus();
  }

  // ---- questions --------------------------------------------------------

  /**
   * One card per question (a re-sent one finds its card by turnId +
   * toolCallId), at the ask_user call's card like an approval. An ended
   * question's card stays, closed, saying how it ended.
   */
  #renderQuestions(): void {
    for (const question of this.model.questions.values()) {
      const turn = this.model.turns.get(question.request.turnId);
      const view = this.#turns.get(question.request.turnId);
      if (!turn || !view) continue;
      let el = this.#questionEls.get(question.key);
      if (!el) {
        el = questionCard(question, { answer: (q, answer) => this.#answerQuestion(q, answer) });
        this.#questionEls.set(question.key, el);
        if (!question.end && question.answer === undefined) {
          this.#fresh.add(el);
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
            // The live entry spins by CSS, which honours prefers-reduced-motion.
            icon(PLAN_ICON[entry.status], entry.status.replace('_', ' ')),
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
      level = CONNECTION_LEVEL[conn.status];
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

    this.#mode.value = m.mode;
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
    this.#agentPicker.render(m.agents, m.agent, m.agentErrors);

    const usable = conn.status === 'ready' && m.sessionId !== undefined;
    this.#send.disabled = !usable || m.running;
    setAttr(
      this.#send,
      'title',
      m.running
        ? 'A turn is running: Escape to cancel it'
        : usable
          ? 'Send (Enter)'
          : 'Not connected',
    );
    this.#cancel.hidden = !m.running;
    if (!m.running) this.#hint.hidden = true;
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
    for (const text of m.composerInserts.slice(this.#composerInserts)) {
      // After what the user already typed, separated by a blank line.
      const typed = this.#input.value.replace(/\s+$/, '');
      this.#input.value = typed ? `${typed}\n\n${text}` : text;
      this.#input.setSelectionRange(this.#input.value.length, this.#input.value.length);
    }
    this.#composerInserts = m.composerInserts.length;
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
    this.#history.update(this.model.sessions, this.model.sessionId);
  }

  #toggleHistory(open = this.#history.el.hidden): void {
    this.#history.el.hidden = !open;
    this.#historyButton.setAttribute('aria-expanded', String(open));
    if (open) this.#history.focusSearch();
  }

  #onKey(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.#submit();
    }
  }

  #submit(): void {
    const text = this.#input.value.trim();
    if (text && this.model.running) {
      // Nothing is queued: say so, and keep the message in the box.
      this.#hint.hidden = false;
      setText(
        this.#hint,
        'A turn is running: press Escape to cancel it, or wait. Your message stays here.',
      );
      return;
    }
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

function expandedKey(turnId: string, nodeId: string): string {
  return `${turnId}\u0000${nodeId}`;
}

/** The turn node's id: the root of the tree, or the turn's id until the root arrives. */
function rootIdOf(turn: TurnModel): string {
  return turn.tree.roots()[0]?.id ?? turn.turnId;
}
