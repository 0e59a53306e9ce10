/**
 * The generated artifacts (schema/arbor-protocol.schema.json, schema/meta-model.json)
 * are checked in. They must equal what `npm run generate` would write now, the
 * meta-model must list every descriptor once, and every `$ref` must resolve.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ALL_METHODS, Methods } from '../src/index.js';
import { SCHEMA_ID, buildJsonSchema, buildMetaModel, serialize } from '../scripts/artifacts.js';
import {
  META_MODEL_PATH,
  METHOD_KEYS,
  SCHEMA_PATH,
  defNameOfRef,
  isPlainObject,
  jsonSchema,
  makeAjv,
  metaModel,
} from './support.js';

/** A failure message that says what to do and where the first difference is. */
function staleMessage(file: string, actual: string, expected: string): string {
  const a = actual.split('\n');
  const e = expected.split('\n');
  let i = 0;
  while (i < Math.max(a.length, e.length) && a[i] === e[i]) i++;
  return (
    `protocol-spec/schema/${file} is stale: run \`npm run generate\` and commit the result.\n` +
    `First difference at line ${i + 1}:\n  checked in: ${a[i] ?? '<end of file>'}\n  generated:  ${e[i] ?? '<end of file>'}`
  );
}

describe('generated artifacts are up to date', () => {
  it('schema/arbor-protocol.schema.json equals a fresh buildJsonSchema()', () => {
    const actual = readFileSync(SCHEMA_PATH, 'utf8');
    const expected = serialize(buildJsonSchema());
    assert.ok(actual === expected, staleMessage('arbor-protocol.schema.json', actual, expected));
  });

  it('schema/meta-model.json equals a fresh buildMetaModel()', () => {
    const actual = readFileSync(META_MODEL_PATH, 'utf8');
    const expected = serialize(buildMetaModel());
    assert.ok(actual === expected, staleMessage('meta-model.json', actual, expected));
  });

  it('the stale check notices a change (it is not comparing a file with itself)', () => {
    const fresh = serialize(buildJsonSchema());
    const tampered = fresh.replace('"minLength": 1', '"minLength": 2');
    assert.notEqual(tampered, fresh);
    assert.match(staleMessage('x.json', tampered, fresh), /run `npm run generate`/);
  });
});

describe('the meta-model', () => {
  it('lists every descriptor exactly once, in the order of Methods', () => {
    assert.deepEqual(
      metaModel.methods.map((m) => m.name),
      METHOD_KEYS,
    );
    assert.deepEqual(
      metaModel.methods.map((m) => m.method),
      ALL_METHODS.map((d) => d.method),
    );
    const counts = new Map<string, number>();
    for (const m of metaModel.methods) counts.set(m.method, (counts.get(m.method) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n !== 1).map(([m]) => m);
    assert.deepEqual(twice, [], `methods listed more than once: ${twice.join(', ')}`);
  });

  it('describes each method as its descriptor does', () => {
    for (const m of metaModel.methods) {
      const d = Methods[m.name as keyof typeof Methods];
      assert.ok(d, `meta-model names ${m.name}, which is not in Methods`);
      assert.equal(m.method, d.method);
      assert.equal(m.direction, d.direction, `${m.name}.direction`);
      assert.equal(m.kind, d.kind, `${m.name}.kind`);
      assert.equal(m.capability, d.capability, `${m.name}.capability`);
      assert.equal(m.since, d.since, `${m.name}.since`);
      assert.equal(m.spec, `spec/${d.specRef}`, `${m.name}.spec`);
      assert.equal(
        m.result !== undefined,
        d.kind === 'request',
        `${m.name}: a result ref iff a request`,
      );
    }
  });

  it('points params and result at $defs that exist in the generated schema', () => {
    for (const m of metaModel.methods) {
      for (const ref of [m.params, m.result]) {
        if (ref === undefined) continue;
        const name = defNameOfRef(ref);
        assert.ok(name in jsonSchema.$defs, `${m.name}: ${ref} does not exist`);
      }
    }
  });
});

/** Every `$ref` in a JSON document, with where it sits. */
function collectRefs(node: unknown, at = '#'): { at: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((v, i) => collectRefs(v, `${at}/${i}`));
  if (!isPlainObject(node)) return [];
  const out: { at: string; ref: string }[] = [];
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') out.push({ at, ref: v });
    else out.push(...collectRefs(v, `${at}/${k}`));
  }
  return out;
}

function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let node = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return undefined;
  }
  return node;
}

describe('the generated JSON Schema', () => {
  it('is a 2020-12 schema with the published $id', () => {
    const s = jsonSchema as unknown as Record<string, unknown>;
    assert.equal(s.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(s.$id, SCHEMA_ID);
  });

  it('has refs at all (the resolution check below is not vacuous)', () => {
    assert.ok(collectRefs(jsonSchema).length > 20);
  });

  it('every $ref resolves inside the document', () => {
    const broken = collectRefs(jsonSchema)
      .filter(({ ref }) => {
        const hash = ref.indexOf('#');
        const base = ref.slice(0, hash);
        if (hash < 0 || (base !== '' && base !== SCHEMA_ID)) return true;
        return resolvePointer(jsonSchema, ref.slice(hash + 1)) === undefined;
      })
      .map(({ at, ref }) => `${at}: ${ref}`);
    assert.deepEqual(broken, [], `unresolvable $refs:\n${broken.join('\n')}`);
  });

  it('every $def compiles in Ajv 2020 strict mode', () => {
    const ajv = makeAjv();
    for (const name of Object.keys(jsonSchema.$defs)) {
      assert.doesNotThrow(
        () => ajv.compile({ $ref: `${SCHEMA_ID}#/$defs/${name}` }),
        `$defs/${name} does not compile`,
      );
    }
  });
});
