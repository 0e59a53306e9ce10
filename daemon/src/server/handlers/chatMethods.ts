/** chat/send and chat/cancel: start and stop turns (controllers only). */
import { Methods } from '@arbor/protocol';
import type { SessionManager } from '../../session/sessionManager.js';
import type { ClientContext } from '../clientConnection.js';
import type { MethodRouter } from '../methodRouter.js';

export function registerChatMethods(
  router: MethodRouter<ClientContext>,
  sessions: SessionManager,
): void {
  router
    .onRequest(Methods.ChatSend, (params, client) => {
      const turn = sessions
        .get(params.sessionId)
        .startTurn(client.clientId, params.text, params.budgets);
      // `{turnId}` goes out first; session/state running and the turn follow.
      client.afterReply(turn.begin);
      return { turnId: turn.turnId };
    })
    .onRequest(Methods.ChatCancel, (params, client) => ({
      cancelled: sessions.get(params.sessionId).cancelTurn(client.clientId, params.turnId),
    }));
}
