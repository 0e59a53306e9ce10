/**
 * Turn rules seen over turns that do not end well, and over the timing and
 * the nodes of streamed text (turns.md): a failed or cancelled turn keeps
 * what it streamed and its nodes in session/load; a reply's text goes out at
 * once, not held while the loop's next model call waits; a subtask's text and
 * its caller's never share a chunk.
 */
import { Methods } from '@arbor/protocol';
import type { Incoming, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import { type DaemonContext, describe } from './context.js';
import {
  isTurnEvent,
  scriptedSession,
  send,
  sessionEvents,
  waitTurnEnd,
  type Event,
} from './turns.js';

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

const unknownCall = (id: string): JsonObject => ({
  toolCalls: [{ id, name: 'conformance_no_such_tool', arguments: {} }],
});

/** Each node's streamed text, and every node announced, of one turn. */
function streamOf(events: readonly Event[], turnId: string) {
  const texts = new Map<string, string>();
  const nodes = new Map<string, JsonObject>();
  for (const e of events) {
    if (e.params.turnId !== turnId) continue;
    if (e.method === Methods.TreeUpdate.method)
      for (const node of (e.params.nodes ?? []) as JsonObject[])
        nodes.set(String(node.id), { ...nodes.get(String(node.id)), ...node });
    if (e.method === Methods.ChatChunk.method) {
      const id = String(e.params.nodeId);
      texts.set(id, (texts.get(id) ?? '') + String(e.params.text));
    }
  }
  return { texts, nodes };
}

const FAILED_TEXT = 'conformance: the text before the provider failed.';
const CANCELLED_TEXT = 'conformance: the text before the turn was cancelled.';

export const partialKept: Scenario<DaemonContext> = {
  id: 'daemon-turn-partial-kept',
  role: 'daemon',
  title:
    'a turn failed by the provider and a cancelled turn, each after text and a tool call: session/load keeps the text and the nodes',
  checks: ['daemon.turns.partial-kept'],
  async run(ctx) {
    const check = 'daemon.turns.partial-kept';
    const c = await ctx.connect('partial-kept');
    // auto: the unknown tool's call becomes an error result, and the loop makes a second call.
    const sessionId = await scriptedSession(ctx, c, {
      'provider fails': [
        { text: FAILED_TEXT, ...unknownCall('conformance-partial-1') },
        { error: 'conformance-partial-failure' },
      ],
      'is cancelled': [
        { text: CANCELLED_TEXT, ...unknownCall('conformance-partial-2') },
        { text: 'conformance: never streamed.', delayMs: 5000 },
      ],
    });
    const failed = await send(ctx, c.conn, sessionId, 'conformance: the provider fails');
    const failedEnd = await waitTurnEnd(ctx, c.conn, sessionId, failed);
    const cancelled = await send(ctx, c.conn, sessionId, 'conformance: the turn is cancelled');
    // Once the tool node ended, the turn waits in its second model call's delay.
    await c.conn.waitFor(
      (m) =>
        isTurnEvent(sessionId, cancelled)(m) &&
        (m.message as JsonObject).method === Methods.TreeUpdate.method &&
        (((m.message as JsonObject).params as JsonObject).nodes as JsonObject[]).some(
          (n) => n.kind === 'tool' && n.status !== 'running' && n.status !== 'pending',
        ),
      5000,
    );
    await c.conn.request(Methods.ChatCancel.method, { sessionId, turnId: cancelled });
    const cancelledEnd = await waitTurnEnd(ctx, c.conn, sessionId, cancelled);
    if (failedEnd.stopReason !== 'error' || cancelledEnd.stopReason !== 'cancelled')
      throw new Skip(
        `the turns ended ${String(failedEnd.stopReason)} and ${String(cancelledEnd.stopReason)}, not error and cancelled (daemon.testing.error, daemon.turns.cancel)`,
      );
    const load = await c.conn.request(Methods.SessionLoad.method, { sessionId });
    const messages = (load?.result as JsonObject | undefined)?.messages;
    const events = sessionEvents(c.conn, sessionId);
    const problems: string[] = [];
    for (const [turnId, partial, how] of [
      [failed, FAILED_TEXT, 'failed'],
      [cancelled, CANCELLED_TEXT, 'cancelled'],
    ] as const) {
      const { texts, nodes } = streamOf(events, turnId);
      const streamed = [...texts.values()].join('');
      if (!streamed.includes(partial)) {
        problems.push(`the ${how} turn never streamed ${JSON.stringify(partial)}`);
        continue;
      }
      const answer = Array.isArray(messages)
        ? (messages as JsonObject[]).find((m) => m.turnId === turnId && m.role === 'assistant')
        : undefined;
      if (!answer) {
        problems.push(`session/load has no answer of the ${how} turn (${describe(load)})`);
        continue;
      }
      const stored = new Set(
        (((answer.tree as JsonObject | undefined)?.nodes ?? []) as JsonObject[]).map((n) => n.id),
      );
      const missing = [...nodes.keys()].filter((id) => !stored.has(id));
      if (typeof answer.content !== 'string' || !answer.content.includes(partial))
        problems.push(
          `the ${how} turn streamed ${JSON.stringify(partial)}, but session/load gives content ${show(answer.content)}`,
        );
      if (missing.length > 0)
        problems.push(
          `session/load's tree of the ${how} turn lacks node(s) ${missing.join(', ')} it announced`,
        );
    }
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};

/** The second reply's delay: text held until it ends shows plainly. */
const SECOND_DELAY_MS = 4000;
/** Time the suite allows besides coalesceMs: scheduling on a loaded machine. */
const SLACK_MS = 1500;
const HELD = 'conformance: this text must not wait for the next model call.';
const ROOT_BEFORE = 'conformance: the caller before its subtask.';
const ROOT_AFTER = 'conformance: the caller after its subtask.';
const SUB_KEY = 'conformance-chunk-subtask: answer in text';
const SUB_TEXT = 'conformance: the subtask answers in its own node.';

export const chunkRules: Scenario<DaemonContext> = {
  id: 'daemon-turn-chunks',
  role: 'daemon',
  title:
    "text, a tool call, then a delayed reply: the first text arrives within capabilities.chunks.coalesceMs; a caller's and its subtask's texts each in their own node's chunks",
  checks: ['daemon.turns.chunk-coalesce-bound', 'daemon.turns.chunk-one-node'],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect('chunks');
    const sessionId = await scriptedSession(ctx, c, {
      'text is not held': [
        { text: HELD, ...unknownCall('conformance-held-1') },
        { text: 'conformance: later.', delayMs: SECOND_DELAY_MS },
      ],
      'text of two nodes': [
        {
          text: ROOT_BEFORE,
          toolCalls: [
            {
              id: 'conformance-chunk-sub',
              name: 'run_subtask',
              arguments: { title: 'conformance chunk subtask', instructions: SUB_KEY },
            },
          ],
        },
        { text: ROOT_AFTER },
      ],
      [SUB_KEY]: [{ text: SUB_TEXT }],
    });

    // turns-chunk-coalesce-bound: the reply's text came before its tool call, so it is due by
    // coalesceMs after the tool's node is announced (the runner's start-up time is no holding).
    const chunks = (c.init.capabilities.chunks ?? {}) as JsonObject;
    const coalesceMs = typeof chunks.coalesceMs === 'number' ? chunks.coalesceMs : 16;
    const held = await send(ctx, c.conn, sessionId, 'conformance: text is not held');
    const arrival = (predicate: (m: Incoming) => boolean): Promise<number | undefined> =>
      c.conn
        .waitFor((m) => isTurnEvent(sessionId, held)(m) && predicate(m), SECOND_DELAY_MS + 5000)
        .then((got) => (got ? Date.now() : undefined));
    const method = (m: Incoming): unknown => (m.message as JsonObject).method;
    const [textAt, toolAt] = await Promise.all([
      arrival((m) => method(m) === Methods.ChatChunk.method),
      arrival(
        (m) =>
          method(m) === Methods.TreeUpdate.method &&
          (((m.message as JsonObject).params as JsonObject).nodes as JsonObject[]).some(
            (n) => n.kind === 'tool',
          ),
      ),
    ]);
    await waitTurnEnd(ctx, c.conn, sessionId, held);
    if (coalesceMs + SLACK_MS >= SECOND_DELAY_MS)
      r.skip(
        'daemon.turns.chunk-coalesce-bound',
        `capabilities.chunks.coalesceMs ${coalesceMs} is too long to tell from the ${SECOND_DELAY_MS} ms the next model call waits`,
      );
    else if (toolAt === undefined)
      r.skip(
        'daemon.turns.chunk-coalesce-bound',
        "the reply's tool call showed no tool node to time its text against",
      );
    else
      r.expect(
        'daemon.turns.chunk-coalesce-bound',
        textAt !== undefined && textAt - toolAt <= coalesceMs + SLACK_MS,
        `the text of a reply that also called a tool arrived ${textAt === undefined ? 'never' : `${textAt - toolAt} ms`} after that tool's node, while the next model call waited ${SECOND_DELAY_MS} ms; capabilities.chunks.coalesceMs is ${coalesceMs} (the suite allows ${SLACK_MS} ms more)`,
      );

    // turns-chunk-one-node: each node's chunks hold its own text, and only that.
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: text of two nodes');
    await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    const { texts, nodes } = streamOf(sessionEvents(c.conn, sessionId), turnId);
    const sub = [...nodes.values()].find((n) => n.kind === 'subtask');
    if (!sub)
      throw new Skip('a run_subtask call made no subtask node: the daemon offers no run_subtask');
    const root = [...nodes.values()].find((n) => n.kind === 'turn');
    const rootText = texts.get(String(root?.id)) ?? '';
    const subText = texts.get(String(sub.id)) ?? '';
    const elsewhere = [...texts]
      .filter(([id]) => id !== String(root?.id) && id !== String(sub.id))
      .map(([id, text]) => `${id}: ${JSON.stringify(text)}`);
    r.expect(
      'daemon.turns.chunk-one-node',
      rootText.includes(ROOT_BEFORE) &&
        rootText.includes(ROOT_AFTER) &&
        !rootText.includes(SUB_TEXT) &&
        subText === SUB_TEXT &&
        elsewhere.length === 0,
      `the turn node's chunks hold ${JSON.stringify(rootText)} (expected the caller's two texts only), the subtask node's ${JSON.stringify(subText)} (expected ${JSON.stringify(SUB_TEXT)})${elsewhere.length ? `; other nodes' chunks: ${elsewhere.join(', ')}` : ''}`,
    );
  },
};
