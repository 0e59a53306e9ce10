/**
 * SessionBridge: turns a SessionView (the client core's model of one session)
 * and stored messages into host -> webview messages. No `vscode` import: it is
 * exercised in Node tests against a real daemon, and its output is recorded as
 * the event streams the webview tests replay.
 */
import type { ExecutionTreeNode, SessionInfo, StoredMessage } from '@arbor/protocol';
import type { QuestionOutcome } from '@arbor/protocol';
import { promptKey, type PendingQuestion, type SessionView } from '@arbor/protocol/client';
import type {
  CheckpointAccess,
  HostMessage,
  OpenQuestion,
  QuestionEnd,
  TranscriptTurn,
} from '../shared/messages.js';

type Post = (message: HostMessage) => void;
interface DisposableLike {
  dispose(): void;
}

/** Groups stored messages by turn: the user's text, the answer, its tree. */
export function transcriptFromStored(messages: readonly StoredMessage[]): TranscriptTurn[] {
  const turns = new Map<string, TranscriptTurn>();
  for (const m of messages) {
    let turn = turns.get(m.turnId);
    if (!turn) {
      turn = { turnId: m.turnId, userText: '', texts: [] };
      turns.set(m.turnId, turn);
    }
    if (m.role === 'user') turn.userText = m.content;
    if (m.role === 'assistant') {
      const root = m.tree?.nodes.find((n) => n.parentId === null);
      turn.texts = [{ nodeId: root?.id ?? m.turnId, text: m.content }];
      if (m.tree) turn.tree = m.tree;
      if (m.parts) turn.parts = m.parts;
      turn.status = m.status ?? 'complete';
      // The turn's cost/summary, as the live turn showed it; a 1.0 daemon has only the tree's.
      const usage = m.cost?.usage ?? m.usage;
      if (usage) turn.usage = usage;
      const cost = m.cost ? m.cost.cost : root?.cost;
      if (cost !== undefined) turn.cost = cost;
      if (m.cost?.context) turn.context = m.cost.context;
      if (m.omitted) turn.omitted = m.omitted;
    }
  }
  return [...turns.values()];
}

/** The live turn as the view holds it, for a (re)loaded webview. */
export function liveTurn(view: SessionView, userText: string): TranscriptTurn | undefined {
  const turnId = view.turnId;
  if (turnId === undefined) return undefined;
  const tree = view.tree.toSnapshot();
  const ids = new Set<string>([turnId, ...tree.nodes.map((n) => n.id)]);
  const texts = [...ids]
    .map((nodeId) => ({ nodeId, text: view.tree.textOf(nodeId) }))
    .filter((t) => t.text !== '');
  const turn: TranscriptTurn = { turnId, userText, texts, tree, parts: view.transcript.parts };
  const ended = view.state === 'idle' ? view.lastStateEvent : undefined;
  if (ended?.stopReason) {
    // As the store keeps it: a cut-off answer (max_tokens) is complete.
    const { stopReason } = ended;
    turn.status =
      stopReason === 'end_turn' || stopReason === 'max_tokens' ? 'complete' : stopReason;
    if (ended.usage) turn.usage = ended.usage;
  }
  const cost = view.costOf(turnId);
  if (cost) {
    turn.cost = cost.cost;
    turn.usage = cost.usage;
  }
  return turn;
}

/** The whole-session message: stored turns plus the live one when the store does not hold it yet. */
export function sessionMessage(
  session: SessionInfo,
  stored: readonly StoredMessage[],
  view: SessionView | undefined,
  userTexts: ReadonlyMap<string, string>,
  /** What this window may do with checkpoints, and the turns it restored. */
  checkpoints: { access: CheckpointAccess; restoredTurns?: Iterable<string> } = {
    access: { diff: false, restore: false },
  },
): Extract<HostMessage, { type: 'session' }> {
  const turns = transcriptFromStored(stored).filter(
    (t) => t.status !== undefined || t.turnId !== view?.turnId,
  );
  const storedIds = new Set(turns.map((t) => t.turnId));
  if (view?.turnId !== undefined && !storedIds.has(view.turnId)) {
    const userText =
      userTexts.get(view.turnId) ??
      stored.find((m) => m.turnId === view.turnId && m.role === 'user')?.content ??
      '';
    const live = liveTurn(view, userText);
    if (live) turns.push(live);
  }
  // A stored turn with no answer (e.g. interrupted before any) still shows the question.
  for (const t of turns)
    if (t.status === undefined && t.turnId !== view?.turnId) t.status = 'interrupted';
  return {
    type: 'session',
    sessionId: session.sessionId,
    title: view?.title ?? session.title,
    permissionMode: view?.permissionMode ?? session.permissionMode,
    ...((view?.model ?? session.model) !== undefined && { model: view?.model ?? session.model }),
    state: view?.state ?? session.state,
    turns,
    approvals: view ? view.approvals.pending().map((a) => a.request) : [],
    questions: view ? view.questions.pending().map(openQuestion) : [],
    plan: view ? [...view.plan] : [],
    budget: view ? [...view.budgetNotices] : [],
    checkpoints: checkpoints.access,
    restoredTurns: [...(checkpoints.restoredTurns ?? [])].filter((id) => storedIds.has(id)),
  };
}

/** A pending question with the answer given here, if any (a reloaded webview shows it). */
function openQuestion(entry: PendingQuestion): OpenQuestion {
  return { request: entry.request, ...(entry.answer !== undefined && { answer: entry.answer }) };
}

/**
 * How a question ended (`tool/questionResolved`), for its card. "Answered
 * here" needs this client's id (`answeredBy`); without it, an answer equal to
 * the one given here (`mine`) counts as ours.
 */
export function questionEnd(
  resolved: {
    outcome: QuestionOutcome;
    answer?: string | undefined;
    answeredBy?: string | undefined;
  },
  mine: string | undefined,
  clientId: string | undefined,
): QuestionEnd {
  const out: QuestionEnd = { kind: 'resolved', outcome: resolved.outcome };
  if (resolved.outcome !== 'answered') return out;
  if (resolved.answer !== undefined) out.answer = resolved.answer;
  if (resolved.answeredBy !== undefined && clientId !== undefined)
    out.answeredHere = resolved.answeredBy === clientId;
  else if (mine !== undefined) out.answeredHere = mine === resolved.answer;
  return out;
}

/**
 * Forwards a SessionView's events as webview messages. Events of turns the
 * webview already has from the store (`skipTurns`, replayed after an attach
 * from seq 0) are not forwarded twice.
 */
export function bridgeSessionView(
  view: SessionView,
  post: Post,
  skipTurns: ReadonlySet<string>,
  /** This client's id (initialize), to tell a question answered here from one answered elsewhere. */
  clientId?: string,
): DisposableLike {
  const live = (turnId: string | undefined) => turnId === undefined || !skipTurns.has(turnId);
  /** Answers given here, by question, until the daemon says how the question ended. */
  const mine = new Map<string, string>();
  for (const q of view.questions.pending()) if (q.answer !== undefined) mine.set(q.key, q.answer);
  const subs: DisposableLike[] = [
    view.on('turnStarted', ({ turnId }) => live(turnId) && post({ type: 'turnStarted', turnId })),
    view.on('tree', ({ turnId, changed }) => {
      if (!live(turnId)) return;
      const nodes = changed
        .map((id) => view.tree.get(id))
        .filter((n): n is ExecutionTreeNode => n !== undefined);
      if (nodes.length > 0) post({ type: 'tree', turnId, nodes });
    }),
    view.on(
      'text',
      (p) =>
        live(p.turnId) &&
        post({ type: 'text', turnId: p.turnId, nodeId: p.nodeId, seq: p.seq, text: p.text }),
    ),
    view.on('state', (p) => {
      if (!live(p.turnId)) return;
      post({
        type: 'state',
        state: p.state,
        ...(p.turnId !== undefined && { turnId: p.turnId }),
        ...(p.stopReason !== undefined && { stopReason: p.stopReason }),
        ...(p.error !== undefined && { error: p.error.message }),
      });
    }),
    view.on('permissionMode', (mode) => post({ type: 'mode', mode })),
    view.on('session', (p) => p.title !== undefined && post({ type: 'title', title: p.title })),
    view.on('plan', (entries) => post({ type: 'plan', entries: [...entries] })),
    view.on('commands', (commands) => post({ type: 'commands', commands: [...commands] })),
    view.on('budget', (notice) => live(notice.turnId) && post({ type: 'budget', notice })),
    view.on(
      'cost',
      (p) =>
        live(p.turnId) &&
        post({
          type: 'cost',
          turnId: p.turnId,
          cost: p.cost,
          usage: p.usage,
          ...(p.context ? { context: p.context } : {}),
        }),
    ),
    view.on('reset', ({ turnId }) => {
      if (turnId === undefined || !live(turnId)) return;
      const nodes = view.tree.toSnapshot().nodes;
      if (nodes.length > 0) post({ type: 'tree', turnId, nodes });
    }),
    view.approvals.on('added', (a) => post({ type: 'approvalAdded', request: a.request })),
    view.approvals.on('removed', ({ entry, end }) =>
      post({
        type: 'approvalRemoved',
        turnId: entry.request.turnId,
        toolCallId: entry.request.toolCallId,
        ...(end.kind === 'resolved' && { outcome: end.outcome }),
        ...(end.kind === 'resolved' && end.decidedBy !== undefined && { decidedBy: end.decidedBy }),
      }),
    ),
    view.questions.on('added', (q) => post({ type: 'questionAdded', request: q.request })),
    view.questions.on('answered', ({ entry, answer }) => mine.set(entry.key, answer)),
    // The daemon cancels our request before it says how the question ended
    // ($/cancelRequest, then tool/questionResolved), and the queue forgets a
    // cancelled question: the card closes now and learns the outcome below.
    view.questions.on('removed', ({ entry, end }) => {
      if (end.kind === 'resolved') return;
      post({
        type: 'questionRemoved',
        turnId: entry.request.turnId,
        toolCallId: entry.request.toolCallId,
        end: { kind: end.kind },
      });
    }),
    view.on('questionResolved', (p) => {
      const key = promptKey(p);
      const answer = mine.get(key);
      mine.delete(key);
      if (!live(p.turnId)) return;
      post({
        type: 'questionRemoved',
        turnId: p.turnId,
        toolCallId: p.toolCallId,
        end: questionEnd(p, answer, clientId),
      });
    }),
  ];
  return { dispose: () => subs.forEach((s) => s.dispose()) };
}

/**
 * What the webview needs when the daemon is lost during a turn (it crashed,
 * or an attached daemon went away): every open approval and question closes
 * (nothing can answer them any more), then the turn ends as interrupted with
 * `reason` instead of looking busy until a daemon comes back. Nothing when no
 * turn is running.
 */
export function interruptionMessages(view: SessionView, reason: string): HostMessage[] {
  const turnId = view.turnId;
  if (turnId === undefined || view.state === 'idle') return [];
  return [
    ...view.approvals.pending().map(({ request }): HostMessage => ({
      type: 'approvalRemoved',
      turnId: request.turnId,
      toolCallId: request.toolCallId,
      outcome: 'cancelled',
    })),
    ...view.questions.pending().map(({ request }): HostMessage => ({
      type: 'questionRemoved',
      turnId: request.turnId,
      toolCallId: request.toolCallId,
      end: { kind: 'cancelled' },
    })),
    // The view ends the reason with its own full stop.
    { type: 'turnInterrupted', turnId, reason: reason.replace(/\.$/, '') },
  ];
}
