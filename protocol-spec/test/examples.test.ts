/**
 * The example corpus (protocol-spec/examples/<MethodKey>/) is part of the
 * protocol: every example is checked against the zod schema of its descriptor
 * AND against the generated JSON Schema with Ajv 2020, so clients in any
 * language can rely on the same verdicts. Valid examples must pass both,
 * invalid ones must fail both.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  METHOD_KEYS,
  ajvErrors,
  clone,
  defNameOf,
  descriptorOf,
  getAt,
  isMethodKey,
  isPlainObject,
  loadCorpus,
  examplesOf,
  schemaOf,
  validatorFor,
  zodErrors,
  type JsonPath,
} from './support.js';

const corpus = loadCorpus();

describe('examples: the corpus is complete', () => {
  it('has no misnamed or unparsable files', () => {
    assert.deepEqual(corpus.problems, []);
  });

  it('every folder names a method of Methods', () => {
    const unknown = corpus.folders.filter((f) => !isMethodKey(f));
    assert.deepEqual(unknown, [], `folders that name no key of Methods: ${unknown.join(', ')}`);
  });

  it('every method has at least one valid params example', () => {
    const missing = METHOD_KEYS.filter((k) => examplesOf(k, 'params', true).length === 0);
    assert.deepEqual(
      missing,
      [],
      `add examples/<Method>/params.valid.*.json for: ${missing.join(', ')}`,
    );
  });

  it('every request has at least one valid result example', () => {
    const missing = METHOD_KEYS.filter(
      (k) => descriptorOf(k).kind === 'request' && examplesOf(k, 'result', true).length === 0,
    );
    assert.deepEqual(
      missing,
      [],
      `add examples/<Method>/result.valid.*.json for: ${missing.join(', ')}`,
    );
  });

  it('notifications have no result examples', () => {
    const wrong = corpus.examples.filter(
      (e) =>
        isMethodKey(e.folder) &&
        e.part === 'result' &&
        descriptorOf(e.folder).kind === 'notification',
    );
    assert.deepEqual(
      wrong.map((e) => e.id),
      [],
    );
  });

  it('every method whose params have a required field has an invalid params example', () => {
    const missing = METHOD_KEYS.filter((k) => {
      const requiresSomething = !descriptorOf(k).params.safeParse({}).success;
      return requiresSomething && examplesOf(k, 'params', false).length === 0;
    });
    assert.deepEqual(
      missing,
      [],
      `add examples/<Method>/params.invalid.*.json for: ${missing.join(', ')}`,
    );
  });
});

describe('examples: every example gets the same verdict from zod and the JSON Schema', () => {
  for (const ex of corpus.examples) {
    const verdict = ex.valid ? 'is accepted' : 'is rejected';
    it(`${ex.id} ${verdict} by zod and by Ajv`, () => {
      assert.ok(isMethodKey(ex.folder), `examples/${ex.folder} names no method`);
      const d = descriptorOf(ex.folder);
      const schema = schemaOf(d, ex.part);
      assert.ok(schema, `${ex.folder} is a notification: it has no result`);
      const parsed = schema.safeParse(clone(ex.value));
      const validate = validatorFor(defNameOf(ex.folder, ex.part));
      const ajvOk = validate(clone(ex.value));
      if (ex.valid) {
        assert.ok(
          parsed.success,
          `zod rejects ${ex.id}: ${parsed.error ? zodErrors(parsed.error) : ''}`,
        );
        assert.ok(ajvOk, `the JSON Schema rejects ${ex.id}: ${ajvErrors(validate)}`);
      } else {
        assert.ok(!parsed.success, `zod accepts the invalid example ${ex.id}`);
        assert.ok(!ajvOk, `the JSON Schema accepts the invalid example ${ex.id}`);
      }
    });
  }
});

/** A JSON value with a subtree replaced (or an object key deleted) at `path`. */
function mutate(value: unknown, path: JsonPath, replacement: unknown, remove: boolean): unknown {
  if (path.length === 0) return replacement;
  const copy = clone(value);
  const parent = getAt(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (remove && !Array.isArray(parent)) delete parent[last];
  else parent[last] = replacement;
  return copy;
}

function allPaths(value: unknown, path: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [path];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...allPaths(v, [...path, i])));
  else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) out.push(...allPaths(v, [...path, k]));
  }
  return out;
}

describe('examples: zod and the JSON Schema agree beyond the corpus', () => {
  const valid = corpus.examples.filter((e) => e.valid && isMethodKey(e.folder));

  it('any valid example with one subtree replaced or removed gets the same verdict from both', () => {
    const cases = valid.flatMap((ex) => allPaths(ex.value).map((path) => ({ ex, path })));
    fc.assert(
      fc.property(
        fc.constantFrom(...cases),
        fc.jsonValue({ maxDepth: 2 }),
        fc.boolean(),
        ({ ex, path }, replacement, remove) => {
          if (!isMethodKey(ex.folder)) return;
          const schema = schemaOf(descriptorOf(ex.folder), ex.part)!;
          const mutated = mutate(ex.value, path, replacement, remove);
          const validate = validatorFor(defNameOf(ex.folder, ex.part));
          const zodOk = schema.safeParse(clone(mutated)).success;
          const ajvOk = validate(clone(mutated));
          assert.equal(
            ajvOk,
            zodOk,
            `${ex.id} at /${path.join('/')}: zod says ${zodOk}, the JSON Schema says ${ajvOk} for ` +
              JSON.stringify(mutated).slice(0, 400),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});
