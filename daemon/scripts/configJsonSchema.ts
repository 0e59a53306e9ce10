/** The config file's and the workspace settings file's JSON Schemas, derived from the zod schemas (single source). */
import { z } from 'zod';
import { ConfigFile } from '../src/config/configSchema.js';
import { WorkspaceSettings } from '../src/permissions/rules/ruleLists.js';
import { AgentProfileFile } from '../src/agents/agentProfiles.js';

export function buildConfigJsonSchema(): string {
  const schema = z.toJSONSchema(ConfigFile, { io: 'input', target: 'draft-2020-12' });
  return JSON.stringify({ title: 'Arbor daemon configuration', ...schema }, null, 2) + '\n';
}

export const CONFIG_SCHEMA_PATH = new URL('../schema/config.schema.json', import.meta.url);

/** `.arbor/settings.json` of a workspace (permission rules). */
export function buildWorkspaceSettingsJsonSchema(): string {
  const schema = z.toJSONSchema(WorkspaceSettings, { io: 'input', target: 'draft-2020-12' });
  return JSON.stringify({ title: 'Arbor workspace settings', ...schema }, null, 2) + '\n';
}

export const WORKSPACE_SETTINGS_SCHEMA_PATH = new URL(
  '../schema/workspace-settings.schema.json',
  import.meta.url,
);

/** `.arbor/agents/<name>.json` of a workspace: one agent profile. */
export function buildAgentProfileJsonSchema(): string {
  const schema = z.toJSONSchema(AgentProfileFile, { io: 'input', target: 'draft-2020-12' });
  return JSON.stringify({ title: 'Arbor agent profile', ...schema }, null, 2) + '\n';
}

export const AGENT_PROFILE_SCHEMA_PATH = new URL(
  '../schema/agent-profile.schema.json',
  import.meta.url,
);
