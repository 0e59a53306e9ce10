/**
 * What hostile or broken clients may cost (transport.md, sessions.md#session-detached):
 * a request id reused while in flight, a body nested too deep, a stranger on a
 * socket who sends a large frame or nothing at all, a client that stops reading.
 */
import { Methods } from '@arbor/protocol';
import {
  timeouts,
  type Connection,
  type Incoming,
  type JsonObject,
  type ResponseMessage,
} from '../../harness/connection.js';
import { encodeFrame } from '../../harness/framing.js';
import type { Scenario } from '../scenario.js';
import { Abort, Skip } from '../scenario.js';
import {
  type DaemonContext,
  type Initialized,
  closedWithin,
  describe,
  errorCode,
  requireSocket,
} from './context.js';
import { isTurnEnd, scriptedSession, send } from './turns.js';

const MiB = 1024 * 1024;

const responsesTo = (conn: Connection, id: string | number | null, from: number): Incoming[] =>
  conn.messages
    .slice(from)
    .filter((m) => m.kind === 'response' && (m.message as ResponseMessage).id === id);

function hasScriptedProvider(init: Initialized['init']): boolean {
  const testing = (init.capabilities as JsonObject).testing as JsonObject | undefined;
  return typeof testing?.scriptedProvider === 'object' && testing.scriptedProvider !== null;
}

export const duplicateId: Scenario<DaemonContext> = {
  id: 'daemon-duplicate-id',
  role: 'daemon',
  title:
    'a request with the id of one still unanswered gets -32600 with that id and is not processed; the first is answered',
  checks: ['daemon.jsonrpc.duplicate-id'],
  async run(ctx) {
    const check = 'daemon.jsonrpc.duplicate-id';
    const c = await ctx.connect();
    const { conn } = c;
    // The first request is session/delete of a session whose turn runs (with the scripted
    // provider): it can only be answered after the turn's cancelled end and session/deleted
    // (sessions.md#session-delete), so a daemon that reads both frames of one write still
    // has it in flight when it reads the second. Its answer, unlike session/list's, is `{}`:
    // the order of the two answers tells which request was served when.
    let sessionId: string;
    if (hasScriptedProvider(c.init)) {
      sessionId = await scriptedSession(ctx, c, {
        '*': [{ text: 'This reply takes a while.', delayMs: 5000 }],
      });
      await send(ctx, conn, sessionId, 'conformance: a turn that outlives its session');
    } else {
      const created = await conn.request(Methods.SessionNew.method, {
        workspaceRoot: ctx.workspace,
      });
      const id = (created?.result as JsonObject | undefined)?.sessionId;
      if (typeof id !== 'string') {
        ctx.recorder.fail('daemon.sessions.new', `session/new got ${describe(created)}`);
        throw new Abort('no session');
      }
      sessionId = id;
    }
    const id = 'conformance-duplicate';
    const first = {
      jsonrpc: '2.0',
      id,
      method: Methods.SessionDelete.method,
      params: { sessionId },
    };
    const second = { jsonrpc: '2.0', id, method: Methods.SessionList.method, params: {} };
    // Two answers with one id are this scenario's to judge, not a second response.
    conn.tolerate(id);
    const from = conn.messages.length;
    conn.sendBytes(
      Buffer.concat([encodeFrame(JSON.stringify(first)), encodeFrame(JSON.stringify(second))]),
      `${JSON.stringify(first)} + ${JSON.stringify(second)} (one write)`,
    );
    await conn.waitFor(() => responsesTo(conn, id, from).length >= 2, timeouts.requestMs, from);
    const answers = responsesTo(conn, id, from).map((m) => m.message as ResponseMessage);
    const listed = answers.findIndex((a) =>
      Array.isArray((a.result as JsonObject | undefined)?.sessions),
    );
    const deleted = answers.findIndex((a) => a.result !== undefined && a !== answers[listed]);
    const refused = answers.findIndex((a) => errorCode(a) === -32600);
    if (listed >= 0) {
      // Answered in that order, the delete was no longer in flight when the list was read.
      if (deleted >= 0 && deleted < listed) {
        ctx.recorder.skip(
          check,
          'the daemon answered the first request before it read the second, so no request with that id was in flight',
        );
        return;
      }
      ctx.recorder.fail(
        check,
        `session/list with the id of an unanswered session/delete was processed: ${describe(answers[listed])}`,
      );
      return;
    }
    if (refused < 0) {
      const nullId = responsesTo(conn, null, from).find(
        (m) => errorCode(m.message as ResponseMessage) === -32600,
      );
      ctx.recorder.fail(
        check,
        nullId
          ? 'the request reusing an id in flight got -32600 with id null, expected that id'
          : `the request reusing an id in flight got ${answers.length > 1 ? describe(answers[1]) : 'no answer'}, expected -32600 with that id`,
      );
      return;
    }
    const others = answers.filter((_, i) => i !== refused);
    ctx.recorder.expect(
      check,
      deleted >= 0 && others.length === 1,
      `besides the duplicate's -32600, the first request (session/delete) got ${others.length === 0 ? 'no answer' : others.map(describe).join(' and ')}, expected its result`,
    );
  },
};

/** Nesting depths the suite sends: just over the limit, and far over it. */
const DEEP = [300, 100_000];

export const maxDepth: Scenario<DaemonContext> = {
  id: 'daemon-max-depth',
  role: 'daemon',
  title:
    'a body nested more than 256 levels deep gets -32600 with id null, is not processed, and the connection goes on',
  checks: ['daemon.jsonrpc.max-depth'],
  async run(ctx) {
    const check = 'daemon.jsonrpc.max-depth';
    const { conn } = await ctx.connect();
    for (const depth of DEEP) {
      const id = `conformance-deep-${depth}`;
      conn.tolerate(id);
      const from = conn.messages.length;
      conn.sendRaw(
        `{"jsonrpc":"2.0","id":"${id}","method":"session/list","params":{"_meta":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}}`,
      );
      const answer = (await conn.waitFor((m) => m.kind === 'response', timeouts.requestMs, from))
        ?.message as ResponseMessage | undefined;
      if (
        !ctx.recorder.expect(
          check,
          answer !== undefined && answer.id === null && errorCode(answer) === -32600,
          `a session/list whose params nest ${depth} arrays deep got ${describe(answer)}${answer ? ` with id ${JSON.stringify(answer.id)}` : ''}, expected -32600 with id null`,
        )
      )
        return;
      // Still serving; and the answer to the probe comes after any the deep request got.
      const probe = await conn.request(Methods.SessionList.method, {}, { noResponseCheck: check });
      if (!probe) return;
      const processed = responsesTo(conn, id, from);
      if (processed.length > 0) {
        ctx.recorder.fail(
          check,
          `the request nested ${depth} deep was also processed: ${describe(processed[0]!.message as ResponseMessage)}`,
        );
        return;
      }
    }
  },
};

/** The frame a stranger sends before its token: above Arbor's pre-authentication limit of 1 MiB. */
const PREAUTH_FRAME_BYTES = 1.5 * MiB;
/** How long a connection that never initializes is given: Arbor closes it after 10 s. */
const PREAUTH_DEADLINE_MS = 12_000;

export const preauthBounds: Scenario<DaemonContext> = {
  id: 'daemon-preauth-bounds',
  role: 'daemon',
  title:
    'before the token: a 1.5 MiB frame gets -33003 and the connection is closed; a connection that never initializes is closed within 12 s',
  checks: ['daemon.transport.preauth-frame-limit', 'daemon.transport.preauth-deadline'],
  async run(ctx) {
    requireSocket(ctx.target, 'the token and what comes before it are socket features');
    const idle = await ctx.open('silent');
    const opened = Date.now();
    const large = await ctx.open('large-frame');
    const frameLimit = async (): Promise<void> => {
      const check = 'daemon.transport.preauth-frame-limit';
      // An initialize with the right token, padded: only its size is wrong.
      const id = 'conformance-preauth-large';
      const head = JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: Methods.Initialize.method,
        params: { ...ctx.initializeParams(), _meta: { pad: '' } },
      });
      const at = head.lastIndexOf('""') + 1;
      const body = Buffer.concat([
        Buffer.from(head.slice(0, at)),
        Buffer.alloc(PREAUTH_FRAME_BYTES - head.length, 0x61),
        Buffer.from(head.slice(at)),
      ]);
      large.conn.tolerate(id);
      large.conn.sendBytes(
        Buffer.from(`Content-Length: ${body.length}\r\n\r\n`),
        `Content-Length: ${body.length} (before any token)`,
      );
      // The body only when the daemon waits for it or keeps the connection: writing it into
      // a socket the daemon closed could lose its answer to a reset.
      let bodySent = false;
      const sendBody = (): void => {
        bodySent = true;
        large.conn.sendBytes(
          body,
          `<initialize with the right token, padded to ${body.length} bytes>`,
        );
      };
      const isResponse = (m: Incoming): boolean => m.kind === 'response';
      if (!(await large.conn.waitFor(isResponse, 1000)) && !large.conn.closedFlag) sendBody();
      const answer = (await large.conn.waitFor(isResponse, timeouts.requestMs))?.message as
        ResponseMessage | undefined;
      if (
        !ctx.recorder.expect(
          check,
          answer?.id === null && errorCode(answer) === -33003,
          `a ${body.length}-byte initialize before any token got ${describe(answer)}${answer ? ` with id ${JSON.stringify(answer.id)}` : ''}, expected -33003 with id null and the connection closed`,
        )
      )
        return;
      if (await closedWithin(large.conn, 300)) {
        ctx.recorder.pass(check);
        return;
      }
      // Still open: a valid initialize behind the frame is answered only if the daemon kept
      // the connection (waiting for the close alone could not tell it from the deadline's).
      if (!bodySent) sendBody();
      const after = 'conformance-preauth-after';
      const from = large.conn.messages.length;
      large.conn.tolerate(after);
      large.conn.sendRaw(
        JSON.stringify({
          jsonrpc: '2.0',
          id: after,
          method: Methods.Initialize.method,
          params: ctx.initializeParams(),
        }),
      );
      const isAfter = (m: Incoming): boolean =>
        m.kind === 'response' && (m.message as ResponseMessage).id === after;
      const served = await large.conn.waitFor(isAfter, 3000, from);
      ctx.recorder.expect(
        check,
        !served && large.conn.closedFlag,
        served
          ? `after -33003 to a large frame before the token the connection stayed open: an initialize sent next got ${describe(served.message as ResponseMessage)}`
          : 'the connection stayed open for 3 s after -33003 to a large frame before the token',
      );
    };
    const deadline = async (): Promise<void> => {
      const closed = await closedWithin(idle.conn, PREAUTH_DEADLINE_MS - (Date.now() - opened));
      ctx.recorder.expect(
        'daemon.transport.preauth-deadline',
        closed,
        `a socket connection that sent nothing was still open after ${PREAUTH_DEADLINE_MS / 1000} s`,
      );
    };
    await Promise.all([frameLimit(), deadline()]);
  },
};

/**
 * What the suite streams to a client that reads nothing (`--slow-consumer-mib`):
 * by default twice Arbor's limit (16 MiB unread), so what the kernel buffers
 * besides never decides the outcome. A daemon's limit is its own, so a daemon
 * that allows more is not wrong; hence the detach check is SHOULD.
 */
export const streamBounds = { slowConsumerBytes: 32 * MiB };
/** Per reply: a setScript frame must fit in maxMessageBytes. */
const MAX_REPLY_BYTES = 4 * MiB;

interface Event {
  index: number;
  method: string;
  seq: number;
  /** UTF-8 bytes of a chat/chunk's text; 0 otherwise. */
  bytes: number;
  key: string;
}

/** The session's events one client received, keyed without their (long) text. */
function eventsOf(conn: Connection, sessionId: string, from = 0): Event[] {
  const out: Event[] = [];
  for (const m of conn.messages.slice(from)) {
    if (m.kind !== 'notification') continue;
    const msg = m.message as JsonObject;
    const p = (msg.params ?? {}) as JsonObject;
    if (p.sessionId !== sessionId || typeof p.seq !== 'number') continue;
    const bytes = typeof p.text === 'string' ? Buffer.byteLength(p.text) : 0;
    out.push({
      index: m.index,
      method: String(msg.method),
      seq: p.seq,
      bytes,
      key: `${p.seq} (${String(msg.method)}${bytes ? `, ${bytes} bytes of text` : ''})`,
    });
  }
  return out;
}

const isDetachedFrom =
  (sessionId: string) =>
  (m: Incoming): boolean => {
    const msg = m.message as JsonObject;
    return (
      m.kind === 'notification' &&
      msg.method === Methods.SessionDetached.method &&
      (msg.params as JsonObject | undefined)?.sessionId === sessionId
    );
  };

/**
 * Text of `bytes` UTF-8 bytes. Three-byte characters: the scripted provider
 * streams a fixed number of characters per delta, so a daemon streams these
 * bytes about twice as fast as ASCII.
 */
function longText(bytes: number): string {
  return '木'.repeat(Math.floor(bytes / 3));
}

export const slowConsumer: Scenario<DaemonContext> = {
  id: 'daemon-slow-consumer',
  role: 'daemon',
  title:
    "a client that reads nothing while 32 MiB (--slow-consumer-mib) of a session's events stream gets session/detached after what it got, and re-attaching replays the rest",
  checks: ['daemon.sessions.slow-consumer-detached', 'daemon.sessions.detached-resume'],
  async run(ctx) {
    // A second connection sees the stream pass the bound; on stdio the only connection is
    // the one that stopped reading, and a guess by time would flake.
    requireSocket(
      ctx.target,
      'a second connection watches the stream while the first reads nothing',
    );
    const r = ctx.recorder;
    const resume = 'daemon.sessions.detached-resume';
    const a = await ctx.connect('streamer');
    const max = (a.init.capabilities as JsonObject).maxMessageBytes;
    const replyBytes = Math.min(MAX_REPLY_BYTES, (typeof max === 'number' ? max : MiB) - 64 * 1024);
    if (replyBytes < 64 * 1024)
      throw new Skip(`maxMessageBytes ${String(max)} is too small to script long replies`);
    const turns = Math.ceil(streamBounds.slowConsumerBytes / replyBytes);
    const sessionId = await scriptedSession(ctx, a, { '*': [{ text: longText(replyBytes) }] });

    // A second controller, so every daemon sends it each chat/chunk too.
    const b = await ctx.connect('slow-reader');
    const attach = await b.conn.request(Methods.SessionAttach.method, {
      sessionId,
      role: 'controller',
    });
    const since = (attach?.result as JsonObject | undefined)?.lastSeq;
    if (typeof since !== 'number') {
      r.fail(
        'daemon.sessions.attach-role',
        `session/attach by a second client got ${describe(attach)}`,
      );
      throw new Abort('attach failed');
    }
    b.conn.pauseReading();

    let streamed = 0;
    let turnId = '';
    for (let turn = 1; turn <= turns; turn++) {
      const from = a.conn.messages.length;
      turnId = await send(ctx, a.conn, sessionId, `conformance: stream reply ${turn}`);
      if (!(await a.conn.waitFor(isTurnEnd(sessionId, turnId), 30_000, from))) {
        r.fail(
          'daemon.turns.idle-ends-turn',
          `turn ${turn} of a ${replyBytes}-byte reply did not end within 30 s`,
        );
        throw new Abort('the turn did not end');
      }
      const got = eventsOf(a.conn, sessionId, from).reduce((sum, e) => sum + e.bytes, 0);
      if (got === 0) throw new Skip('the scripted reply streamed no chat/chunk text');
      streamed += got;
    }
    const all = eventsOf(a.conn, sessionId).filter((e) => e.seq > since);
    // The last turn's end is the last event; a client not detached gets it too.
    const lastEvent = isTurnEnd(sessionId, turnId);

    b.conn.resumeReading();
    const seen = await b.conn.waitFor((m) => isDetachedFrom(sessionId)(m) || lastEvent(m), 20_000);
    const mib = `${(streamed / MiB).toFixed(0)} MiB`;
    if (!seen || !isDetachedFrom(sessionId)(seen)) {
      r.fail(
        'daemon.sessions.slow-consumer-detached',
        seen
          ? `a client that read nothing while ${mib} of the session's text streamed got every event once it read again, and no session/detached`
          : `once it read again, a client that read nothing while ${mib} streamed got neither session/detached nor the session's last event within 20 s`,
      );
      return;
    }
    r.pass('daemon.sessions.slow-consumer-detached');

    // Its answer comes after all the daemon wrote before: nothing of the session may be among it.
    if (!(await b.conn.request(Methods.SessionList.method, {}, { noResponseCheck: resume })))
      return;
    const before = eventsOf(b.conn, sessionId).filter((e) => e.index < seen.index);
    const after = eventsOf(b.conn, sessionId, seen.index);
    if (after.length > 0) {
      r.fail(
        resume,
        `the detached client still got ${after[0]!.method} (seq ${after[0]!.seq}) of the session after session/detached`,
      );
      return;
    }
    if (all.some((e, i) => i > 0 && e.seq <= all[i - 1]!.seq)) {
      r.skip(resume, 'seq does not increase (daemon.events.seq-increasing), so no replay by seq');
      return;
    }
    const last = before.length > 0 ? before[before.length - 1]!.seq : since;
    const from = b.conn.messages.length;
    const again = await b.conn.request(
      Methods.SessionAttach.method,
      { sessionId, role: 'controller', sinceSeq: last },
      { noResponseCheck: resume },
    );
    const replay = (again?.result as JsonObject | undefined)?.replay;
    const attachCaps = (a.init.capabilities as JsonObject).attach as JsonObject | undefined;
    const retention = attachCaps?.replay === true ? attachCaps.replayRetention : undefined;
    const missed = all.filter((e) => e.seq > last).length;
    if (replay === 'snapshot' && !(typeof retention === 'number' && missed <= retention)) {
      // Beyond what the daemon keeps for replay: there are no events to compare.
      r.pass(resume);
      return;
    }
    if (
      !r.expect(
        resume,
        replay === 'events',
        `re-attaching with sinceSeq ${last} after session/detached got ${describe(again)}, expected replay "events"`,
      )
    )
      return;
    await b.conn.waitFor(lastEvent, 20_000, from);
    // Before the notice and replayed, it has each event the streamer got, once.
    const balance = new Map<string, number>();
    for (const e of all) balance.set(e.key, (balance.get(e.key) ?? 0) + 1);
    for (const e of [...before, ...eventsOf(b.conn, sessionId, from)])
      balance.set(e.key, (balance.get(e.key) ?? 0) - 1);
    const missing = [...balance].find(([, n]) => n > 0)?.[0];
    const extra = [...balance].find(([, n]) => n < 0)?.[0];
    r.expect(
      resume,
      missing === undefined && extra === undefined,
      missing
        ? `after session/detached and re-attaching with sinceSeq ${last}, the client never got seq ${missing}`
        : `after session/detached and re-attaching with sinceSeq ${last}, the client got seq ${extra} more often than the streamer`,
    );
  },
};
