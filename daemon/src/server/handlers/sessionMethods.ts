/** session/* methods: thin adapters from validated params to the SessionManager. */
import { Methods } from '@arbor/protocol';
import { rpcErrors } from '../../rpcError.js';
import type { SessionManager } from '../../session/sessionManager.js';
import type { ClientContext } from '../clientConnection.js';
import type { MethodRouter } from '../methodRouter.js';
import { resultForClient } from '../v1Events.js';

export function registerSessionMethods(
  router: MethodRouter<ClientContext>,
  sessions: SessionManager,
): void {
  router
    .onRequest(Methods.SessionNew, (params, client) => {
      const session = sessions.create(params);
      // The creator is attached as controller and sees every event from seq 1.
      const attached = session.attach(client.subscriber, 'controller', undefined);
      client.afterReply(attached.release);
      return session.describe();
    })
    .onRequest(Methods.SessionList, (params) => sessions.list(params))
    .onRequest(Methods.SessionLoad, (params, client) =>
      resultForClient(sessions.load(params.sessionId), client.capabilities),
    )
    .onRequest(Methods.SessionDelete, async (params) => {
      await sessions.delete(params.sessionId);
      return {};
    })
    .onRequest(Methods.SessionAttach, (params, client) => {
      const session = sessions.get(params.sessionId);
      const attached = session.attach(client.subscriber, params.role, params.sinceSeq);
      client.afterReply(attached.release);
      return {
        session: session.describe(),
        role: attached.role,
        lastSeq: attached.lastSeq,
        replay: attached.replay,
        ...(attached.snapshot && {
          snapshot: resultForClient(attached.snapshot, client.capabilities),
        }),
      };
    })
    .onRequest(Methods.SessionDetach, (params, client) => {
      const session = sessions.get(params.sessionId);
      if (!session.detach(client.clientId)) {
        throw rpcErrors.notAttached(params.sessionId);
      }
      return {};
    })
    .onRequest(Methods.SessionSetPermissionMode, (params, client) => ({
      mode: sessions.get(params.sessionId).setPermissionMode(client.clientId, params.mode),
    }))
    .onRequest(Methods.SessionSetModel, (params, client) => ({
      model: sessions.get(params.sessionId).setModel(client.clientId, params.model),
    }));
}
