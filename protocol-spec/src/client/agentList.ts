/** `agents/list` (agents.md#agents-list): the profiles a new chat may pick. */
import type { AgentsListResult } from '../agents.js';
import { Methods } from '../methods.js';
import type { ArborClient } from './arborClient.js';

/**
 * The agent profiles a new session of `workspaceRoot` may run with, and the
 * workspace's profile files that cannot be used; none when the daemon has no
 * profiles (no `capabilities.agents`).
 */
export async function listAgents(
  client: ArborClient,
  workspaceRoot?: string,
): Promise<AgentsListResult> {
  const capability = Methods.AgentsList.capability;
  if (capability && !client.hasCapability(capability)) return { agents: [] };
  return client.request(Methods.AgentsList, workspaceRoot === undefined ? {} : { workspaceRoot });
}
