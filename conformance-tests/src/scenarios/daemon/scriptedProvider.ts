/**
 * The scripted provider itself (appendix-scripted-provider.md): which list a
 * loop uses, its own cursor, provider errors for a missing or used-up list and
 * for an `{error}` reply, usage and cost, and setScript's refusals. Every
 * scripted scenario relies on these, so a daemon that gets them wrong would
 * make the others judge the wrong turn.
 */
import { Methods } from '@arbor/protocol';
import type { Connection, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import { type DaemonContext, describe, errorCode } from './context.js';
import { TURN_END_CHECKS, checkTurnEnd } from './turnEnd.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

interface Ended {
  turnId: string;
  idle: JsonObject;
  /** The turn's assistant text, its chat/chunk texts joined. */
  text: string;
}

async function setScript(
  conn: Connection,
  sessionId: string,
  conversations: JsonObject,
): Promise<void> {
  const set = await conn.request(Methods.SetScript.method, {
    sessionId,
    script: { version: 1, conversations },
  });
  if (!set || set.error) throw new Skip(`_arbor/testing/setScript failed: ${describe(set)}`);
}

async function turn(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
  text: string,
  modelCalls?: number,
): Promise<Ended> {
  const turnId = await send(ctx, conn, sessionId, text);
  const idle = await waitTurnEnd(ctx, conn, sessionId, turnId);
  const events = sessionEvents(conn, sessionId);
  checkTurnEnd(ctx.recorder, events, turnId, modelCalls);
  const chunks = events.filter(
    (e) => e.method === Methods.ChatChunk.method && e.params.turnId === turnId,
  );
  return { turnId, idle, text: chunks.map((e) => String(e.params.text)).join('') };
}

const unknownToolCall = (id: string): JsonObject => ({
  toolCalls: [{ id, name: 'conformance_no_such_tool', arguments: {} }],
});

export const scriptedProvider: Scenario<DaemonContext> = {
  id: 'daemon-scripted-provider',
  role: 'daemon',
  title:
    'the scripted provider: key matching, a cursor per loop, provider errors (no key, list used up, {error}), usage and cost, invalid setScript',
  checks: [
    'daemon.testing.key-match',
    'daemon.testing.own-cursor',
    'daemon.testing.no-key',
    'daemon.testing.exhausted',
    'daemon.testing.error',
    'daemon.testing.usage',
    'daemon.testing.set-invalid',
    ...TURN_END_CHECKS,
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect();
    const keyed = {
      alpha: [{ text: 'list alpha' }],
      'alpha beta': [{ text: 'list alpha beta' }],
      twice: [{ text: 'first of twice' }, { text: 'second of twice' }],
      yy: [{ text: 'list yy' }],
      zz: [{ text: 'list zz' }],
      '*': [{ text: 'list star' }],
    };
    // auto: calls of unknown tools become error results without an approval.
    const sessionId = await scriptedSession(ctx, c, keyed, 'auto');

    // appendix-scripted-provider-key-match: exact, else longest contained (ties: smallest), else *.
    const expected: [string, string][] = [
      ['alpha', 'list alpha'],
      ['conformance: alpha beta gamma', 'list alpha beta'],
      ['conformance: zz yy', 'list yy'],
      ['conformance: nothing matches', 'list star'],
    ];
    const wrong: string[] = [];
    for (const [message, reply] of expected) {
      const { text } = await turn(ctx, c.conn, sessionId, message, 1);
      if (text !== reply)
        wrong.push(
          `${JSON.stringify(message)} got ${JSON.stringify(text)}, expected ${JSON.stringify(reply)}`,
        );
    }
    r.expect('daemon.testing.key-match', wrong.length === 0, wrong.join('; '));

    // appendix-scripted-provider-own-cursor: a second loop of the same key starts at its first reply.
    const once = await turn(ctx, c.conn, sessionId, 'conformance: twice', 1);
    const again = await turn(ctx, c.conn, sessionId, 'conformance: twice', 1);
    r.expect(
      'daemon.testing.own-cursor',
      once.text === 'first of twice' && again.text === 'first of twice',
      `two turns matching "twice" got ${JSON.stringify(once.text)} then ${JSON.stringify(again.text)} (${String(again.idle.stopReason)}); each loop must start at the list's first reply "first of twice"`,
    );

    await setScript(c.conn, sessionId, { 'conformance-unmatched-key': [{ text: 'never' }] });
    const noKey = await turn(ctx, c.conn, sessionId, 'conformance: no key matches this');
    r.expect(
      'daemon.testing.no-key',
      noKey.idle.stopReason === 'error',
      `with no matching key and no "*" the turn ended ${show(noKey.idle)} (text ${JSON.stringify(noKey.text)}), expected stopReason error`,
    );

    await setScript(c.conn, sessionId, { '*': [unknownToolCall('conformance-exhaust-1')] });
    const exhausted = await turn(ctx, c.conn, sessionId, 'conformance: use the list up');
    r.expect(
      'daemon.testing.exhausted',
      exhausted.idle.stopReason === 'error',
      `the second model call of a one-reply list ended the turn ${show(exhausted.idle)}, expected stopReason error`,
    );

    const failure = 'conformance-scripted-failure-42';
    await setScript(c.conn, sessionId, { '*': [{ error: failure }] });
    const failed = await turn(ctx, c.conn, sessionId, 'conformance: the provider fails');
    const message = (failed.idle.error as JsonObject | undefined)?.message;
    r.expect(
      'daemon.testing.error',
      failed.idle.stopReason === 'error' &&
        typeof message === 'string' &&
        message.includes(failure),
      `an {"error": "${failure}"} reply ended the turn ${show(failed.idle)}, expected stopReason error and error.message containing it`,
    );

    await setScript(c.conn, sessionId, {
      '*': [
        { ...unknownToolCall('conformance-usage-1'), usage: { inputTokens: 11, outputTokens: 3 } },
        { text: 'Counted.' },
      ],
    });
    const counted = await turn(ctx, c.conn, sessionId, 'conformance: usage', 2);
    const summary = sessionEvents(c.conn, sessionId).find(
      (e) => e.method === Methods.CostSummary.method && e.params.turnId === counted.turnId,
    )?.params;
    const usage = (counted.idle.usage ?? {}) as JsonObject;
    const byModel = (summary?.byModel ?? []) as JsonObject[];
    r.expect(
      'daemon.testing.usage',
      usage.inputTokens === 11 &&
        usage.outputTokens === 3 &&
        summary?.cost === 0 &&
        byModel.length > 0 &&
        byModel.every((m) => m.provider === 'scripted' && m.model === 'scripted' && m.cost === 0),
      `replies with usage {inputTokens: 11, outputTokens: 3} and none: idle usage ${show(usage)} (expected 11 and 3), cost/summary ${show(summary)} (expected cost 0, byModel scripted/scripted with cost 0)`,
    );

    // appendix-scripted-provider-set-invalid (deliberately invalid: version 2).
    const badVersion = await c.conn.request(
      Methods.SetScript.method,
      { sessionId, script: { version: 2, conversations: { '*': [{ text: 'x' }] } } },
      { deliberate: true },
    );
    const badSession = await c.conn.request(Methods.SetScript.method, {
      sessionId: 'conformance-no-such-session',
      script: { version: 1, conversations: { '*': [{ text: 'x' }] } },
    });
    r.expect(
      'daemon.testing.set-invalid',
      errorCode(badVersion) === -32602 && errorCode(badSession) === -33004,
      `setScript with version 2 got ${describe(badVersion)} (expected -32602); for an unknown session ${describe(badSession)} (expected -33004)`,
    );
  },
};
