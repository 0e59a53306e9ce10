/** Framing and JSON-RPC error handling (transport.md). */
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
import { Skip } from '../scenario.js';
import { type DaemonContext, describe, errorCode, sleep } from './context.js';

const isResponse = (m: Incoming): boolean => m.kind === 'response' || m.kind === 'batch';
const nullIdError = (m: Incoming): boolean =>
  m.kind === 'response' &&
  (m.message as ResponseMessage).id === null &&
  (m.message as ResponseMessage).error !== undefined;

/** A request that must be answered: proves the connection still works. */
async function alive(conn: Connection, check: string): Promise<boolean> {
  const response = await conn.request(Methods.SessionList.method, {}, { noResponseCheck: check });
  return response !== undefined;
}

export const jsonRpcErrors: Scenario<DaemonContext> = {
  id: 'daemon-jsonrpc-errors',
  role: 'daemon',
  title:
    'malformed JSON, invalid envelopes, invalid params and unknown methods get the right errors',
  checks: [
    'daemon.jsonrpc.parse-error',
    'daemon.jsonrpc.invalid-envelope',
    'daemon.jsonrpc.invalid-envelope-id',
    'daemon.jsonrpc.params-invalid',
    'daemon.jsonrpc.unknown-method',
  ],
  async run(ctx) {
    const { conn } = await ctx.connect();
    const r = ctx.recorder;

    let from = conn.messages.length;
    conn.sendRaw('{"jsonrpc":"2.0","id":1,"method":');
    const parse = (await conn.waitFor(nullIdError, timeouts.requestMs, from))?.message as
      ResponseMessage | undefined;
    if (!parse) {
      const other = (await conn.waitFor(isResponse, 10, from))?.message as
        ResponseMessage | undefined;
      r.fail(
        'daemon.jsonrpc.parse-error',
        `malformed JSON got ${describe(other)} instead of -32700 with id null`,
      );
    } else if (
      r.expect(
        'daemon.jsonrpc.parse-error',
        parse.error?.code === -32700,
        `malformed JSON got ${describe(parse)}, expected -32700`,
      )
    ) {
      if (!(await alive(conn, 'daemon.jsonrpc.parse-error'))) return;
    }

    // Valid JSON, invalid JSON-RPC: a wrong jsonrpc version with a usable id.
    const badVersion = conn.expectResponse('env-1', Methods.SessionList.method, {
      noResponseCheck: 'daemon.jsonrpc.invalid-envelope',
    });
    conn.sendRaw(
      JSON.stringify({
        jsonrpc: '1.0',
        id: 'env-1',
        method: Methods.SessionList.method,
        params: {},
      }),
    );
    const envelope = await badVersion;
    if (envelope) {
      r.expect(
        'daemon.jsonrpc.invalid-envelope',
        errorCode(envelope) === -32600,
        `"jsonrpc":"1.0" got ${describe(envelope)}, expected -32600`,
      );
      r.pass('daemon.jsonrpc.invalid-envelope-id');
    }
    // An unusable id (an object) must be answered with id null.
    from = conn.messages.length;
    conn.sendRaw(
      JSON.stringify({ jsonrpc: '2.0', id: { not: 'an id' }, method: Methods.SessionList.method }),
    );
    const unusable = (await conn.waitFor(isResponse, timeouts.requestMs, from))?.message as
      ResponseMessage | undefined;
    if (!unusable)
      r.fail('daemon.jsonrpc.invalid-envelope', 'a request with an object id got no answer');
    else {
      r.expect(
        'daemon.jsonrpc.invalid-envelope',
        errorCode(unusable) === -32600,
        `an object id got ${describe(unusable)}, expected -32600`,
      );
      r.expect(
        'daemon.jsonrpc.invalid-envelope-id',
        unusable.id === null,
        `the answer to an unusable id carried id ${JSON.stringify(unusable.id)}, expected null`,
      );
    }

    const invalidParams = await conn.request(
      Methods.SessionLoad.method,
      { sessionId: 42 },
      { deliberate: true, noResponseCheck: 'daemon.jsonrpc.params-invalid' },
    );
    if (invalidParams) {
      r.expect(
        'daemon.jsonrpc.params-invalid',
        errorCode(invalidParams) === -32602,
        `session/load with a numeric sessionId got ${describe(invalidParams)}, expected -32602`,
      );
    }

    for (const method of [
      'conformance/noSuchMethod',
      '_conformance/noSuchExtension',
      '$/conformanceNoSuchMethod',
    ]) {
      const response = await conn.request(
        method,
        {},
        { noResponseCheck: 'daemon.jsonrpc.unknown-method' },
      );
      if (response)
        r.expect(
          'daemon.jsonrpc.unknown-method',
          errorCode(response) === -32601,
          `${method} got ${describe(response)}, expected -32601`,
        );
    }
  },
};

export const batch: Scenario<DaemonContext> = {
  id: 'daemon-batch',
  role: 'daemon',
  title: 'a batch is refused with one -32600 error and none of its elements runs',
  checks: ['daemon.jsonrpc.batch-rejected'],
  async run(ctx) {
    const { conn } = await ctx.connect();
    const from = conn.messages.length;
    conn.sendRaw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'batch-1', method: Methods.SessionList.method, params: {} },
      ]),
    );
    const answer = await conn.waitFor(isResponse, timeouts.requestMs, from);
    if (!answer) {
      ctx.recorder.fail('daemon.jsonrpc.batch-rejected', 'a batch got no answer');
      return;
    }
    if (answer.kind === 'batch') {
      ctx.recorder.fail(
        'daemon.jsonrpc.batch-rejected',
        `a batch was answered with a batch: ${JSON.stringify(answer.message).slice(0, 200)}`,
      );
      return;
    }
    const response = answer.message as ResponseMessage;
    if (
      !ctx.recorder.expect(
        'daemon.jsonrpc.batch-rejected',
        response.id === null && errorCode(response) === -32600,
        `a batch got ${describe(response)} with id ${JSON.stringify(response.id)}, expected -32600 with id null`,
      )
    )
      return;
    // "MUST NOT process any element": no answer to the element may follow.
    await sleep(150);
    const processed = conn.messages
      .slice(from)
      .some((m) => m.kind === 'response' && (m.message as ResponseMessage).id === 'batch-1');
    if (processed)
      ctx.recorder.fail(
        'daemon.jsonrpc.batch-rejected',
        'an element of the batch was processed and answered',
      );
  },
};

export const notifications: Scenario<DaemonContext> = {
  id: 'daemon-notifications',
  role: 'daemon',
  title: 'unknown notifications and $/cancelRequest for unknown ids are ignored',
  checks: ['daemon.jsonrpc.unknown-notification-ignored', 'daemon.jsonrpc.cancel-unknown-ignored'],
  async run(ctx) {
    const { conn } = await ctx.connect();
    const quiet = async (check: string, what: string, send: () => void): Promise<void> => {
      const from = conn.messages.length;
      send();
      const probe = conn.request(Methods.SessionList.method, {}, { noResponseCheck: check });
      const answered = await probe;
      if (!answered) return;
      const extra = conn.messages
        .slice(from)
        .filter(
          (m) =>
            m.kind === 'response' && (m.message as ResponseMessage).id !== (answered.id as number),
        );
      ctx.recorder.expect(
        check,
        extra.length === 0,
        `${what} was answered: ${JSON.stringify(extra[0]?.message ?? null).slice(0, 200)}`,
      );
    };
    await quiet('daemon.jsonrpc.unknown-notification-ignored', 'an unknown notification', () => {
      conn.notify('conformance/noSuchNotification', { x: 1 });
      conn.notify('_conformance/extensionNotification', { x: 1 });
      // lifecycle.md#lifecycle-dollar-notifications-ignored
      conn.notify('$/conformanceNoSuchNotification', { x: 1 });
    });
    await quiet(
      'daemon.jsonrpc.cancel-unknown-ignored',
      '$/cancelRequest for an unknown id',
      () => {
        conn.notify(Methods.CancelRequest.method, { id: 987654 });
      },
    );
  },
};

export const cancelInFlight: Scenario<DaemonContext> = {
  id: 'daemon-cancel-request',
  role: 'daemon',
  title: '$/cancelRequest right behind a request: still exactly one response (result or -32800)',
  checks: ['daemon.jsonrpc.cancel-still-responds'],
  async run(ctx) {
    const { conn } = await ctx.connect();
    // Request and cancel leave in one write, so the cancel arrives while the request is in flight.
    const answer = conn.expectResponse('cancel-me', Methods.SessionList.method, {
      noResponseCheck: 'daemon.jsonrpc.cancel-still-responds',
    });
    const request = {
      jsonrpc: '2.0',
      id: 'cancel-me',
      method: Methods.SessionList.method,
      params: {},
    };
    const cancel = {
      jsonrpc: '2.0',
      method: Methods.CancelRequest.method,
      params: { id: 'cancel-me' },
    };
    conn.sendBytes(
      Buffer.concat([encodeFrame(JSON.stringify(request)), encodeFrame(JSON.stringify(cancel))]),
      `${JSON.stringify(request)} + ${JSON.stringify(cancel)} (one write)`,
    );
    const response = await answer;
    if (!response) return; // blamed on the check by the missing response
    ctx.recorder.expect(
      'daemon.jsonrpc.cancel-still-responds',
      response.result !== undefined || response.error?.code === -32800,
      `the cancelled request got ${describe(response)}, expected its result or -32800`,
    );
    // Still serving: one more request must be answered.
    const after = await conn.request(
      Methods.SessionList.method,
      {},
      {
        noResponseCheck: 'daemon.jsonrpc.cancel-still-responds',
      },
    );
    if (after)
      ctx.recorder.expect(
        'daemon.jsonrpc.cancel-still-responds',
        after.result !== undefined,
        `session/list after the cancel got ${describe(after)}`,
      );
  },
};

/** The largest limit the suite will actually exercise: a bigger frame costs too much time. */
const MAX_OVERSIZE_PROBE = 64 * 1024 * 1024;

export const oversize: Scenario<DaemonContext> = {
  id: 'daemon-oversize',
  role: 'daemon',
  title: 'the daemon advertises maxMessageBytes, refuses a bigger frame with -33003 and goes on',
  checks: [
    'daemon.transport.max-size-advertised',
    'daemon.transport.oversize-error',
    'daemon.transport.oversize-discard',
  ],
  async run(ctx) {
    const { conn, init } = await ctx.connect();
    const limit = (init.capabilities as JsonObject).maxMessageBytes;
    if (
      !ctx.recorder.expect(
        'daemon.transport.max-size-advertised',
        typeof limit === 'number',
        'the initialize result has no capabilities.maxMessageBytes',
      )
    ) {
      throw new Skip('the daemon does not advertise capabilities.maxMessageBytes');
    }
    const max = limit as number;
    if (max > MAX_OVERSIZE_PROBE)
      throw new Skip(
        `maxMessageBytes ${max} is above the suite's probe limit ${MAX_OVERSIZE_PROBE}`,
      );
    // A valid request padded to limit + 1 bytes, so only its size is wrong.
    const head =
      '{"jsonrpc":"2.0","id":"oversize-1","method":"session/list","params":{"_meta":{"pad":"';
    const tail = '"}}}';
    const pad = Math.max(0, max + 1 - head.length - tail.length);
    const body = Buffer.concat([Buffer.from(head), Buffer.alloc(pad, 0x61), Buffer.from(tail)]);
    const from = conn.messages.length;
    conn.tolerate('oversize-1');
    conn.sendBytes(
      Buffer.from(`Content-Length: ${body.length}\r\n\r\n`),
      `Content-Length: ${body.length} (maxMessageBytes ${max})`,
    );
    conn.sendBytes(body, `<${body.length} bytes of a padded session/list request>`);
    const answer = (await conn.waitFor(isResponse, timeouts.requestMs, from))?.message as
      ResponseMessage | undefined;
    ctx.recorder.expect(
      'daemon.transport.oversize-error',
      answer !== undefined && answer.id === null && errorCode(answer) === -33003,
      `a frame of ${body.length} bytes (limit ${max}) got ${describe(answer)}${answer ? ` with id ${JSON.stringify(answer.id)}` : ''}, expected -33003 with id null`,
    );
    if (await alive(conn, 'daemon.transport.oversize-discard'))
      ctx.recorder.pass('daemon.transport.oversize-discard');
  },
};
