/** Writes daemon/schema/config.schema.json (`npm run generate -w daemon`). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_SCHEMA_PATH, buildConfigJsonSchema } from './configJsonSchema.js';

writeFileSync(CONFIG_SCHEMA_PATH, buildConfigJsonSchema());
console.log(`wrote ${fileURLToPath(CONFIG_SCHEMA_PATH)}`);
