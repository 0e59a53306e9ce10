/**
 * `_arbor/testing/*`: deterministic turns for tests and the conformance suite.
 * Registered only when the daemon runs with `--provider scripted` or
 * `--testing`; otherwise the method is unknown (-32601), as for any client.
 */
import { Methods } from '@arbor/protocol';
import type { SessionManager } from '../../session/sessionManager.js';
import type { ClientContext } from '../clientConnection.js';
import type { MethodRouter } from '../methodRouter.js';

export function registerTestingMethods(
  router: MethodRouter<ClientContext>,
  sessions: SessionManager,
): void {
  router.onRequest(Methods.SetScript, (params) => {
    if (params.sessionId === undefined) sessions.defaultScript = params.script;
    else sessions.get(params.sessionId).script = params.script;
    return {};
  });
}
