/**
 * What `chat/send` refuses (turns.md#turns-send-errors), with one client:
 * an unknown session, an empty text and a text one character too long, a
 * session the client detached from, and one it watches as an observer.
 */
import { ErrorCodes, MAX_USER_MESSAGE_CHARS, Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import { type DaemonContext, describe } from './context.js';

const CHECK = 'daemon.turns.send-errors';

export const sendErrors: Scenario<DaemonContext> = {
  id: 'daemon-send-errors',
  role: 'daemon',
  title:
    'chat/send is refused for an unknown session (-33004), an empty or too long text (-32602), a detached client (-33007) and an observer (-33006)',
  checks: [CHECK],
  async run(ctx) {
    const c = await ctx.connect();
    const created = await c.conn.request(Methods.SessionNew.method, {
      workspaceRoot: ctx.workspace,
    });
    const sessionId = (created?.result as JsonObject | undefined)?.sessionId;
    if (typeof sessionId !== 'string') throw new Abort(`session/new got ${describe(created)}`);
    const wrong: string[] = [];
    const expect = async (what: string, params: JsonObject, code: number) => {
      const answer = await c.conn.request(Methods.ChatSend.method, params, { deliberate: true });
      if (answer?.error?.code !== code)
        wrong.push(`${what}: ${describe(answer)} (expected ${code})`);
    };
    await expect(
      'unknown session',
      { sessionId: 'ses_conformance_unknown', text: 'hello' },
      ErrorCodes.SessionNotFound,
    );
    await expect('empty text', { sessionId, text: '' }, ErrorCodes.InvalidParams);
    await expect(
      `text of ${MAX_USER_MESSAGE_CHARS + 1} characters`,
      { sessionId, text: 'x'.repeat(MAX_USER_MESSAGE_CHARS + 1) },
      ErrorCodes.InvalidParams,
    );
    await c.conn.request(Methods.SessionDetach.method, { sessionId });
    await expect('after session/detach', { sessionId, text: 'hello' }, ErrorCodes.NotAttached);
    await c.conn.request(Methods.SessionAttach.method, { sessionId, role: 'observer' });
    await expect('attached as observer', { sessionId, text: 'hello' }, ErrorCodes.NotController);
    ctx.recorder.expect(CHECK, wrong.length === 0, wrong.join('; '));
  },
};
