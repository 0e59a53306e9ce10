/** checkpoint/* methods (checkpoints.md): thin adapters from validated params to the session. */
import { Methods } from '@arbor/protocol';
import type { SessionManager } from '../../session/sessionManager.js';
import type { ClientContext } from '../clientConnection.js';
import type { MethodRouter } from '../methodRouter.js';

export function registerCheckpointMethods(
  router: MethodRouter<ClientContext>,
  sessions: SessionManager,
): void {
  router
    .onRequest(Methods.CheckpointRestore, (params, client) =>
      sessions
        .get(params.sessionId)
        .restoreCheckpoint(client.clientId, params.turnId, params.force),
    )
    .onRequest(Methods.CheckpointDiff, (params) =>
      sessions.get(params.sessionId).checkpointDiff(params.turnId, params.path),
    );
}
