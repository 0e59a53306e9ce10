/**
 * What a reply ends and how far a script reaches (appendix-scripted-provider.md):
 * a reply without toolCalls ends its loop though its list holds more; a
 * session's script drives the turns that start after setScript while the
 * running turn keeps its own; a default script drives the sessions created
 * after it, whoever creates them.
 */
import { Methods } from '@arbor/protocol';
import type { Connection, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort, Skip } from '../scenario.js';
import { type DaemonContext, describe } from './context.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

interface Ended {
  idle: JsonObject;
  /** The turn's streamed text, its chat/chunk texts joined. */
  text: string;
}

async function runTurn(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
  text: string,
): Promise<Ended> {
  const turnId = await send(ctx, conn, sessionId, text);
  const idle = await waitTurnEnd(ctx, conn, sessionId, turnId);
  const chunks = sessionEvents(conn, sessionId).filter(
    (e) => e.method === Methods.ChatChunk.method && e.params.turnId === turnId,
  );
  return { idle, text: chunks.map((e) => String(e.params.text)).join('') };
}

async function setScript(
  conn: Connection,
  conversations: JsonObject,
  sessionId?: string,
): Promise<void> {
  const set = await conn.request(Methods.SetScript.method, {
    ...(sessionId === undefined ? {} : { sessionId }),
    script: { version: 1, conversations },
  });
  if (!set || set.error) throw new Skip(`_arbor/testing/setScript failed: ${describe(set)}`);
}

const END_TEXT = 'conformance: this reply ends the turn.';
const NEVER_TEXT = 'conformance: a reply after the end of the loop.';

export const scriptEnd: Scenario<DaemonContext> = {
  id: 'daemon-script-end',
  role: 'daemon',
  title: "a reply without toolCalls ends the turn end_turn, though its loop's list holds more",
  checks: ['daemon.testing.end'],
  async run(ctx) {
    const c = await ctx.connect('script-end');
    const sessionId = await scriptedSession(ctx, c, {
      '*': [{ text: END_TEXT }, { text: NEVER_TEXT }],
    });
    const ended = await runTurn(ctx, c.conn, sessionId, 'conformance: one reply is the answer');
    ctx.recorder.expect(
      'daemon.testing.end',
      ended.idle.stopReason === 'end_turn' && ended.text === END_TEXT,
      `a list of two text replies: the turn streamed ${JSON.stringify(ended.text)} and ended ${show(ended.idle)}; expected only ${JSON.stringify(END_TEXT)} and stopReason end_turn`,
    );
  },
};

/** How long the running turn's first reply waits: setScript is answered well within it. */
const FIRST_DELAY_MS = 1500;
const KEPT = 'conformance: the running turn kept its script.';
const REPLACED = 'conformance: the script set during the earlier turn.';
const DEFAULT_1 = 'conformance: the first default script.';
const DEFAULT_2 = 'conformance: the second default script.';

export const scriptSet: Scenario<DaemonContext> = {
  id: 'daemon-script-set',
  role: 'daemon',
  title:
    'setScript while a turn runs: that turn keeps its script, the next uses the new one; setScript without sessionId drives the sessions created afterwards, by another client too, until replaced',
  checks: ['daemon.testing.set-session', 'daemon.testing.set-default'],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect('script-set');
    // auto: the unknown tool's call becomes an error result, and the loop makes a second call.
    const sessionId = await scriptedSession(ctx, c, {
      '*': [
        {
          delayMs: FIRST_DELAY_MS,
          toolCalls: [{ id: 'conformance-set-1', name: 'conformance_no_such_tool', arguments: {} }],
        },
        { text: KEPT },
      ],
    });
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: a turn outlives its script');
    // The turn's second model call comes after this answer: it must still read the first script.
    await setScript(c.conn, { '*': [{ text: REPLACED }] }, sessionId);
    const idle = await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    const running = sessionEvents(c.conn, sessionId)
      .filter((e) => e.method === Methods.ChatChunk.method && e.params.turnId === turnId)
      .map((e) => String(e.params.text))
      .join('');
    const next = await runTurn(ctx, c.conn, sessionId, 'conformance: the next turn');
    r.expect(
      'daemon.testing.set-session',
      running === KEPT && next.text === REPLACED,
      `setScript during a turn: that turn streamed ${JSON.stringify(running)} (${String(idle.stopReason)}), expected ${JSON.stringify(KEPT)} from the script it started with; the next turn streamed ${JSON.stringify(next.text)} (${String(next.idle.stopReason)}), expected ${JSON.stringify(REPLACED)}`,
    );

    // "by any client": over a socket another client creates the sessions.
    const creator = ctx.target.kind === 'socket' ? await ctx.connect('script-default') : c;
    const fresh = async (text: string): Promise<Ended> => {
      const created = await creator.conn.request(Methods.SessionNew.method, {
        workspaceRoot: ctx.workspace,
        permissionMode: 'auto',
        chatContext: { kind: 'thread' },
      });
      const id = (created?.result as JsonObject | undefined)?.sessionId;
      if (typeof id !== 'string') {
        r.fail('daemon.sessions.new', `session/new got ${describe(created)}`);
        throw new Abort('no session');
      }
      return runTurn(ctx, creator.conn, id, text);
    };
    try {
      await setScript(c.conn, { '*': [{ text: DEFAULT_1 }] });
      const first = await fresh('conformance: a session after the first default');
      await setScript(c.conn, { '*': [{ text: DEFAULT_2 }] });
      const second = await fresh('conformance: a session after the second default');
      r.expect(
        'daemon.testing.set-default',
        first.text === DEFAULT_1 && second.text === DEFAULT_2,
        `a session created after setScript without sessionId streamed ${JSON.stringify(first.text)} (${String(first.idle.stopReason)}), expected ${JSON.stringify(DEFAULT_1)}; one created after a second such setScript streamed ${JSON.stringify(second.text)} (${String(second.idle.stopReason)}), expected ${JSON.stringify(DEFAULT_2)}`,
      );
    } finally {
      // Sessions of later scenarios that set no script match no key, as before.
      await c.conn.request(Methods.SetScript.method, {
        script: { version: 1, conversations: {} },
      });
    }
  },
};
