/**
 * What a client's frame reader must tolerate (transport.md#framing): frames
 * split at any byte, several frames in one write, header fields it does not
 * know, a Content-Length name in another case, an 8 MiB frame, and a response
 * to a request it never sent. Each situation is a request for an unknown
 * method: whatever the client answers (-32601), an answer proves it read it.
 */
import { timeouts, type Connection } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import type { ClientContext } from './context.js';
import { ready, sleep } from './scenarios.js';

const PROBE_METHOD = 'conformance/frameProbe';

interface Probe {
  bytes: Buffer;
  /** Starts waiting for the answer: call it right before the frame's last byte is written. */
  answered(timeoutMs?: number): Promise<boolean>;
}

/** A probe request framed with `header(length)`; its answer is awaited under `check`. */
function probe(
  conn: Connection,
  id: string,
  check: string,
  header: (length: number) => string = (n) => `Content-Length: ${n}\r\n\r\n`,
  params: unknown = {},
): Probe {
  const body = Buffer.from(
    JSON.stringify({ jsonrpc: '2.0', id, method: PROBE_METHOD, params }),
    'utf8',
  );
  return {
    bytes: Buffer.concat([Buffer.from(header(body.length), 'ascii'), body]),
    answered: (timeoutMs) =>
      conn
        .expectResponse(id, PROBE_METHOD, { noResponseCheck: check, timeoutMs })
        .then((r) => r !== undefined),
  };
}

async function allAnswered(waits: readonly Promise<boolean>[]): Promise<boolean> {
  return (await Promise.all(waits)).every(Boolean);
}

/** Lets the write go out on its own before the next one. */
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
/** Inside `Content-Length: …`, whatever the length. */
const HEADER_PAUSE_AT = 7;

export const frameSplit: Scenario<ClientContext> = {
  id: 'client-frame-split',
  role: 'client',
  title: 'frames split at every byte, and several frames (and part of one) in one write',
  checks: ['client.transport.reassembly'],
  async run(ctx) {
    const check = 'client.transport.reassembly';
    const conn = await ready(ctx);
    const waits: Promise<boolean>[] = [];
    const byByte = probe(conn, 'split-1', check);
    for (let i = 0; i < byByte.bytes.length; i++) {
      if (i === byByte.bytes.length - 1) waits.push(byByte.answered());
      conn.sendBytes(byByte.bytes.subarray(i, i + 1), `byte ${i} of a frame`);
      // Bytes written a tick apart may still reach a busy client in one read; one
      // longer pause inside the header makes sure some read ends mid-header.
      await (i === HEADER_PAUSE_AT ? sleep(30) : tick());
    }
    // Two whole frames and the start of a third in one write, the rest of it later.
    const [a, b, c] = ['split-2', 'split-3', 'split-4'].map((id) => probe(conn, id, check));
    const cut = Math.floor(c!.bytes.length / 3);
    waits.push(a!.answered(), b!.answered());
    conn.sendBytes(
      Buffer.concat([a!.bytes, b!.bytes, c!.bytes.subarray(0, cut)]),
      'two frames and the start of a third',
    );
    await sleep(30);
    waits.push(c!.answered());
    conn.sendBytes(c!.bytes.subarray(cut), 'the rest of the third frame');
    if (await allAnswered(waits)) ctx.recorder.pass(check);
  },
};

export const frameHeaders: Scenario<ClientContext> = {
  id: 'client-frame-headers',
  role: 'client',
  title: 'Content-Type, unknown header fields and a lower- or upper-case Content-Length',
  checks: ['client.transport.header-fields'],
  async run(ctx) {
    const check = 'client.transport.header-fields';
    const conn = await ready(ctx);
    const probes = [
      probe(
        conn,
        'headers-1',
        check,
        (n) =>
          `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: ${n}\r\nX-Conformance-Trace: 7\r\n\r\n`,
      ),
      probe(conn, 'headers-2', check, (n) => `content-length: ${n}\r\n\r\n`),
      probe(
        conn,
        'headers-3',
        check,
        (n) =>
          `X-Conformance-First: yes\r\nCONTENT-LENGTH: ${n}\r\nContent-Type: application/vscode-jsonrpc; charset=utf8\r\n\r\n`,
      ),
    ];
    const waits = probes.map((p) => p.answered());
    for (const p of probes) conn.sendBytes(p.bytes, 'a frame with other header fields');
    if (await allAnswered(waits)) ctx.recorder.pass(check);
  },
};

/** The size every client must accept (transport.md#transport-client-accepts-large). */
const LARGE_FRAME_BYTES = 8_388_608;

export const frameLarge: Scenario<ClientContext> = {
  id: 'client-frame-large',
  role: 'client',
  title: 'a frame of 8388608 content bytes',
  checks: ['client.transport.accepts-large'],
  async run(ctx) {
    const check = 'client.transport.accepts-large';
    const conn = await ready(ctx);
    const empty = JSON.stringify({
      jsonrpc: '2.0',
      id: 'large-1',
      method: PROBE_METHOD,
      params: { blob: '' },
    });
    const large = probe(conn, 'large-1', check, undefined, {
      blob: 'x'.repeat(LARGE_FRAME_BYTES - Buffer.byteLength(empty)),
    });
    // Moving and parsing 8 MiB takes a busy machine longer than an answer should.
    const answered = large.answered(Math.max(8 * timeouts.requestMs, 20_000));
    conn.sendBytes(large.bytes, `a frame of ${LARGE_FRAME_BYTES} content bytes`);
    if (await answered) ctx.recorder.pass(check);
  },
};

export const unknownResponse: Scenario<ClientContext> = {
  id: 'client-unknown-response',
  role: 'client',
  title: 'responses whose id matches no request of the client are ignored',
  checks: ['client.transport.unknown-response-ignored'],
  async run(ctx) {
    const check = 'client.transport.unknown-response-ignored';
    const conn = await ready(ctx);
    conn.sendRaw('{"jsonrpc":"2.0","id":"conformance-never-sent","result":{"x":1}}');
    conn.sendRaw(
      '{"jsonrpc":"2.0","id":987654,"error":{"code":-32603,"message":"for no request"}}',
    );
    await sleep(50);
    const after = probe(conn, 'after-unknown-response', check);
    const answered = after.answered();
    conn.sendBytes(after.bytes, 'a request after the stray responses');
    if (await answered) ctx.recorder.pass(check);
  },
};
