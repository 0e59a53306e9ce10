/**
 * The method descriptors are the single source of every method name: unique,
 * well formed, with capabilities that exist, spec references that resolve, and
 * no method string typed a second time anywhere in the code.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { z } from 'zod';
import {
  ALL_METHODS,
  ClientCapabilities,
  DaemonCapabilities,
  Methods,
  findMethod,
  isExtensionMethod,
  isLspDollarMethod,
  type MethodDescriptor,
} from '../src/index.js';
import {
  METHOD_KEYS,
  PACKAGE_DIR,
  REPO_DIR,
  SPEC_DIR,
  asObject,
  clone,
  descriptorOf,
  examplesOf,
  jsonSchema,
  defNameOf,
  validatorFor,
  tsFilesUnder,
  unwrap,
  type MethodKey,
} from './support.js';

/** LSP's lifecycle methods keep their LSP names; every other method is `area/verb` or `_arbor/...`. */
const LSP_LIFECYCLE: readonly MethodDescriptor[] = [
  Methods.Initialize,
  Methods.Initialized,
  Methods.Shutdown,
  Methods.Exit,
];
/** LSP's `$/` base methods keep their LSP names too (lifecycle.md#lsp-base-methods). */
const LSP_BASE: readonly MethodDescriptor[] = [
  Methods.CancelRequest,
  Methods.SetTrace,
  Methods.LogTrace,
];
const LSP_DOLLAR = /^\$\/[a-z][a-zA-Z]*$/;
const AREA_VERB = /^[a-z][a-zA-Z]*\/[a-z][a-zA-Z]*$/;
const EXTENSION = /^_arbor(?:\/[a-z][a-zA-Z]*)+$/;

describe('descriptors: names', () => {
  it('no two descriptors share a method name', () => {
    const seen = new Map<string, string[]>();
    for (const key of METHOD_KEYS) {
      const m = descriptorOf(key).method;
      seen.set(m, [...(seen.get(m) ?? []), key]);
    }
    const dup = [...seen]
      .filter(([, keys]) => keys.length > 1)
      .map(([m, keys]) => `${m}: ${keys.join(', ')}`);
    assert.deepEqual(dup, []);
  });

  it('no descriptor object is registered twice under two keys', () => {
    assert.equal(new Set(ALL_METHODS).size, ALL_METHODS.length);
  });

  it('findMethod returns each descriptor by its method name', () => {
    for (const d of ALL_METHODS) assert.equal(findMethod(d.method), d);
    assert.equal(findMethod('no/suchMethod'), undefined);
  });

  for (const key of METHOD_KEYS) {
    const d = descriptorOf(key);
    it(`${key}: "${d.method}" follows the naming rules`, () => {
      assert.equal(typeof d.method, 'string');
      assert.equal(
        isLspDollarMethod(d.method),
        LSP_BASE.includes(d),
        "only LSP's base methods use the $/ namespace",
      );
      if (LSP_BASE.includes(d)) {
        assert.match(d.method, LSP_DOLLAR, 'LSP base methods are $/<camelCase>');
      } else if (LSP_LIFECYCLE.includes(d)) {
        assert.match(d.method, /^[a-z]+$/, 'LSP lifecycle methods are single lower-case words');
      } else if (isExtensionMethod(d.method)) {
        assert.match(d.method, EXTENSION, 'extension methods are _arbor/<area>/<verb>');
      } else {
        assert.match(d.method, AREA_VERB, 'methods are area/verb in camelCase');
      }
    });
  }

  it('only the four LSP lifecycle methods are single words', () => {
    const plain = ALL_METHODS.filter((d) => !d.method.includes('/'));
    assert.deepEqual(plain.map((d) => d.method).sort(), LSP_LIFECYCLE.map((d) => d.method).sort());
  });

  it('extension methods (leading _) are exactly the ones under _arbor/', () => {
    for (const d of ALL_METHODS) {
      assert.equal(isExtensionMethod(d.method), d.method.startsWith('_arbor/'), d.method);
    }
  });

  it('every descriptor is complete: direction, kind, schemas, since, summary', () => {
    for (const key of METHOD_KEYS) {
      const d = descriptorOf(key);
      assert.ok(['clientToDaemon', 'daemonToClient', 'both'].includes(d.direction), key);
      assert.ok(['request', 'notification'].includes(d.kind), key);
      assert.equal(typeof d.params.safeParse, 'function', `${key}.params is a zod schema`);
      if (d.kind === 'request')
        assert.equal(typeof d.result.safeParse, 'function', `${key}.result`);
      assert.ok(Number.isInteger(d.since) && d.since >= 1, `${key}.since`);
      assert.ok(d.summary.length > 10, `${key}.summary`);
      assert.ok(Object.isFrozen(d), `${key} is frozen`);
    }
  });
});

describe('descriptors: daemon notifications about a session carry sessionId and seq', () => {
  /**
   * daemon→client notifications that are not session events: session/detached
   * is addressed to one client, $/logTrace traces its connection.
   */
  const NOT_ABOUT_A_SESSION = new Set<MethodKey>(['SessionDetached', 'LogTrace']);
  const sessionNotifications = METHOD_KEYS.filter((k) => {
    const d = descriptorOf(k);
    return (
      d.direction === 'daemonToClient' && d.kind === 'notification' && !NOT_ABOUT_A_SESSION.has(k)
    );
  });

  it('there are such notifications (the checks below are not vacuous)', () => {
    assert.ok(sessionNotifications.length >= 8, sessionNotifications.join(', '));
  });

  for (const key of sessionNotifications) {
    describe(descriptorOf(key).method, () => {
      const d = descriptorOf(key);

      it('declares sessionId and seq as required params', () => {
        // A discriminated union (session/state) must declare them in every variant.
        const unwrapped = unwrap(d.params);
        const variants =
          unwrapped instanceof z.ZodDiscriminatedUnion ? unwrapped.options : [d.params];
        const def = jsonSchema.$defs[defNameOf(key, 'params')] as {
          required?: string[];
          oneOf?: { required?: string[] }[];
        };
        const jsonVariants = def.oneOf ?? [def];
        assert.equal(jsonVariants.length, variants.length, 'as many JSON Schema variants');
        for (const [i, variant] of variants.entries()) {
          const object = asObject(variant as z.ZodType);
          assert.ok(object, 'params are an object');
          assert.ok('sessionId' in object.shape && 'seq' in object.shape);
          const required = jsonVariants[i]?.required;
          assert.ok(
            required?.includes('sessionId') && required.includes('seq'),
            'the JSON Schema requires both',
          );
        }
      });

      it('rejects a valid example without seq, with seq 0, negative or fractional, or without sessionId', () => {
        const examples = examplesOf(key, 'params', true);
        assert.ok(examples.length > 0, 'needs a valid params example');
        const validate = validatorFor(defNameOf(key, 'params'));
        for (const ex of examples) {
          const value = clone(ex.value) as Record<string, unknown>;
          assert.ok(d.params.safeParse(value).success, `${ex.id} itself parses`);
          const broken: [string, Record<string, unknown>][] = [
            ['without seq', (({ seq: _s, ...rest }) => rest)(value)],
            ['with seq 0', { ...value, seq: 0 }],
            ['with seq -3', { ...value, seq: -3 }],
            ['with seq 2.5', { ...value, seq: 2.5 }],
            ['with seq "7"', { ...value, seq: '7' }],
            ['without sessionId', (({ sessionId: _s, ...rest }) => rest)(value)],
          ];
          for (const [what, v] of broken) {
            assert.ok(!d.params.safeParse(v).success, `zod accepts ${ex.id} ${what}`);
            assert.ok(!validate(v), `the JSON Schema accepts ${ex.id} ${what}`);
          }
        }
      });
    });
  }
});

/** Follows a dotted path through (possibly optional) zod object shapes. */
function capabilityExists(root: Parameters<typeof asObject>[0], path: string[]): boolean {
  let node = asObject(root);
  for (let i = 0; i < path.length; i++) {
    if (!node) return false;
    const field = node.shape[path[i]!];
    if (!field) return false;
    if (i === path.length - 1) return true;
    node = asObject(field as Parameters<typeof asObject>[0]);
  }
  return false;
}

describe('descriptors: capabilities', () => {
  const withCapability = ALL_METHODS.filter((d) => d.capability !== null);

  it('some descriptors depend on a capability (the check below is not vacuous)', () => {
    assert.ok(withCapability.length >= 3);
  });

  it('the capability walk finds known fields and refuses unknown ones', () => {
    assert.ok(capabilityExists(DaemonCapabilities, ['testing', 'scriptedProvider']));
    assert.ok(!capabilityExists(DaemonCapabilities, ['testing', 'nope']));
    assert.ok(!capabilityExists(ClientCapabilities, ['approvals', 'deeper']));
  });

  for (const d of withCapability) {
    it(`${d.method} depends on ${d.capability}, a field of ${d.capability?.startsWith('client.') ? 'ClientCapabilities' : 'DaemonCapabilities'}`, () => {
      const [side, ...path] = d.capability!.split('.');
      assert.ok(
        side === 'client' || side === 'daemon',
        `capability ${d.capability} names neither side`,
      );
      assert.ok(path.length > 0);
      const root = side === 'client' ? ClientCapabilities : DaemonCapabilities;
      assert.ok(
        capabilityExists(root, path),
        `${d.capability} is not a field of the ${side} capabilities`,
      );
    });
  }

  it('a method the daemon sends depends on a client capability, if any; and vice versa', () => {
    for (const d of withCapability) {
      const side = d.capability!.split('.')[0];
      assert.equal(side, d.direction === 'daemonToClient' ? 'client' : 'daemon', d.method);
    }
  });
});

describe('descriptors: spec references', () => {
  for (const d of ALL_METHODS) {
    it(`${d.method}: specRef ${d.specRef} points at an anchor of protocol-spec/spec/`, () => {
      const m = /^([a-z0-9-]+\.md)#([a-z0-9-]+)$/.exec(d.specRef);
      assert.ok(m, `specRef ${d.specRef} is not <file>.md#<anchor>`);
      const [, file, anchor] = m;
      const path = SPEC_DIR + file;
      assert.ok(existsSync(path), `protocol-spec/spec/${file} does not exist`);
      const text = readFileSync(path, 'utf8');
      assert.ok(
        text.includes(`id="${anchor}"`),
        `protocol-spec/spec/${file} has no id="${anchor}"`,
      );
    });
  }
});

describe('descriptors: no method string is typed twice', () => {
  const SCANNED = ['protocol-spec/src', 'daemon/src', 'conformance-tests/src', 'extension/src'];
  const methods = new Set(ALL_METHODS.map((d) => d.method));

  interface Literal {
    file: string;
    line: number;
    text: string;
    /** `request({ method: '<literal>' })` in protocol-spec/src: the descriptor's own definition. */
    isDefinition: boolean;
  }

  /** The name an expression is known by: `x.method` -> method, `f.methodOf(id)` -> methodOf. */
  function nameOf(node: ts.Node): string | undefined {
    if (ts.isIdentifier(node)) return node.text;
    if (ts.isPropertyAccessExpression(node)) return node.name.text;
    if (ts.isCallExpression(node)) return nameOf(node.expression);
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node))
      return nameOf(node.expression);
    return undefined;
  }

  const RPC_CALL = /^(?:send|on)(?:Request|Notification)$|^(?:request|notify|call)$/;

  /**
   * Whether a literal is used as a method name. `area/verb` strings are method
   * names wherever they appear. The LSP lifecycle names are also ordinary words
   * (a child process's 'exit' event, a connection state 'initialized'), so they
   * count only where a method is meant: compared with something named *method*,
   * a `case` of a switch over a method, an argument of send/on(Request|Notification),
   * or the value of a `method:` property.
   */
  function usedAsMethod(node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral): boolean {
    if (node.text.includes('/')) return true;
    const parent = node.parent;
    const isMethodName = (n: ts.Node | undefined) =>
      n !== undefined && /method/i.test(nameOf(n) ?? '');
    if (ts.isBinaryExpression(parent)) {
      const other = parent.left === node ? parent.right : parent.left;
      return isMethodName(other);
    }
    if (ts.isCaseClause(parent)) return isMethodName(parent.parent.parent.expression);
    if (ts.isCallExpression(parent) && parent.arguments.includes(node)) {
      return RPC_CALL.test(nameOf(parent.expression) ?? '');
    }
    if (ts.isPropertyAssignment(parent) && parent.initializer === node) {
      return ts.isIdentifier(parent.name) && parent.name.text === 'method';
    }
    return false;
  }

  /** `request({ method: '<literal>', ... })` or `notification({ ... })`: a descriptor's definition. */
  function isDescriptorDefinition(node: ts.Node): boolean {
    const property = node.parent;
    if (!ts.isPropertyAssignment(property) || property.initializer !== node) return false;
    if (!ts.isIdentifier(property.name) || property.name.text !== 'method') return false;
    const call = property.parent.parent;
    return (
      ts.isCallExpression(call) &&
      ['request', 'notification'].includes(nameOf(call.expression) ?? '')
    );
  }

  /** Every string literal in a file used as a method name (comments are not literals). */
  function methodLiterals(file: string): Literal[] {
    const source = ts.createSourceFile(
      file,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const out: Literal[] = [];
    const visit = (node: ts.Node): void => {
      if (
        (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
        methods.has(node.text) &&
        usedAsMethod(node)
      ) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        out.push({
          file: file.slice(REPO_DIR.length),
          line: line + 1,
          text: node.text,
          isDefinition: file.startsWith(PACKAGE_DIR + 'src/') && isDescriptorDefinition(node),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return out;
  }

  /** Method literals found in a snippet, for the scanner's own tests. */
  function probe(code: string, names: Set<string>): string[] {
    const source = ts.createSourceFile('probe.ts', code, ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const visit = (n: ts.Node): void => {
      if (
        (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) &&
        names.has(n.text) &&
        usedAsMethod(n)
      ) {
        found.push(n.text);
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
    return found;
  }

  const files = SCANNED.flatMap((dir) => tsFilesUnder(REPO_DIR + dir));
  const literals = files.flatMap(methodLiterals);

  it('scans the protocol sources (the check is not vacuous)', () => {
    assert.ok(files.some((f) => f.startsWith(PACKAGE_DIR + 'src/')));
    assert.ok(literals.length >= ALL_METHODS.length);
  });

  it('the scanner finds method strings in any quotes, but not in comments', () => {
    const names = new Set(['x/y']);
    assert.deepEqual(
      probe("// 'x/y'\nconst a = 'x/y'; const b = `x/y`; const c = \"x/y\"; /* 'x/y' */", names),
      ['x/y', 'x/y', 'x/y'],
    );
  });

  it('the scanner counts a lifecycle word only where a method is meant', () => {
    const names = new Set(['exit', 'initialize']);
    const meant = [
      "if (msg.method === 'initialize') {}",
      "if ('exit' !== message.method) {}",
      "if (this.methodOf(id) === 'initialize') {}",
      "switch (msg.method) { case 'exit': break; }",
      "conn.sendNotification('exit');",
      "conn.onRequest('initialize', handler);",
      "const d = { method: 'exit' };",
    ];
    for (const code of meant) assert.deepEqual(probe(code, names).length, 1, code);
    const notMeant = [
      "child.once('exit', () => {});",
      "type S = 'initialize' | 'exit';",
      "if (state === 'exit') {}",
      "log('initialize');",
    ];
    for (const code of notMeant) assert.deepEqual(probe(code, names), [], code);
  });

  it('each method string is defined once, by one request()/notification() descriptor in protocol-spec/src', () => {
    for (const m of methods) {
      const defs = literals.filter((l) => l.text === m && l.isDefinition);
      assert.equal(
        defs.length,
        1,
        `${m} is defined ${defs.length} times: ${defs.map((l) => `${l.file}:${l.line}`).join(', ')}`,
      );
      assert.ok(
        defs[0]!.file.startsWith('protocol-spec/src/'),
        `${m} is defined in ${defs[0]!.file}`,
      );
    }
  });

  it('no method string appears as a literal outside the file that defines its descriptor', () => {
    const home = new Map(literals.filter((l) => l.isDefinition).map((l) => [l.text, l.file]));
    const strays = literals
      .filter((l) => l.file !== home.get(l.text))
      .map((l) => `  ${l.file}:${l.line}: '${l.text}'`);
    assert.equal(
      strays.length,
      0,
      `method strings typed outside their descriptor's file (use Methods.<X>.method from @arbor/protocol):\n${strays.join('\n')}`,
    );
  });
});
