/**
 * commands/list (commands.md#commands-list): the session reads its command
 * and skill folders now and answers; -33004 for an unknown session.
 * Attachment is not required: a client lists before it picks a session.
 */
import { Methods } from '@arbor/protocol';
import type { SessionManager } from '../../session/sessionManager.js';
import type { ClientContext } from '../clientConnection.js';
import type { MethodRouter } from '../methodRouter.js';

export function registerCommandsMethods(
  router: MethodRouter<ClientContext>,
  sessions: SessionManager,
): void {
  router.onRequest(Methods.CommandsList, (params) => ({
    commands: sessions.get(params.sessionId).commands?.list() ?? [],
  }));
}
