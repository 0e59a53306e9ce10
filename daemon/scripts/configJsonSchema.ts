/** The config file's JSON Schema, derived from the zod schema (single source). */
import { z } from 'zod';
import { ConfigFile } from '../src/config/configSchema.js';

export function buildConfigJsonSchema(): string {
  const schema = z.toJSONSchema(ConfigFile, { io: 'input', target: 'draft-2020-12' });
  return JSON.stringify({ title: 'Arbor daemon configuration', ...schema }, null, 2) + '\n';
}

export const CONFIG_SCHEMA_PATH = new URL('../schema/config.schema.json', import.meta.url);
