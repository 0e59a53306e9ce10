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
    // The budgets go with the script: a later setScript without them restores the daemon's limits.
    if (params.sessionId === undefined) {
      sessions.defaultScript = params.script;
      sessions.defaultScriptBudgets = params.budgets;
    } else {
      const session = sessions.get(params.sessionId);
      session.script = params.script;
      session.scriptBudgets = params.budgets;
    }
    return {};
  });
}
