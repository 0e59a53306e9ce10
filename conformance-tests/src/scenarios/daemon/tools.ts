/**
 * `tools/list` (tools.md, protocol 1.1): what a daemon says a model may call,
 * with and without a session, and whether that is what its turns offer.
 *
 * The suite knows exactly one kind of tool by its definition: the client
 * tools it declares itself. So "listed" is compared with "declared" for
 * those, and "callable" is observed as the `tool/execute` the suite receives;
 * the daemon's own tools are judged by what the spec says of every tool
 * (unique names, no permission without a session, a permission that fits the
 * mode and category).
 */
import { Methods } from '@arbor/protocol';
import type { Recorder } from '../../checks/results.js';
import type { Connection, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import {
  type DaemonContext,
  type Initialized,
  describe,
  errorCode,
  requireDaemonCapability,
  sleep,
} from './context.js';
import { scriptedSession, send, waitTurnEnd } from './turns.js';

const READ_TOOL = {
  name: 'conformance_list_read',
  description: 'A read-category client tool of the conformance suite, listed by tools/list.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1 }, n: { type: 'integer' } },
    required: ['path'],
    additionalProperties: false,
  },
  category: 'read',
};
const WRITE_TOOL = {
  name: 'conformance_list_write',
  description: 'A write-category client tool of the conformance suite; it writes nothing.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  category: 'write',
};
const DECLARED = [READ_TOOL, WRITE_TOOL];
const CAPS = { approvals: {}, clientTools: {} };

/** approvals.md#approvals-matrix: what each mode does with each category. */
const MATRIX: Record<string, Record<string, string>> = {
  plan: { read: 'run', write: 'block', execute: 'block', external: 'block' },
  default: { read: 'run', write: 'ask', execute: 'ask', external: 'ask' },
  auto: { read: 'run', write: 'run', execute: 'run', external: 'run' },
};
/** The always-ask exception (approvals.md#approvals-always-ask), which a daemon's configuration may apply to any tool. */
const ALWAYS_ASK: Record<string, Record<string, string>> = {
  plan: { read: 'ask', write: 'block', execute: 'block', external: 'block' },
  default: { read: 'ask', write: 'ask', execute: 'ask', external: 'ask' },
  auto: { read: 'ask', write: 'ask', execute: 'ask', external: 'ask' },
};

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

/** JSON with sorted keys: the same JSON value whatever the key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as JsonObject).sort(([x], [y]) => (x < y ? -1 : 1)))
      : v,
  );
}

async function list(
  ctx: DaemonContext,
  conn: Connection,
  params?: JsonObject,
): Promise<JsonObject[]> {
  const response = await conn.request(Methods.ToolsList.method, params);
  const tools = (response?.result as JsonObject | undefined)?.tools;
  if (!Array.isArray(tools)) {
    ctx.recorder.fail(
      'daemon.tools.builtins',
      `tools/list ${show(params ?? {})} got ${describe(response)}`,
    );
    throw new Abort('tools/list failed');
  }
  return tools as JsonObject[];
}

function checkUnique(r: Recorder, tools: readonly JsonObject[], what: string): void {
  const names = tools.map((t) => String(t.name));
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  r.expect(
    'daemon.tools.unique-names',
    twice.length === 0,
    `${what} lists ${[...new Set(twice)].join(', ')} more than once`,
  );
}

/** The suite's declared tools in a list: each exactly as declared, with origin client. */
function clientToolsIn(tools: readonly JsonObject[]): JsonObject[] {
  return tools.filter((t) => DECLARED.some((d) => d.name === t.name));
}

async function newSession(
  ctx: DaemonContext,
  c: Initialized,
  mode: string,
  kind: string,
): Promise<string> {
  const created = await c.conn.request(Methods.SessionNew.method, {
    workspaceRoot: ctx.workspace,
    permissionMode: mode,
    chatContext: { kind },
  });
  const sessionId = (created?.result as JsonObject | undefined)?.sessionId;
  if (typeof sessionId !== 'string') {
    ctx.recorder.fail('daemon.sessions.new', `session/new got ${describe(created)}`);
    throw new Abort('no session');
  }
  return sessionId;
}

const sessionNotes = (conn: Connection, sessionId: string): number =>
  conn.notifications().filter((m) => ((m.params ?? {}) as JsonObject).sessionId === sessionId)
    .length;

export const toolsList: Scenario<DaemonContext> = {
  id: 'daemon-tools-list',
  role: 'daemon',
  title:
    'tools/list without a session, for an unknown one, and for editor and thread sessions in each mode: client tools verbatim where offered, a permission per mode, no event',
  checks: [
    'daemon.tools.capability',
    'daemon.versioning.capability-not-negotiated',
    'daemon.tools.builtins',
    'daemon.tools.unique-names',
    'daemon.tools.unknown-session',
    'daemon.tools.client-tools',
    'daemon.tools.permission',
    'daemon.tools.no-effect',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect('lister', { capabilities: CAPS, tools: DECLARED });
    // Served exactly when advertised (a daemon without the method answers -32601).
    const advertised = c.init.capabilities.tools !== undefined;
    const probe = await c.conn.request(Methods.ToolsList.method, {});
    r.expect(
      'daemon.tools.capability',
      advertised === (probe?.result !== undefined),
      advertised
        ? `the daemon advertises capabilities.tools, but tools/list got ${describe(probe)}`
        : `the daemon serves tools/list (${describe(probe)}) without advertising capabilities.tools`,
    );
    // versioning.md#versioning-capability-not-negotiated: -33008 from a daemon that has the
    // method, -32601 from one that has not; the suite cannot tell which, so either will do.
    if (advertised)
      r.skip(
        'daemon.versioning.capability-not-negotiated',
        'the daemon advertises capabilities.tools, so tools/list is negotiated on every connection',
      );
    else if (probe?.error)
      r.expect(
        'daemon.versioning.capability-not-negotiated',
        probe.error.code === -33008 || probe.error.code === -32601,
        `tools/list without capabilities.tools advertised got ${describe(probe)}, expected -33008 (or -32601)`,
      );
    requireDaemonCapability(c.init, 'tools');
    const clientTools = c.init.capabilities.clientTools !== undefined;

    const builtins = await list(ctx, c.conn);
    const withPermission = builtins.filter((t) => t.permission !== undefined);
    const client = builtins.filter((t) => t.origin === 'client' || clientToolsIn([t]).length > 0);
    r.expect(
      'daemon.tools.builtins',
      withPermission.length === 0 && client.length === 0,
      `tools/list without a session: ${withPermission.length ? `permission on ${withPermission.map((t) => String(t.name)).join(', ')}` : ''}${client.length ? ` client tools ${show(client)}` : ''}`,
    );
    checkUnique(r, builtins, 'tools/list without a session');

    const unknown = await c.conn.request(Methods.ToolsList.method, {
      sessionId: 'conformance-no-such-session',
    });
    r.expect(
      'daemon.tools.unknown-session',
      errorCode(unknown) === -33004,
      `tools/list for an unknown session got ${describe(unknown)}, expected -33004`,
    );

    const editor = await newSession(ctx, c, 'default', 'editor');
    await sleep(300); // whatever session/new sends has arrived
    const before = sessionNotes(c.conn, editor);
    const listed: Record<string, JsonObject[]> = {
      default: await list(ctx, c.conn, { sessionId: editor }),
    };
    await sleep(200);
    const after = sessionNotes(c.conn, editor);
    r.expect(
      'daemon.tools.no-effect',
      after === before,
      `tools/list for a session sent ${after - before} event(s) of it`,
    );
    for (const mode of ['plan', 'auto']) {
      const set = await c.conn.request(Methods.SessionSetPermissionMode.method, {
        sessionId: editor,
        mode,
      });
      if (set?.error) continue; // a mode this daemon does not offer
      listed[mode] = await list(ctx, c.conn, { sessionId: editor });
    }
    for (const [mode, tools] of Object.entries(listed)) {
      checkUnique(r, tools, `tools/list for an editor session in ${mode} mode`);
      const wrong = tools.filter((t) => {
        const category = String(t.category);
        const matrix = MATRIX[mode]![category];
        const always = ALWAYS_ASK[mode]![category];
        // The suite's own tools are never always-ask unless the user configured it so.
        return t.permission !== matrix && (t.origin === 'client' || t.permission !== always);
      });
      r.expect(
        'daemon.tools.permission',
        wrong.length === 0,
        `in ${mode} mode: ${wrong.map((t) => `${String(t.name)} (${String(t.category)}) says ${String(t.permission)}`).join('; ')}`,
      );
    }

    const thread = await newSession(ctx, c, 'default', 'thread');
    const inThread = clientToolsIn(await list(ctx, c.conn, { sessionId: thread }));
    // Another connection to the same daemon, which declares tools without clientTools: socket only.
    let withoutCapability: JsonObject[] = [];
    if (ctx.target.kind === 'socket') {
      const plain = await ctx.connect('no-client-tools', { capabilities: {}, tools: DECLARED });
      withoutCapability = clientToolsIn(await list(ctx, plain.conn, { sessionId: editor }));
    }
    const inEditor = clientToolsIn(listed.default!);
    const mismatched = DECLARED.filter((d) => {
      const got = inEditor.filter((t) => t.name === d.name);
      return !(
        got.length > 0 &&
        got.every(
          (t) =>
            t.origin === 'client' &&
            t.description === d.description &&
            t.category === d.category &&
            canonical(t.inputSchema) === canonical(d.inputSchema),
        )
      );
    });
    const problems = [
      clientTools &&
        mismatched.length > 0 &&
        `in an editor session, declared ${show(mismatched)} but tools/list gives ${show(inEditor)}`,
      !clientTools &&
        inEditor.length > 0 &&
        `the daemon does not advertise clientTools, yet lists the declared ${show(inEditor)}`,
      inThread.length > 0 && `a thread session lists the client tools ${show(inThread)}`,
      withoutCapability.length > 0 &&
        `a client that did not negotiate clientTools gets its declared tools listed: ${show(withoutCapability)}`,
    ].filter(Boolean);
    r.expect('daemon.tools.client-tools', problems.length === 0, problems.join('; '));
  },
};

export const toolsCallable: Scenario<DaemonContext> = {
  id: 'daemon-tools-callable',
  role: 'daemon',
  title:
    'a client tool that tools/list gives for a session runs when the model calls it, and one it leaves out does not (editor and thread sessions, auto mode)',
  checks: ['daemon.tools.listed-callable'],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect('caller', { capabilities: CAPS, tools: DECLARED });
    requireDaemonCapability(c.init, 'tools');
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    const executed: JsonObject[] = [];
    c.conn.handle(Methods.ToolExecute.method, (params) => {
      executed.push(params as JsonObject);
      return { content: 'conformance: listed and run' };
    });
    const calls = {
      '*': [
        {
          toolCalls: [
            { id: 'conformance-listed-1', name: READ_TOOL.name, arguments: { path: 'a.txt' } },
          ],
        },
        { text: 'Done.' },
      ],
    };
    for (const kind of ['editor', 'thread']) {
      const sessionId = await scriptedSession(ctx, c, calls, 'auto', kind);
      const listed = clientToolsIn(await list(ctx, c.conn, { sessionId })).some(
        (t) => t.name === READ_TOOL.name,
      );
      const turnId = await send(ctx, c.conn, sessionId, `conformance: call a ${kind} tool`);
      await waitTurnEnd(ctx, c.conn, sessionId, turnId);
      const ran = executed.some((e) => e.sessionId === sessionId);
      r.expect(
        'daemon.tools.listed-callable',
        listed === ran,
        `in a ${kind} session tools/list ${listed ? 'gives' : 'leaves out'} ${READ_TOOL.name}, but a call of it ${ran ? 'ran (tool/execute)' : 'did not run'}`,
      );
    }
  },
};

/**
 * Two parallel-safe client-tool calls of one model reply, each answered after
 * a pause: the daemon has two tool/execute requests outstanding at once on one
 * connection, so the always-on daemon.wire.ids-unique judges its request ids
 * (transport.md#transport-id-unique) where a reuse would matter.
 */
export const parallelClientTools: Scenario<DaemonContext> = {
  id: 'daemon-parallel-client-tools',
  role: 'daemon',
  title: 'two client-tool calls outstanding at once: each tool/execute has its own id',
  checks: ['daemon.wire.ids-unique'],
  async run(ctx) {
    const c = await ctx.connect('caller', { capabilities: CAPS, tools: DECLARED });
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    let outstanding = 0;
    let most = 0;
    c.conn.handle(Methods.ToolExecute.method, async (params) => {
      most = Math.max(most, ++outstanding);
      await sleep(300);
      outstanding--;
      return { content: `conformance: read ${String((params as JsonObject).toolCallId)}` };
    });
    const script = {
      '*': [
        {
          toolCalls: ['a.txt', 'b.txt'].map((path, i) => ({
            id: `conformance-parallel-${i + 1}`,
            name: READ_TOOL.name,
            arguments: { path },
          })),
        },
        { text: 'Read both.' },
      ],
    };
    const sessionId = await scriptedSession(ctx, c, script, 'auto', 'editor');
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: read two files at once');
    await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    ctx.transcript.note(
      c.conn.label,
      `at most ${most} tool/execute requests were outstanding at once`,
    );
  },
};

/**
 * tools/list `servers` (tools.md#tools-list-servers): only with a session;
 * each server once; a tool with origin mcp:<server> comes from a server of
 * that origin that is ready. A daemon that reports no servers skips the last.
 */
export const toolServers: Scenario<DaemonContext> = {
  id: 'daemon-tool-servers',
  role: 'daemon',
  title:
    'tools/list servers (and rules): only with a session; servers each once, every mcp: tool from a ready server',
  checks: ['daemon.tools.servers-session-only', 'daemon.tools.servers-origin'],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect('servers');
    requireDaemonCapability(c.init, 'tools');
    const resultOf = async (params: JsonObject): Promise<JsonObject> => {
      const answer = await c.conn.request(Methods.ToolsList.method, params);
      const result = answer?.result as JsonObject | undefined;
      if (!result) throw new Abort(`tools/list got ${describe(answer)}`);
      return result;
    };
    const builtins = await resultOf({});
    const sessionOnly = ['servers', 'rules', 'rulesError'].filter((key) => key in builtins);
    r.expect(
      'daemon.tools.servers-session-only',
      sessionOnly.length === 0,
      `tools/list without a session returned ${sessionOnly.map((key) => `${key} ${JSON.stringify(builtins[key])}`).join(', ')}`,
    );
    const sessionId = await newSession(ctx, c, 'default', 'thread');
    const listed = await resultOf({ sessionId });
    const servers = listed.servers as JsonObject[] | undefined;
    if (servers === undefined) {
      r.skip('daemon.tools.servers-origin', 'the daemon reports no tool servers');
      return;
    }
    const origins = servers.map((server) => String(server.origin));
    const twice = origins.filter((origin, i) => origins.indexOf(origin) !== i);
    const ready = new Set(
      servers.filter((server) => server.status === 'ready').map((server) => server.origin),
    );
    const orphans = (listed.tools as JsonObject[])
      .filter((tool) => String(tool.origin).startsWith('mcp:') && !ready.has(tool.origin))
      .map((tool) => `${String(tool.name)} (${String(tool.origin)})`);
    r.expect(
      'daemon.tools.servers-origin',
      twice.length === 0 && orphans.length === 0,
      [
        ...(twice.length ? [`servers listed more than once: ${twice.join(', ')}`] : []),
        ...(orphans.length ? [`tools of no ready server: ${orphans.join(', ')}`] : []),
      ].join('; '),
    );
  },
};
