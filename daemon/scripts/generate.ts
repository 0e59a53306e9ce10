/**
 * Writes daemon/schema/config.schema.json, daemon/schema/workspace-settings.schema.json,
 * daemon/schema/agent-profile.schema.json
 * and protocol-spec/spec/builtin-tools.md (`npm run generate -w daemon`).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILTIN_TOOLS_DOC_PATH, buildBuiltinToolsDoc } from './builtinToolsDoc.js';
import {
  AGENT_PROFILE_SCHEMA_PATH,
  CONFIG_SCHEMA_PATH,
  WORKSPACE_SETTINGS_SCHEMA_PATH,
  buildAgentProfileJsonSchema,
  buildConfigJsonSchema,
  buildWorkspaceSettingsJsonSchema,
} from './configJsonSchema.js';

for (const [path, text] of [
  [CONFIG_SCHEMA_PATH, buildConfigJsonSchema()],
  [WORKSPACE_SETTINGS_SCHEMA_PATH, buildWorkspaceSettingsJsonSchema()],
  [AGENT_PROFILE_SCHEMA_PATH, buildAgentProfileJsonSchema()],
] as const) {
  writeFileSync(path, text);
  console.log(`wrote ${fileURLToPath(path)}`);
}
writeFileSync(BUILTIN_TOOLS_DOC_PATH, buildBuiltinToolsDoc());
console.log(`wrote ${fileURLToPath(BUILTIN_TOOLS_DOC_PATH)}`);
