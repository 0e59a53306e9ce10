/**
 * Writes daemon/schema/config.schema.json and protocol-spec/spec/builtin-tools.md
 * (`npm run generate -w daemon`).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILTIN_TOOLS_DOC_PATH, buildBuiltinToolsDoc } from './builtinToolsDoc.js';
import { CONFIG_SCHEMA_PATH, buildConfigJsonSchema } from './configJsonSchema.js';

writeFileSync(CONFIG_SCHEMA_PATH, buildConfigJsonSchema());
console.log(`wrote ${fileURLToPath(CONFIG_SCHEMA_PATH)}`);
writeFileSync(BUILTIN_TOOLS_DOC_PATH, buildBuiltinToolsDoc());
console.log(`wrote ${fileURLToPath(BUILTIN_TOOLS_DOC_PATH)}`);
