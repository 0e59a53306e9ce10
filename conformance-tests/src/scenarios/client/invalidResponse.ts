/** The client never answers a message shaped as a response, even an invalid one (transport.md). */
import type { Scenario } from '../scenario.js';
import { sendInvalidResponses } from '../invalidResponses.js';
import type { ClientContext } from './context.js';
import { ready } from './scenarios.js';

/** A method no client implements: any answer (-32601) proves the client read it. */
const PROBE_METHOD = 'conformance/invalidResponseProbe';

export const invalidResponse: Scenario<ClientContext> = {
  id: 'client-invalid-response',
  role: 'client',
  title: 'responses with both result and error, a malformed error or an unusable id get no answer',
  checks: ['client.transport.invalid-response'],
  async run(ctx) {
    const check = 'client.transport.invalid-response';
    const conn = await ready(ctx);
    const problem = await sendInvalidResponses(conn, () =>
      conn.request(PROBE_METHOD, {}, { noResponseCheck: check }),
    );
    ctx.recorder.expect(check, problem === undefined, problem ?? '');
  },
};
