/**
 * agents/list (agents.md#agents-list): the config's profiles, and with a
 * workspaceRoot the workspace's over them, read now, with the workspace
 * files that cannot be used. No session is needed: a client lists before it
 * creates one.
 */
import { Methods } from '@arbor/protocol';
import { agentInfo, type AgentProfiles } from '../../agents/agentProfiles.js';
import { checkWorkspaceRoot } from '../../session/sessionManager.js';
import type { ClientContext } from '../clientConnection.js';
import type { MethodRouter } from '../methodRouter.js';

export function registerAgentsMethods(
  router: MethodRouter<ClientContext>,
  agents: AgentProfiles,
): void {
  router.onRequest(Methods.AgentsList, (params) => {
    const root =
      params.workspaceRoot === undefined ? undefined : checkWorkspaceRoot(params.workspaceRoot);
    const { profiles, errors } = agents.list(root);
    return { agents: profiles.map(agentInfo), ...(errors.length > 0 && { errors }) };
  });
}
