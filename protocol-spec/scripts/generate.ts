/** Writes protocol-spec/schema/*.json from the zod schemas (`npm run generate`). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildJsonSchema, buildMetaModel, serialize } from './artifacts.js';

const dir = fileURLToPath(new URL('../schema/', import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(dir + 'arbor-protocol.schema.json', serialize(buildJsonSchema()));
writeFileSync(dir + 'meta-model.json', serialize(buildMetaModel()));
console.log(`wrote ${dir}arbor-protocol.schema.json and meta-model.json`);
