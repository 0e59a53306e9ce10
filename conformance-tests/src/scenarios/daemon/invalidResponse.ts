/** The daemon never answers a message shaped as a response, even an invalid one (transport.md). */
import { Methods } from '@arbor/protocol';
import type { Scenario } from '../scenario.js';
import { sendInvalidResponses } from '../invalidResponses.js';
import type { DaemonContext } from './context.js';

export const invalidResponse: Scenario<DaemonContext> = {
  id: 'daemon-invalid-response',
  role: 'daemon',
  title: 'responses with both result and error, a malformed error or an unusable id get no answer',
  checks: ['daemon.jsonrpc.invalid-response'],
  async run(ctx) {
    const check = 'daemon.jsonrpc.invalid-response';
    const { conn } = await ctx.connect();
    const problem = await sendInvalidResponses(conn, () =>
      conn.request(Methods.SessionList.method, {}, { noResponseCheck: check }),
    );
    ctx.recorder.expect(check, problem === undefined, problem ?? '');
  },
};
