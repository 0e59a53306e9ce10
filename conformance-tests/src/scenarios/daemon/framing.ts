/** What a daemon's frame reader must tolerate and refuse, and how its stdio and socket end (transport.md). */
import { Methods } from '@arbor/protocol';
import { statSync } from 'node:fs';
import {
  timeouts,
  type Connection,
  type Incoming,
  type ResponseMessage,
} from '../../harness/connection.js';
import { encodeFrame } from '../../harness/framing.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import {
  type DaemonContext,
  closedWithin,
  describe,
  exitCode,
  requireSocket,
  requireStdio,
  sleep,
} from './context.js';

const listRequest = (id: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: Methods.SessionList.method, params: {} });

/** Waits for the answer to a request the scenario wrote by hand, blaming `check` if none comes. */
function answerTo(
  conn: Connection,
  id: string,
  check: string,
): Promise<ResponseMessage | undefined> {
  return conn.expectResponse(id, Methods.SessionList.method, { noResponseCheck: check });
}

const answered = (response: ResponseMessage | undefined): boolean =>
  response !== undefined && response.result !== undefined;

export const framing: Scenario<DaemonContext> = {
  id: 'daemon-framing',
  role: 'daemon',
  title:
    'frames with extra header fields, split at every byte or several in one write, and stray responses',
  checks: [
    'daemon.transport.unknown-headers',
    'daemon.transport.reassembly',
    'daemon.transport.unknown-response-ignored',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const { conn } = await ctx.connect();
    // Slow writes must not count against the daemon: it has the usual time once the frame is
    // complete. Some forty 1 ms pauses can take many seconds on a loaded machine (the fixture
    // tests run six suites at once), so the wait is generous; only a daemon that never answers
    // ever waits it out.
    const patience = { timeoutMs: timeouts.requestMs + 30_000 };

    // transport.md#transport-reassembly: one byte per write, each in its own packet.
    const split = encodeFrame(listRequest('split-1'));
    const byByte = conn.expectResponse('split-1', Methods.SessionList.method, {
      noResponseCheck: 'daemon.transport.reassembly',
      ...patience,
    });
    // The header and the first bytes of the content one byte per write, the rest in a few.
    const bodyAt = split.indexOf('\r\n\r\n') + 4;
    const cuts = [
      ...Array.from({ length: bodyAt + 8 }, (_, i) => i + 1),
      split.length - 7,
      split.length,
    ];
    let at = 0;
    for (const cut of cuts) {
      conn.sendBytes(split.subarray(at, cut), `bytes ${at}..${cut - 1} of a session/list frame`);
      at = cut;
      await sleep(1);
    }
    const oneByte = await byByte;
    if (oneByte)
      r.expect(
        'daemon.transport.reassembly',
        answered(oneByte),
        `a frame written one byte at a time got ${describe(oneByte)}`,
      );
    // Two frames and the start of a third in one write, the rest in the next.
    const frames = Buffer.concat(
      ['joined-1', 'joined-2', 'joined-3'].map((id) => encodeFrame(listRequest(id))),
    );
    const cut = frames.length - Math.floor(encodeFrame(listRequest('joined-3')).length / 2) - 10;
    const joined = ['joined-1', 'joined-2', 'joined-3'].map((id) =>
      conn.expectResponse(id, Methods.SessionList.method, {
        noResponseCheck: 'daemon.transport.reassembly',
        ...patience,
      }),
    );
    conn.sendBytes(frames.subarray(0, cut), 'two frames and the header of a third in one write');
    await sleep(20);
    conn.sendBytes(frames.subarray(cut), 'the rest of the third frame');
    const answers = await Promise.all(joined);
    if (answers.every((a) => a !== undefined))
      r.expect(
        'daemon.transport.reassembly',
        answers.every(answered),
        `frames sharing writes got ${answers.map(describe).join('; ')}`,
      );

    // transport.md#transport-unknown-response-ignored: responses to requests the daemon never
    // sent, on a connection of its own (one that failed to reassemble may be closed).
    const stray = (await ctx.connect('stray')).conn;
    const from = stray.messages.length;
    stray.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 'conformance-stray-1', result: {} }));
    stray.sendRaw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 987_654,
        error: { code: -32603, message: 'a response to nothing' },
      }),
    );
    const probe = await stray.request(
      Methods.SessionList.method,
      {},
      { noResponseCheck: 'daemon.transport.unknown-response-ignored' },
    );
    const extra = stray.messages
      .slice(from)
      .filter(
        (m: Incoming) => m.kind === 'response' && (m.message as ResponseMessage).id !== probe?.id,
      );
    if (probe)
      r.expect(
        'daemon.transport.unknown-response-ignored',
        extra.length === 0 && answered(probe),
        extra.length > 0
          ? `responses to no request of the daemon were answered: ${JSON.stringify(extra[0]!.message).slice(0, 200)}`
          : `session/list after them got ${describe(probe)}`,
      );

    // transport.md#transport-unknown-headers: Content-Type and a header no spec names, on a
    // connection of its own (a daemon that refuses the frame may close it).
    const headersConn = (await ctx.connect('headers')).conn;
    const body = Buffer.from(listRequest('headers-1'));
    const headers = answerTo(headersConn, 'headers-1', 'daemon.transport.unknown-headers');
    headersConn.sendBytes(
      Buffer.concat([
        Buffer.from(
          'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n' +
            'X-Conformance-Extra: ignored\r\n' +
            `Content-Length: ${body.length}\r\n\r\n`,
        ),
        body,
      ]),
      'session/list framed with Content-Type and X-Conformance-Extra before Content-Length',
    );
    const withHeaders = await headers;
    if (withHeaders)
      r.expect(
        'daemon.transport.unknown-headers',
        answered(withHeaders),
        `a frame with extra header fields got ${describe(withHeaders)}`,
      );
  },
};

/** Header parts no reader can resynchronise after (transport.md#transport-bad-header-close). */
const BAD_HEADERS: [string, string][] = [
  ['a header line without a colon', 'Content-Length: 2\r\nNo colon on this line\r\n\r\n{}'],
  ['a negative Content-Length', 'Content-Length: -2\r\n\r\n{}'],
  ['two different Content-Length values', 'Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
];

export const badHeader: Scenario<DaemonContext> = {
  id: 'daemon-bad-header',
  role: 'daemon',
  title: 'a malformed header part closes that connection (stdio: exit code 1), and only that one',
  checks: ['daemon.transport.bad-header-close'],
  async run(ctx) {
    const check = 'daemon.transport.bad-header-close';
    // On a socket another client watches: the failure must not reach it (transport-connection-isolation).
    const bystander = ctx.target.kind === 'socket' ? await ctx.connect('bystander') : undefined;
    for (const [i, [label, bytes]] of BAD_HEADERS.entries()) {
      const { conn, exit } = await ctx.connect(`bad-header-${i + 1}`);
      conn.sendBytes(Buffer.from(bytes), label);
      if (ctx.target.kind === 'stdio') {
        const code = await exitCode(exit, 3000);
        ctx.recorder.expect(
          check,
          code === 1,
          code === 'timeout'
            ? `the daemon still ran 3 s after ${label}`
            : `the daemon exited with code ${code} after ${label}, expected 1`,
        );
        continue;
      }
      ctx.recorder.expect(
        check,
        await closedWithin(conn, 2000),
        `the connection stayed open for 2 s after ${label}`,
      );
      const still = await bystander!.conn.request(
        Methods.SessionList.method,
        {},
        { noResponseCheck: check },
      );
      if (still)
        ctx.recorder.expect(
          check,
          answered(still),
          `another connection got ${describe(still)} after ${label} on this one`,
        );
    }
  },
};

export const stdinEof: Scenario<DaemonContext> = {
  id: 'daemon-stdin-eof',
  role: 'daemon',
  title: 'stdio: end of stdin ends the daemon, code 0 after shutdown, 1 without',
  checks: ['daemon.transport.stdin-eof'],
  async run(ctx) {
    requireStdio(ctx.target, 'the end of a daemon process’s stdin');
    for (const shutdown of [false, true]) {
      const { conn, exit } = await ctx.connect(shutdown ? 'eof-after-shutdown' : 'eof');
      if (shutdown) {
        const answer = await conn.request(Methods.Shutdown.method);
        if (!answer || answer.error) throw new Skip(`shutdown got ${describe(answer)}`);
      }
      conn.endOutput();
      const code = await exitCode(exit, 3000);
      const expected = shutdown ? 0 : 1;
      ctx.recorder.expect(
        'daemon.transport.stdin-eof',
        code === expected,
        code === 'timeout'
          ? `the daemon still ran 3 s after its stdin ended${shutdown ? ' (after shutdown)' : ''}`
          : `the daemon exited with code ${code} at the end of stdin${shutdown ? ' after shutdown' : ' without shutdown'}, expected ${expected}`,
      );
    }
  },
};

export const socketMode: Scenario<DaemonContext> = {
  id: 'daemon-socket-mode',
  role: 'daemon',
  title: 'a Unix socket is readable and writable by its owner only',
  checks: ['daemon.transport.unix-socket-mode'],
  async run(ctx) {
    requireSocket(ctx.target, 'the mode of the socket file');
    const address = ctx.target.kind === 'socket' ? ctx.target.address : '';
    if (/^[\d.]+:\d+$|^\[.*\]:\d+$/.test(address)) throw new Skip('a TCP socket has no file mode');
    let mode: number;
    try {
      mode = statSync(address).mode & 0o777;
    } catch (error) {
      throw new Skip(`cannot stat ${address}: ${String(error)}`);
    }
    ctx.recorder.expect(
      'daemon.transport.unix-socket-mode',
      (mode & 0o077) === 0,
      `the socket ${address} has mode 0${mode.toString(8)}, expected 0600 (no access for group or others)`,
    );
  },
};
