/**
 * Behaviour of the schemas, as the spec states it: wrong types, missing
 * required fields and unknown values of closed enums are rejected; unknown
 * extra fields are ignored (stripped) and `_meta` may ride on every object;
 * defaults fill what a client may omit.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { z } from 'zod';
import {
  ApprovalDecision,
  ApprovalOutcome,
  BudgetKind,
  ChatContext,
  ExecutionTreeNode,
  Methods,
  NodeStatus,
  PREVIEW_MAX_CHARS,
  PermissionMode,
  StopReason,
  ToolCategory,
  Usage,
} from '../src/index.js';
import {
  METHOD_KEYS,
  asObject,
  clone,
  defNameOf,
  descriptorOf,
  examplesOf,
  firstValid,
  getAt,
  isMethodKey,
  isPlainObject,
  jsonSchema,
  loadCorpus,
  objectPositions,
  reachableObjects,
  requiredKeys,
  schemaOf,
  validatorFor,
  type JsonPath,
  type MethodKey,
  type Part,
} from './support.js';

/** Parses with zod and with the generated JSON Schema; both verdicts must agree. */
function verdict(key: MethodKey, part: Part, value: unknown): boolean {
  const schema = schemaOf(descriptorOf(key), part)!;
  const zodOk = schema.safeParse(clone(value)).success;
  const ajvOk = validatorFor(defNameOf(key, part))(clone(value));
  assert.equal(ajvOk, zodOk, `${key} ${part}: zod says ${zodOk}, the JSON Schema says ${ajvOk}`);
  return zodOk;
}

function accepts(key: MethodKey, part: Part, value: unknown): void {
  assert.ok(verdict(key, part, value), `${key} ${part} should accept ${JSON.stringify(value)}`);
}

function rejects(key: MethodKey, part: Part, value: unknown): void {
  assert.ok(!verdict(key, part, value), `${key} ${part} should reject ${JSON.stringify(value)}`);
}

function parse(key: MethodKey, part: Part, value: unknown): unknown {
  return schemaOf(descriptorOf(key), part)!.parse(clone(value));
}

/** Every (method, part) whose schema is an object, with one valid example of it. */
const objectMessages = METHOD_KEYS.flatMap((key) =>
  (['params', 'result'] as const).flatMap((part) => {
    const schema = schemaOf(descriptorOf(key), part);
    if (!schema || !asObject(schema)) return [];
    return [{ key, part, example: firstValid(key, part) as Record<string, unknown> }];
  }),
);

describe('schemas reject wrong types', () => {
  const cases: [MethodKey, Part, JsonPath, unknown][] = [
    ['SessionNew', 'params', ['workspaceRoot'], 42],
    ['SessionNew', 'params', ['chatContext'], 'editor'],
    ['SessionList', 'params', ['limit'], '50'],
    ['ChatSend', 'params', ['text'], { text: 'hi' }],
    ['ChatCancel', 'result', ['cancelled'], 1],
    ['SessionAttach', 'params', ['sinceSeq'], '118'],
    ['TreeUpdate', 'params', ['nodes'], { n0: {} }],
    ['TreeUpdate', 'params', ['nodes', 0, 'depth'], 1.5],
    ['TreeUpdate', 'params', ['nodes', 0, 'parentId'], 0],
    ['SessionState', 'params', ['seq'], '119'],
    ['CostSummary', 'params', ['cost'], '0.07'],
    ['Initialize', 'params', ['protocolVersion'], '1'],
    ['Initialize', 'params', ['tools'], {}],
    ['Initialize', 'result', ['capabilities', 'sessions', 'persistence'], 'true'],
    ['ApprovalRequest', 'result', ['decision'], true],
    ['ToolExecute', 'result', ['content'], null],
    ['SessionLoad', 'result', ['messages'], null],
  ];
  for (const [key, part, path, bad] of cases) {
    it(`${descriptorOf(key).method} ${part}: /${path.join('/')} = ${JSON.stringify(bad)} is rejected`, () => {
      const value = firstValid(key, part);
      assert.notEqual(
        getAt(value, path.slice(0, -1)),
        undefined,
        'the example lacks the parent object',
      );
      accepts(key, part, value);
      (getAt(value, path.slice(0, -1)) as Record<string | number, unknown>)[
        path[path.length - 1]!
      ] = bad;
      rejects(key, part, value);
    });
  }

  // Objects with only optional members that a Lua encoder sends as `[]` (base.ts objectOrEmptyArray).
  const emptyArrayAllowed = new Set([
    'Initialized',
    'Shutdown',
    'Exit',
    'SessionList',
    'ToolsList',
  ]);
  it('a params object must be an object: arrays, strings and null are rejected', () => {
    for (const { key, part } of objectMessages) {
      if (part === 'params' && emptyArrayAllowed.has(key)) continue; // checked below
      for (const bad of [[], 'x', 7, null]) rejects(key, part, bad);
    }
    for (const bad of [[1], 'x', 7]) rejects('SessionList', 'params', bad);
  });

  it('params with only optional members also accept [] (what Lua encodes {} to), and nothing else array-like', () => {
    for (const key of emptyArrayAllowed) {
      accepts(key as MethodKey, 'params', []);
      rejects(key as MethodKey, 'params', [{}]);
    }
    const nvim = { capabilities: { approvals: [], clientTools: [] }, initializationOptions: [] };
    accepts('Initialize', 'params', nvim);
    assert.deepEqual(Methods.Initialize.params.parse(nvim).capabilities, {
      approvals: {},
      clientTools: {},
    });
    rejects('Initialize', 'params', { capabilities: { approvals: [{}] } });
    rejects('SessionNew', 'params', []);
  });
});

describe('schemas reject missing required fields', () => {
  it('removing any required field of any valid example is rejected by zod and the JSON Schema', () => {
    let checked = 0;
    for (const ex of loadCorpus().examples.filter((e) => e.valid && isMethodKey(e.folder))) {
      const key = ex.folder as MethodKey;
      const object = asObject(schemaOf(descriptorOf(key), ex.part)!);
      if (!object || !isPlainObject(ex.value)) continue;
      for (const field of requiredKeys(object)) {
        if (!(field in ex.value)) continue;
        const value = clone(ex.value);
        delete value[field];
        assert.ok(!verdict(key, ex.part, value), `${ex.id} without ${field} is accepted`);
        checked++;
      }
    }
    assert.ok(checked > 100, `only ${checked} required fields were checked`);
  });

  it('the JSON Schema lists exactly the fields zod requires', () => {
    for (const { key, part } of objectMessages) {
      const object = asObject(schemaOf(descriptorOf(key), part)!)!;
      const zodRequired = requiredKeys(object);
      const def = jsonSchema.$defs[defNameOf(key, part)] as { required?: string[] };
      assert.deepEqual([...(def.required ?? [])].sort(), zodRequired, `${key} ${part}`);
    }
  });
});

describe('closed enums reject unknown values', () => {
  const enums: [string, z.ZodEnum, string[]][] = [
    ['PermissionMode', PermissionMode, ['plan', 'default', 'auto']],
    ['ToolCategory', ToolCategory, ['read', 'write', 'execute', 'external']],
    [
      'StopReason',
      StopReason,
      [
        'end_turn',
        'cancelled',
        'budget_exceeded',
        'max_iterations',
        'error',
        'interrupted',
        'max_tokens',
      ],
    ],
    ['ApprovalDecision', ApprovalDecision, ['allow', 'allowForSession', 'allowAlways', 'deny']],
    [
      'ApprovalOutcome',
      ApprovalOutcome,
      ['approved', 'rejected', 'timed_out', 'cancelled', 'not_required'],
    ],
    [
      'BudgetKind',
      BudgetKind,
      [
        'depth',
        'iterations',
        'parallel',
        'subtasks',
        'llm_calls',
        'tool_calls',
        'wall_clock_ms',
        'tool_result_bytes',
        'history_tokens',
      ],
    ],
    [
      'NodeStatus',
      NodeStatus,
      [
        'pending',
        'awaiting_approval',
        'running',
        'done',
        'error',
        'cancelled',
        'denied',
        'blocked',
      ],
    ],
  ];

  for (const [name, schema, values] of enums) {
    describe(name, () => {
      it(`has exactly the spec's values: ${values.join(', ')}`, () => {
        assert.deepEqual([...schema.options].sort(), [...values].sort());
        const def = jsonSchema.$defs[name] as { enum?: string[] };
        assert.deepEqual([...(def.enum ?? [])].sort(), [...values].sort(), `$defs/${name}.enum`);
      });

      it('accepts each value, in zod and in the JSON Schema', () => {
        for (const v of values) {
          assert.ok(schema.safeParse(v).success, v);
          assert.ok(validatorFor(name)(v), v);
        }
      });

      it('rejects unknown values, other spellings and non-strings, never defaulting', () => {
        const bad = [
          'unknown',
          values[0]!.toUpperCase(),
          ` ${values[0]!}`,
          '',
          null,
          1,
          true,
          [values[0]],
        ];
        for (const v of bad) {
          assert.ok(!schema.safeParse(v).success, `zod accepts ${JSON.stringify(v)}`);
          assert.ok(!validatorFor(name)(v), `the JSON Schema accepts ${JSON.stringify(v)}`);
        }
      });

      it('rejects any string outside the enum (property)', () => {
        fc.assert(
          fc.property(
            fc.string().filter((s) => !values.includes(s)),
            (s) => !schema.safeParse(s).success && !validatorFor(name)(s),
          ),
        );
      });
    });
  }

  it('in messages: an unknown permission mode, category, stop reason, decision, outcome, budget kind or node status is rejected', () => {
    const cases: [MethodKey, Part, JsonPath][] = [
      ['SessionSetPermissionMode', 'params', ['mode']],
      ['SessionNew', 'params', ['permissionMode']],
      ['ApprovalRequest', 'params', ['category']],
      ['SessionState', 'params', ['stopReason']],
      ['ApprovalRequest', 'result', ['decision']],
      ['ApprovalResolved', 'params', ['outcome']],
      ['BudgetExceeded', 'params', ['kind']],
      ['TreeUpdate', 'params', ['nodes', 0, 'status']],
      ['TreeUpdate', 'params', ['nodes', 0, 'approval']],
    ];
    for (const [key, part, path] of cases) {
      const value = examplesOf(key, part, true)
        .map((e) => clone(e.value))
        .find((v) => getAt(v, path) !== undefined);
      assert.ok(value, `no valid ${key} ${part} example has /${path.join('/')}`);
      accepts(key, part, value);
      (getAt(value, path.slice(0, -1)) as Record<string | number, unknown>)[
        path[path.length - 1]!
      ] = 'not_a_known_value';
      rejects(key, part, value);
    }
  });
});

describe('unknown fields are ignored and _meta rides on every object', () => {
  it('covers every params and result object of every method', () => {
    const covered = new Set(objectMessages.map((m) => `${m.key} ${m.part}`));
    for (const key of METHOD_KEYS) {
      const d = descriptorOf(key);
      for (const part of ['params', 'result'] as const) {
        const s = schemaOf(d, part);
        if (s && asObject(s)) assert.ok(covered.has(`${key} ${part}`), `${key} ${part}`);
      }
    }
    assert.ok(objectMessages.length >= 30);
  });

  for (const { key, part, example } of objectMessages) {
    it(`${descriptorOf(key).method} ${part}: an unknown field is accepted and stripped, _meta is kept`, () => {
      const meta = { 'example.org/trace': { id: 'abc', hops: [1, 2] }, note: null };
      const value = { ...clone(example), someFutureField: { nested: true }, _meta: meta };
      accepts(key, part, value);
      const out = parse(key, part, value) as Record<string, unknown>;
      assert.ok(!('someFutureField' in out), 'unknown field not stripped');
      assert.deepEqual(out._meta, meta);
    });
  }

  it('every object type reachable from a descriptor declares an optional _meta record', () => {
    const missing: string[] = [];
    for (const key of METHOD_KEYS) {
      const d = descriptorOf(key);
      for (const part of ['params', 'result'] as const) {
        const s = schemaOf(d, part);
        if (!s) continue;
        for (const o of reachableObjects(s)) {
          const meta = o.schema.shape._meta as z.ZodType | undefined;
          if (!meta || !meta.safeParse(undefined).success || meta.safeParse('x').success) {
            missing.push(`${key} ${part} ${o.path}`);
          }
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  it('unknown fields inside nested objects are stripped too', () => {
    const node = {
      ...(firstValid('TreeUpdate', 'params') as { nodes: object[] }).nodes[0],
      extra: 1,
    };
    const usage = { inputTokens: 1, outputTokens: 2, extra: 'x' };
    assert.ok(!('extra' in ExecutionTreeNode.parse(node)));
    assert.deepEqual(Usage.parse(usage), { inputTokens: 1, outputTokens: 2 });
    assert.deepEqual(ChatContext.parse({ kind: 'editor', future: true }), { kind: 'editor' });
  });

  it('_meta must be an object when present', () => {
    for (const { key, part, example } of objectMessages) {
      for (const bad of ['x', 1, [], null]) rejects(key, part, { ...clone(example), _meta: bad });
    }
  });

  it('property: any valid example with random extra keys added to any of its objects still parses, to the same value', () => {
    const candidates = loadCorpus()
      .examples.filter((e) => e.valid && isMethodKey(e.folder) && isPlainObject(e.value))
      .map((e) => {
        const key = e.folder as MethodKey;
        const schema = schemaOf(descriptorOf(key), e.part)!;
        return { e, key, schema, positions: objectPositions(schema, e.value) };
      })
      .filter((c) => c.positions.length > 0);
    assert.ok(candidates.length > 50);

    const extraKey = fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((k) => k !== '__proto__' && k !== '_meta');
    fc.assert(
      fc.property(
        fc.constantFrom(...candidates),
        fc.nat(),
        fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 4 }),
        ({ e, key, schema, positions }, pick, extras) => {
          const { path, known } = positions[pick % positions.length]!;
          const mutated = clone(e.value);
          const target = getAt(mutated, path) as Record<string, unknown>;
          for (const [k, v] of Object.entries(extras)) {
            if (!known.has(k)) target[k] = v;
          }
          const before = schema.parse(clone(e.value));
          const after = schema.safeParse(mutated);
          assert.ok(after.success, `${e.id} with extra keys at /${path.join('/')} is rejected`);
          assert.deepEqual(after.data, before, 'extra keys were not stripped');
          assert.ok(
            validatorFor(defNameOf(key, e.part))(mutated),
            'the JSON Schema rejects extra keys',
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('initialize', () => {
  it('protocolVersion is optional: a generic LSP client may omit it', () => {
    const out = parse('Initialize', 'params', { processId: 1, capabilities: {} }) as {
      protocolVersion?: number;
    };
    assert.equal(out.protocolVersion, undefined);
    accepts('Initialize', 'params', {});
  });

  it('token and protocolVersion may come in initializationOptions', () => {
    const out = parse('Initialize', 'params', {
      initializationOptions: { token: 'secret', protocolVersion: 1 },
    }) as { initializationOptions?: { token?: string; protocolVersion?: number } };
    assert.deepEqual(out.initializationOptions, { token: 'secret', protocolVersion: 1 });
  });

  it('protocolVersion, when present, is a positive integer major', () => {
    for (const bad of [0, -1, 1.5, '1', null])
      rejects('Initialize', 'params', { protocolVersion: bad });
    accepts('Initialize', 'params', { protocolVersion: 1 });
    accepts('Initialize', 'params', { protocolVersion: 7 });
  });

  it('capabilities default to {} (everything unsupported)', () => {
    assert.deepEqual(
      (parse('Initialize', 'params', {}) as { capabilities: unknown }).capabilities,
      {},
    );
  });

  it('a capability is an object: true is not "supported"', () => {
    rejects('Initialize', 'params', { capabilities: { approvals: true } });
    accepts('Initialize', 'params', { capabilities: { approvals: {} } });
  });

  it('client tool names are 1-64 letters, digits, _ or -, starting with a letter', () => {
    const tool = { description: 'd', inputSchema: { type: 'object' }, category: 'read' };
    for (const name of ['a', 'editor_applyEdit', 'x-1', 'a'.repeat(64)]) {
      accepts('Initialize', 'params', { tools: [{ ...tool, name }] });
    }
    for (const name of ['', '1abc', '_x', 'has space', 'a'.repeat(65), 'ünïcode']) {
      rejects('Initialize', 'params', { tools: [{ ...tool, name }] });
    }
  });
});

describe('defaults', () => {
  it('session/new: permissionMode defaults to default, chatContext to thread', () => {
    const out = parse('SessionNew', 'params', { workspaceRoot: '/w' }) as {
      permissionMode: string;
      chatContext: { kind: string };
    };
    assert.equal(out.permissionMode, 'default');
    assert.deepEqual(out.chatContext, { kind: 'thread' });
  });

  it('session/new: explicit values win over defaults', () => {
    const out = parse('SessionNew', 'params', {
      workspaceRoot: '/w',
      permissionMode: 'plan',
      chatContext: { kind: 'editor' },
    }) as { permissionMode: string; chatContext: { kind: string } };
    assert.equal(out.permissionMode, 'plan');
    assert.deepEqual(out.chatContext, { kind: 'editor' });
  });

  it('session/attach: role defaults to controller, no replay without sinceSeq', () => {
    const out = parse('SessionAttach', 'params', { sessionId: 's1' }) as {
      role: string;
      sinceSeq?: number;
    };
    assert.equal(out.role, 'controller');
    assert.equal(out.sinceSeq, undefined);
  });

  it('session/list: params may be omitted; limit defaults to 50', () => {
    assert.deepEqual(Methods.SessionList.params.parse(undefined), { limit: 50 });
    assert.deepEqual(parse('SessionList', 'params', {}), { limit: 50 });
  });

  it('the JSON Schema publishes the same defaults', () => {
    const props = (
      jsonSchema.$defs.SessionNewParams as { properties: Record<string, { default?: unknown }> }
    ).properties;
    assert.equal(props.permissionMode?.default, 'default');
    assert.deepEqual(props.chatContext?.default, { kind: 'thread' });
  });
});

describe('numbers and limits', () => {
  const chunk = () => firstValid('ChatChunk', 'params') as Record<string, unknown>;

  it('seq is a positive integer: 0, negatives and fractions are rejected', () => {
    for (const seq of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2])
      rejects('ChatChunk', 'params', { ...chunk(), seq });
    for (const seq of [1, 2, 1_000_000]) accepts('ChatChunk', 'params', { ...chunk(), seq });
  });

  it('usage token counts are non-negative integers', () => {
    const state = firstValid('SessionState', 'params') as Record<string, unknown>;
    for (const usage of [
      { inputTokens: -1, outputTokens: 0 },
      { inputTokens: 0, outputTokens: -1 },
      { inputTokens: 1.5, outputTokens: 0 },
      { inputTokens: 0, outputTokens: 0, cachedInputTokens: -3 },
      { inputTokens: 0 },
    ]) {
      rejects('SessionState', 'params', { ...state, usage });
    }
    accepts('SessionState', 'params', { ...state, usage: { inputTokens: 0, outputTokens: 0 } });
  });

  it(`previews hold at most ${PREVIEW_MAX_CHARS} characters`, () => {
    const base = firstValid('TreeUpdate', 'params') as { nodes: Record<string, unknown>[] };
    const withPreview = (field: string, text: string) => ({
      ...base,
      nodes: [{ ...base.nodes[0], [field]: text }],
    });
    for (const field of ['argsPreview', 'resultPreview']) {
      accepts('TreeUpdate', 'params', withPreview(field, 'x'.repeat(PREVIEW_MAX_CHARS)));
      rejects('TreeUpdate', 'params', withPreview(field, 'x'.repeat(PREVIEW_MAX_CHARS + 1)));
    }
  });

  it('preview limits count Unicode code points, exactly as JSON Schema maxLength does', () => {
    const base = firstValid('TreeUpdate', 'params') as { nodes: Record<string, unknown>[] };
    const withPreview = (text: string) => ({
      ...base,
      nodes: [{ ...base.nodes[0], argsPreview: text }],
    });
    // 500 emoji are 1000 UTF-16 units but 500 code points: both validators must agree.
    accepts('TreeUpdate', 'params', withPreview('😀'.repeat(PREVIEW_MAX_CHARS)));
    rejects('TreeUpdate', 'params', withPreview('😀'.repeat(PREVIEW_MAX_CHARS + 1)));
  });

  it('tree/update carries at least one node', () => {
    rejects('TreeUpdate', 'params', {
      ...(firstValid('TreeUpdate', 'params') as object),
      nodes: [],
    });
  });

  it('tree depth is 0..16', () => {
    const base = firstValid('TreeUpdate', 'params') as { nodes: Record<string, unknown>[] };
    for (const depth of [0, 16])
      accepts('TreeUpdate', 'params', { ...base, nodes: [{ ...base.nodes[0], depth }] });
    for (const depth of [-1, 17])
      rejects('TreeUpdate', 'params', { ...base, nodes: [{ ...base.nodes[0], depth }] });
  });

  it('cost is a non-negative number or null (unknown price)', () => {
    const base = firstValid('CostSummary', 'params') as Record<string, unknown>;
    accepts('CostSummary', 'params', { ...base, cost: null });
    accepts('CostSummary', 'params', { ...base, cost: 0 });
    rejects('CostSummary', 'params', { ...base, cost: -0.01 });
  });

  it('timestamps are ISO 8601 with an offset', () => {
    const info = firstValid('SessionNew', 'result') as Record<string, unknown>;
    for (const t of ['2025-06-12T09:41:07Z', '2025-06-12T09:41:07.312+02:00']) {
      accepts('SessionNew', 'result', { ...info, createdAt: t });
    }
    for (const t of [
      '2025-06-12T09:41:07',
      '2025-06-12',
      '12/06/2025 09:41',
      '2025-13-01T00:00:00Z',
      1718185267,
    ]) {
      rejects('SessionNew', 'result', { ...info, createdAt: t });
    }
  });
});
