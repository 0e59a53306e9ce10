/** The driver convention's optional message (conformance.md#conformance-driver-message). */
import { Methods } from '@arbor/protocol';
import { timeouts, type JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { DRIVER_MESSAGE, type ClientContext } from './context.js';
import { ready } from './scenarios.js';

export const driverMessage: Scenario<ClientContext> = {
  id: 'client-driver-message',
  role: 'client',
  title: 'with ARBOR_CONFORMANCE_MESSAGE set, the driver sends it with chat/send once attached',
  checks: ['client.driver.message'],
  async run(ctx) {
    const check = 'client.driver.message';
    const conn = await ready(ctx);
    const send = await conn.waitFor(
      (m) => m.kind === 'request' && (m.message as JsonObject).method === Methods.ChatSend.method,
      timeouts.requestMs,
    );
    const params = ((send?.message as JsonObject | undefined)?.params ?? {}) as JsonObject;
    ctx.recorder.expect(
      check,
      params.sessionId === ctx.sessionId && params.text === DRIVER_MESSAGE,
      send
        ? `chat/send carried ${JSON.stringify(params)}, expected session ${ctx.sessionId} and text ${JSON.stringify(DRIVER_MESSAGE)}`
        : 'the driver never sent chat/send with ARBOR_CONFORMANCE_MESSAGE',
    );
  },
};
