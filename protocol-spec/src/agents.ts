/**
 * Agent profiles (protocol 1.1): named sets of instructions, models, tools
 * and limits a session runs with (`session/new` `agent`). `agents/list`
 * names the profiles a new session of a workspace may pick, and the profile
 * files that cannot be used, so a client can offer the one and show the other.
 */
import { z } from 'zod';
import { message } from './base.js';
import { request } from './descriptor.js';

/** A profile's name: a config key or the base name of `.arbor/agents/<name>.json`. */
export const AgentName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,63}$/,
    'agent names are 1-64 lower-case letters, digits, ".", "_" and "-", starting with a letter or digit',
  );
export type AgentName = z.infer<typeof AgentName>;

export const AgentSource = z
  .enum(['config', 'workspace'])
  .describe("config: the daemon's configuration; workspace: the workspace's .arbor/agents/ folder");
export type AgentSource = z.infer<typeof AgentSource>;

export const AgentInfo = message({
  name: AgentName,
  description: z.string().max(500).optional().describe('What the agent is for, shown in pickers'),
  source: AgentSource,
  model: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe("The profile's model (provider:model), used when the session chose none"),
  planning: z.boolean().describe('Its turns run a planner pre-pass before the executor'),
  parallelSubagents: z
    .number()
    .int()
    .min(1)
    .max(7)
    .optional()
    .describe('Present when the agent may run several subtasks at once: at most this many'),
}).describe('An agent profile a session may run with');
export type AgentInfo = z.infer<typeof AgentInfo>;

export const AgentFileError = message({
  file: z.string().min(1).describe('The profile file, relative to the workspace root'),
  message: z.string().min(1).max(4000).describe('Why it cannot be used'),
}).describe('A workspace profile file that is not a usable profile');
export type AgentFileError = z.infer<typeof AgentFileError>;

export const AgentsListParams = message({
  workspaceRoot: z
    .string()
    .min(1)
    .optional()
    .describe("Also list this workspace's profiles; absent: the daemon's own only"),
});
export const AgentsListResult = message({
  agents: z
    .array(AgentInfo)
    .max(1000)
    .describe('Sorted by name, names unique; a workspace profile hides a config one of its name'),
  errors: z
    .array(AgentFileError)
    .max(1000)
    .optional()
    .describe('Profile files of the workspace that cannot be used, each with why'),
});
export type AgentsListResult = z.infer<typeof AgentsListResult>;

export const AgentsList = request({
  method: 'agents/list',
  direction: 'clientToDaemon',
  params: AgentsListParams,
  result: AgentsListResult,
  capability: 'daemon.agents',
  summary: 'Lists the agent profiles a new session (of a workspace) may run with.',
  specRef: 'agents.md#agents-list',
});
