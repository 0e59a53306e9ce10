/**
 * tools/list (tools.md#tools-list): the catalogue answers; this adapter finds
 * the session (-33004 when unknown) and names the requesting client, whose
 * client tools a turn it started would get. Attachment is not required.
 */
import { Methods } from '@arbor/protocol';
import { asClientPeer } from '../../session/clientPeer.js';
import type { SessionManager } from '../../session/sessionManager.js';
import type { ToolCatalogueSource } from '../../tools/catalogue.js';
import type { ClientContext } from '../clientConnection.js';
import type { MethodRouter } from '../methodRouter.js';

export function registerToolsMethods(
  router: MethodRouter<ClientContext>,
  sessions: SessionManager,
  source: ToolCatalogueSource,
): void {
  router.onRequest(Methods.ToolsList, async (params, client) => {
    const { sessionId } = params;
    // An unknown session fails before the agent is loaded for it.
    if (sessionId !== undefined) sessions.get(sessionId);
    const catalogue = await source.load();
    if (sessionId === undefined) return { tools: catalogue.builtins() };
    // Read again after the load: the mode may have changed, the session may be gone.
    const live = sessions.get(sessionId);
    const session = live.describe();
    const agent = live.agentProfile();
    return catalogue.forSession({
      sessionId: session.sessionId,
      workspaceRoot: session.workspaceRoot,
      chatContext: session.chatContext,
      permissionMode: session.permissionMode,
      sender: asClientPeer(client.subscriber),
      ...(agent && { agent }),
    });
  });
}
