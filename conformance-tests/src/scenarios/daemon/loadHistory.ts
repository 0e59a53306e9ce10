/**
 * What session/load returns of finished turns (sessions.md#session-load):
 * three turns — text around a tool call, plain text, and one cancelled after
 * its tool call — come back oldest first, the turns with a tool call carry
 * their tree, and the cancelled one keeps its text, its tree and its status.
 */
import { Methods } from '@arbor/protocol';
import type { Incoming, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { type DaemonContext, describe, sleep } from './context.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const ORDER = 'daemon.sessions.load-order';
const TREE = 'daemon.sessions.load-tree';
const PARTIAL = 'daemon.sessions.load-partial';

const PARTIAL_TEXT = 'Partial text before the cancel.';
const probe = (id: string): JsonObject => ({
  toolCalls: [{ id, name: 'conformance_probe', arguments: {} }],
});

const SCRIPT: JsonObject = {
  'conformance history one': [
    { text: 'Looking first. ', ...probe('history-1') },
    { text: 'Done.' },
  ],
  'conformance history two': [{ text: 'Just text.' }],
  'conformance history three': [
    { text: `${PARTIAL_TEXT} `, ...probe('history-3') },
    { text: 'Never streamed.', delayMs: 8000 },
  ],
};

/** The node ids of a turn's tree as this client saw them in tree/update. */
function liveNodes(events: { method: string; params: JsonObject }[], turnId: string): string[] {
  const ids = new Set<string>();
  for (const e of events)
    if (e.method === Methods.TreeUpdate.method && e.params.turnId === turnId)
      for (const node of (e.params.nodes ?? []) as JsonObject[]) ids.add(String(node.id));
  return [...ids];
}

/** The ids of `expected` that the stored tree lacks (all of them when there is no tree). */
function missingFrom(message: JsonObject | undefined, expected: string[]): string[] {
  const nodes = (message?.tree as JsonObject | undefined)?.nodes;
  if (!Array.isArray(nodes)) return expected;
  const stored = new Set((nodes as JsonObject[]).map((n) => String(n.id)));
  return expected.filter((id) => !stored.has(id));
}

export const loadHistory: Scenario<DaemonContext> = {
  id: 'daemon-load-history',
  role: 'daemon',
  title:
    'session/load after three turns: messages oldest first, the tree on the answers of turns with a tool call, a cancelled turn with its text, tree and status',
  checks: [ORDER, TREE, PARTIAL],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect();
    const sessionId = await scriptedSession(ctx, c, SCRIPT);
    const turns: string[] = [];
    for (const word of ['one', 'two']) {
      const turnId = await send(ctx, c.conn, sessionId, `conformance history ${word}`);
      await waitTurnEnd(ctx, c.conn, sessionId, turnId);
      turns.push(turnId);
    }
    const from = c.conn.messages.length;
    const cancelled = await send(ctx, c.conn, sessionId, 'conformance history three');
    turns.push(cancelled);
    // Cancelled once the tool call has ended, while the second reply waits out its delay.
    const toolDone = (m: Incoming): boolean => {
      const p = ((m.message as JsonObject).params ?? {}) as JsonObject;
      return (
        m.kind === 'notification' &&
        (m.message as JsonObject).method === Methods.TreeUpdate.method &&
        p.turnId === cancelled &&
        ((p.nodes ?? []) as JsonObject[]).some(
          (n) => n.kind === 'tool' && ['done', 'error'].includes(String(n.status)),
        )
      );
    };
    await c.conn.waitFor(toolDone, 5000, from);
    await sleep(300);
    await c.conn.request(Methods.ChatCancel.method, { sessionId, turnId: cancelled });
    const end = await waitTurnEnd(ctx, c.conn, sessionId, cancelled);

    const load = await c.conn.request(Methods.SessionLoad.method, { sessionId });
    const messages = (load?.result as JsonObject | undefined)?.messages;
    if (!Array.isArray(messages)) {
      for (const check of [ORDER, TREE, PARTIAL])
        r.fail(check, `session/load got ${describe(load)}`);
      return;
    }
    const stored = messages as JsonObject[];

    // Oldest first: the turns in the order they were sent, each opened by its user message.
    const problems: string[] = [];
    const turnOf = stored.map((m) => turns.indexOf(String(m.turnId)));
    for (let i = 1; i < turnOf.length; i++)
      if (turnOf[i]! >= 0 && turnOf[i - 1]! > turnOf[i]!)
        problems.push(
          `message ${i} (${String(stored[i]!.role)} of turn ${turnOf[i]! + 1}) follows one of turn ${turnOf[i - 1]! + 1}`,
        );
    for (const [n, turnId] of turns.entries()) {
      const first = stored.find((m) => m.turnId === turnId);
      if (first && first.role !== 'user')
        problems.push(
          `turn ${n + 1} opens with a ${String(first.role)} message, not its user message`,
        );
    }
    const times = stored.map((m) => Date.parse(String(m.createdAt)));
    for (let i = 1; i < times.length; i++)
      if (times[i]! < times[i - 1]!)
        problems.push(
          `message ${i} was created at ${String(stored[i]!.createdAt)}, before message ${i - 1} (${String(stored[i - 1]!.createdAt)})`,
        );
    r.expect(
      ORDER,
      problems.length === 0 && stored.some((m) => m.turnId === turns[2]),
      problems.length > 0
        ? problems.slice(0, 3).join('; ')
        : `session/load returned no message of the last turn: ${describe(load)}`,
    );

    const events = sessionEvents(c.conn, sessionId);
    const answerOf = (turnId: string): JsonObject | undefined =>
      stored.filter((m) => m.turnId === turnId && m.role === 'assistant').at(-1);

    // The turns with a tool call; the plain one need not carry a tree.
    const treeProblems: string[] = [];
    for (const n of [0, 2]) {
      const turnId = turns[n]!;
      const answer = answerOf(turnId);
      const missing = missingFrom(answer, liveNodes(events, turnId));
      if (!answer) treeProblems.push(`turn ${n + 1} has no assistant message`);
      else if (missing.length > 0)
        treeProblems.push(
          answer.tree === undefined
            ? `the answer of turn ${n + 1} (a tool call) has no tree`
            : `the tree of turn ${n + 1}'s answer lacks node(s) ${missing.join(', ')} of its tree/update`,
        );
    }
    r.expect(TREE, treeProblems.length === 0, treeProblems.join('; '));

    // The cancelled turn: its text so far, its tree and how it ended.
    if (end.stopReason !== 'cancelled') {
      r.skip(PARTIAL, `the cancelled turn ended ${String(end.stopReason)}, not cancelled`);
      return;
    }
    const streamed = events
      .filter((e) => e.method === Methods.ChatChunk.method && e.params.turnId === cancelled)
      .map((e) => String(e.params.text))
      .join('');
    if (!streamed.includes(PARTIAL_TEXT)) {
      r.skip(PARTIAL, 'the text before the tool call never streamed');
      return;
    }
    const answer = answerOf(cancelled);
    const text = stored
      .filter((m) => m.turnId === cancelled && m.role === 'assistant')
      .map((m) => String(m.content))
      .join('');
    const missing = missingFrom(answer, liveNodes(events, cancelled));
    r.expect(
      PARTIAL,
      answer !== undefined &&
        answer.status === 'cancelled' &&
        text.includes(PARTIAL_TEXT) &&
        missing.length === 0,
      answer === undefined
        ? 'session/load has no assistant message of the cancelled turn'
        : `the cancelled turn's answer has status ${String(answer.status)} (expected cancelled), text ${JSON.stringify(text).slice(0, 120)} (streamed ${JSON.stringify(PARTIAL_TEXT)}), ${missing.length === 0 ? 'its tree' : `a tree lacking ${missing.join(', ')}`}`,
    );
  },
};
