/**
 * The baseline of the ACP streaming benchmark (acpStreaming.ts): the ACP
 * SDK's own agent side, with no Arbor in it, over its stdin/stdout.
 *
 * - `initialize`: answered at once.
 * - `session/new`: a fresh session id; nothing else.
 * - `session/prompt`: the prompt's text is the delta count. It sends that many
 *   `agent_message_chunk` updates, one per delta, with the same text the
 *   scripted provider streams (support.ts `deltaText`). It awaits each
 *   `notify`, as a streaming agent loop that respects the writer does, then
 *   answers `end_turn`. Every update is written before the response.
 *
 * Run by the parent as `node --import tsx bench/acpBaselineAgent.ts`; never on its own.
 */
import { Readable, Writable } from 'node:stream';
import {
  PROTOCOL_VERSION,
  RequestError,
  agent,
  methods,
  ndJsonStream,
} from '@agentclientprotocol/sdk';
import { deltaText } from './support.js';

let sessions = 0;

const connection = agent({ name: 'acp-bench-baseline' })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {},
    agentInfo: { name: 'acp-bench-baseline', version: '0.0.0' },
    authMethods: [],
  }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: `s_baseline_${++sessions}` }))
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const first = params.prompt[0];
    const count = first?.type === 'text' ? Number(first.text) : NaN;
    if (!Number.isInteger(count) || count < 1)
      throw RequestError.invalidParams(undefined, 'the prompt is the delta count');
    for (let i = 0; i < count; i++) {
      await client.notify(methods.client.session.update, {
        sessionId: params.sessionId,
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: deltaText(i) },
        },
      });
    }
    return { stopReason: 'end_turn' };
  })
  .connect(
    ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    ),
  );

await connection.closed;
