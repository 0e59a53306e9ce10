/**
 * Shared helpers of the protocol-spec tests: where things are, the example
 * corpus, an Ajv 2020 instance loaded with the checked-in JSON Schema, and a
 * small walker over zod schemas.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { z } from 'zod';
import { Methods, type MethodDescriptor } from '../src/index.js';

export const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));
export const REPO_DIR = fileURLToPath(new URL('../../', import.meta.url));
export const EXAMPLES_DIR = PACKAGE_DIR + 'examples/';
export const SCHEMA_PATH = PACKAGE_DIR + 'schema/arbor-protocol.schema.json';
export const META_MODEL_PATH = PACKAGE_DIR + 'schema/meta-model.json';
export const SPEC_DIR = PACKAGE_DIR + 'spec/';

export type MethodKey = keyof typeof Methods;
export type Part = 'params' | 'result';
export const METHOD_KEYS = Object.keys(Methods) as MethodKey[];

export function descriptorOf(key: MethodKey): MethodDescriptor {
  return Methods[key];
}

export function isMethodKey(name: string): name is MethodKey {
  return Object.prototype.hasOwnProperty.call(Methods, name);
}

/** The zod schema of a descriptor's params or result (undefined: a notification's result). */
export function schemaOf(d: MethodDescriptor, part: Part): z.ZodType | undefined {
  if (part === 'params') return d.params;
  return d.kind === 'request' ? d.result : undefined;
}

// ---------------------------------------------------------------- examples

/** `params.valid.some-name.json`, `result.invalid.other-name.json`. */
export const EXAMPLE_FILE = /^(params|result)\.(valid|invalid)\.([a-z0-9]+(?:-[a-z0-9]+)*)\.json$/;

export interface Example {
  /** Folder name, a key of `Methods` (checked by the examples test). */
  readonly folder: string;
  readonly file: string;
  /** `folder/file`, for test titles and messages. */
  readonly id: string;
  readonly part: Part;
  readonly valid: boolean;
  readonly value: unknown;
}

export interface Corpus {
  readonly folders: string[];
  readonly examples: Example[];
  /** Files that are not named like an example or are not JSON: each is an error. */
  readonly problems: string[];
}

let corpus: Corpus | undefined;

/** Reads every example once. Misnamed or unparsable files are reported, never skipped. */
export function loadCorpus(): Corpus {
  if (corpus) return corpus;
  const folders: string[] = [];
  const examples: Example[] = [];
  const problems: string[] = [];
  for (const entry of readdirSync(EXAMPLES_DIR).sort()) {
    if (!statSync(EXAMPLES_DIR + entry).isDirectory()) {
      problems.push(`examples/${entry}: only method folders belong in examples/`);
      continue;
    }
    folders.push(entry);
    for (const file of readdirSync(EXAMPLES_DIR + entry).sort()) {
      const id = `${entry}/${file}`;
      const m = EXAMPLE_FILE.exec(file);
      if (!m) {
        problems.push(
          `examples/${id}: not named (params|result).(valid|invalid).<kebab-name>.json`,
        );
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(readFileSync(`${EXAMPLES_DIR}${id}`, 'utf8')) as unknown;
      } catch (e) {
        problems.push(`examples/${id}: not JSON (${(e as Error).message})`);
        continue;
      }
      examples.push({
        folder: entry,
        file,
        id,
        part: m[1] as Part,
        valid: m[2] === 'valid',
        value,
      });
    }
  }
  corpus = { folders, examples, problems };
  return corpus;
}

export function examplesOf(folder: string, part: Part, valid: boolean): Example[] {
  return loadCorpus().examples.filter(
    (e) => e.folder === folder && e.part === part && e.valid === valid,
  );
}

/** The first valid example of a method's params or result; throws when there is none. */
export function firstValid(key: MethodKey, part: Part): unknown {
  const e = examplesOf(key, part, true)[0];
  if (!e) throw new Error(`examples/${key} has no ${part}.valid.*.json`);
  return clone(e.value);
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------- JSON Schema

export interface MetaModelMethod {
  name: string;
  method: string;
  direction: string;
  kind: string;
  capability: string | null;
  since: number;
  summary: string;
  spec: string;
  params: string;
  result?: string;
}
export interface MetaModel {
  protocolVersion: number;
  packageVersion: string;
  methods: MetaModelMethod[];
}

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

export const jsonSchema = readJson(SCHEMA_PATH) as { $id: string; $defs: Record<string, unknown> };
export const metaModel = readJson(META_MODEL_PATH) as MetaModel;

/** `arbor-protocol.schema.json#/$defs/SessionNewParams` -> `SessionNewParams`. */
export function defNameOfRef(ref: string): string {
  const m = /^arbor-protocol\.schema\.json#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref);
  if (!m?.[1])
    throw new Error(`meta-model ref ${ref} is not arbor-protocol.schema.json#/$defs/<Name>`);
  return m[1];
}

/** The `$defs` name the meta-model gives a method's params or result. */
export function defNameOf(key: MethodKey, part: Part): string {
  const entry = metaModel.methods.find((m) => m.name === key);
  if (!entry) throw new Error(`meta-model.json has no method ${key} (run npm run generate)`);
  const ref = part === 'params' ? entry.params : entry.result;
  if (!ref) throw new Error(`meta-model.json: ${key} has no ${part} ref`);
  return defNameOfRef(ref);
}

/** Ajv 2020 in strict mode, with formats, holding the checked-in generated schema. */
export function makeAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  ajv.addSchema(jsonSchema);
  return ajv;
}

const validators = new Map<string, ValidateFunction>();
let sharedAjv: Ajv2020 | undefined;

/** A compiled validator for `$defs/<name>` of the generated schema. */
export function validatorFor(defName: string): ValidateFunction {
  let v = validators.get(defName);
  if (!v) {
    sharedAjv ??= makeAjv();
    v = sharedAjv.compile({ $ref: `${jsonSchema.$id}#/$defs/${defName}` });
    validators.set(defName, v);
  }
  return v;
}

export function ajvErrors(v: ValidateFunction): string {
  return (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
}

export function zodErrors(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '/'}: ${i.message}`).join('; ');
}

// ---------------------------------------------------------------- zod walking

/** Strips optional / nullable / default / readonly wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodReadonly) {
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodDefault || s instanceof z.ZodPrefault) {
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodNonOptional) {
      s = s.unwrap() as z.ZodType;
    } else if (isObjectOrEmptyArray(s)) {
      s = s.options[0] as z.ZodType;
    } else {
      return s;
    }
  }
}

/** `objectOrEmptyArray(object)` of base.ts: the object, or `[]` piped into it. */
function isObjectOrEmptyArray(s: z.ZodType): s is z.ZodUnion<[z.ZodObject, z.ZodPipe]> {
  return (
    s instanceof z.ZodUnion &&
    s.options.length === 2 &&
    s.options[0] instanceof z.ZodObject &&
    s.options[1] instanceof z.ZodPipe
  );
}

export type AnyObject = z.ZodObject<z.ZodRawShape>;

/** Whether an object with this field schema rejects the field's absence (behavioural, no internals). */
export function isRequiredField(field: z.ZodType): boolean {
  return !z.object({ field }).safeParse({}).success;
}

/** The keys an object schema requires on input, sorted. */
export function requiredKeys(object: AnyObject): string[] {
  return Object.entries(object.shape)
    .filter(([, s]) => isRequiredField(s as z.ZodType))
    .map(([k]) => k)
    .sort();
}

/** The object schema behind a (possibly wrapped) schema, if it is one. */
export function asObject(schema: z.ZodType): AnyObject | undefined {
  const s = unwrap(schema);
  return s instanceof z.ZodObject ? (s as AnyObject) : undefined;
}

/** Every object schema reachable from `schema`, with a readable path. */
export function reachableObjects(
  schema: z.ZodType,
  path = '',
  seen = new Set<z.ZodType>(),
): { path: string; schema: AnyObject }[] {
  const s = unwrap(schema);
  if (seen.has(s)) return [];
  seen.add(s);
  const out: { path: string; schema: AnyObject }[] = [];
  if (s instanceof z.ZodObject) {
    const obj = s as AnyObject;
    out.push({ path: path || '(root)', schema: obj });
    for (const [k, v] of Object.entries(obj.shape)) {
      out.push(...reachableObjects(v as z.ZodType, `${path}.${k}`, seen));
    }
  } else if (s instanceof z.ZodArray) {
    out.push(...reachableObjects(s.element as z.ZodType, `${path}[]`, seen));
  } else if (s instanceof z.ZodUnion) {
    s.options.forEach((o, i) =>
      out.push(...reachableObjects(o as z.ZodType, `${path}|${i}`, seen)),
    );
  } else if (s instanceof z.ZodRecord) {
    out.push(...reachableObjects(s.valueType as z.ZodType, `${path}{}`, seen));
  }
  return out;
}

export type JsonPath = (string | number)[];

/**
 * Paths inside `value` that the schema reads as a zod object (not a record, not
 * free-form `unknown`): the places where the spec's "unknown fields are
 * ignored" applies. Each comes with the keys that object schema knows.
 */
export function objectPositions(
  schema: z.ZodType,
  value: unknown,
  path: JsonPath = [],
): { path: JsonPath; known: Set<string> }[] {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject && isPlainObject(value)) {
    const shape = (s as AnyObject).shape;
    const out = [{ path, known: new Set(Object.keys(shape)) }];
    for (const [k, sub] of Object.entries(shape)) {
      if (k in value) out.push(...objectPositions(sub as z.ZodType, value[k], [...path, k]));
    }
    return out;
  }
  if (s instanceof z.ZodArray && Array.isArray(value)) {
    return value.flatMap((v, i) => objectPositions(s.element as z.ZodType, v, [...path, i]));
  }
  if (s instanceof z.ZodRecord && isPlainObject(value)) {
    return Object.entries(value).flatMap(([k, v]) =>
      objectPositions(s.valueType as z.ZodType, v, [...path, k]),
    );
  }
  if (s instanceof z.ZodUnion) {
    // The option zod would pick: the first that accepts the value.
    const option = s.options.find((o) => (o as z.ZodType).safeParse(value).success);
    return option ? objectPositions(option as z.ZodType, value, path) : [];
  }
  return [];
}

export function getAt(value: unknown, path: JsonPath): unknown {
  let v = value;
  for (const p of path) v = (v as Record<string | number, unknown>)[p];
  return v;
}

// ---------------------------------------------------------------- files

/** Every .ts/.tsx file under `dir` (absolute), skipping node_modules and dist; [] if absent. */
export function tsFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const p = `${dir}/${entry}`;
    if (statSync(p).isDirectory()) out.push(...tsFilesUnder(p));
    else if (/\.tsx?$/.test(entry) && !entry.endsWith('.d.ts')) out.push(p);
  }
  return out;
}
