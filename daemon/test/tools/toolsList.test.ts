/**
 * tools/list (tools.md#tools-list) against a daemon in one process with the
 * real agent, permission gate, session toolsets and catalogue: the built-in
 * tools, a session's toolset with each tool's permission, client tools, and
 * — the point of it all — equality with what a scripted turn offers the model.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResponseError } from 'vscode-jsonrpc/node';
import {
  ErrorCodes,
  Methods,
  Script,
  type ClientCapabilities,
  type ClientToolDeclaration,
  type PermissionMode,
  type ScriptInput,
  type ToolInfo,
} from '@arbor/protocol';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createPermissionGate } from '../../src/permissions/permissionGate.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import { buildRouter } from '../../src/server/handlers/index.js';
import { SessionManager } from '../../src/session/sessionManager.js';
import { openStore, type Store } from '../../src/store/index.js';
import { CommandCatalogue } from '../../src/commands/commandCatalogue.js';
import { builtinTools } from '../../src/tools/catalogue.js';
import { lazyToolCatalogue } from '../../src/tools/lazyCatalogue.js';
import { defineTool, toolDefinition, type Tool } from '../../src/tools/tool.js';
import { DAEMON_TOOL_NAMES } from '../../src/tools/toolNames.js';
import { SessionToolsets } from '../../src/tools/toolset.js';
import { turnEnd } from '../permissions/helpers.js';
import { z } from 'zod';
import { RecordingProvider } from '../agent/harness.js';
import { assertValid } from '../helpers/schemas.js';
import {
  connectClient,
  inMemoryDaemon,
  type TestClient,
  testContext,
} from '../helpers/inMemoryDaemon.js';

const tempDir = (prefix = 'arbor-ws-'): string => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

interface ToolsDaemon {
  provider: RecordingProvider;
  /** The user's directory: a skill put in its skills/ gives turns read_skill. */
  dataDir: string;
  /** How often the catalogue was built (it loads lazily, once). */
  loads: () => number;
  connect(options?: {
    capabilities?: ClientCapabilities;
    tools?: ClientToolDeclaration[];
  }): Promise<TestClient & { clientId: string }>;
  close(): Promise<void>;
}

function toolsDaemon(
  script: ScriptInput,
  options: { alwaysAsk?: string[]; extraTools?: Tool[] } = {},
): ToolsDaemon {
  const dataDir = tempDir('arbor-data-');
  const store: Store = openStore(dataDir);
  const alwaysAsk = options.alwaysAsk ?? [];
  const extraTools = options.extraTools ?? [];
  const provider = new RecordingProvider(new ScriptedProvider(Script.parse(script)));
  const runner = createTurnRunner({
    budgets: DEFAULT_BUDGET_LIMITS,
    defaultModel: undefined,
    scriptPath: undefined,
    log: () => undefined,
    provider,
    tools: extraTools,
    gate: createPermissionGate({ alwaysAsk, dataDir }),
    chunkCoalesceMs: 0,
  });
  const toolsets = new SessionToolsets({ watch: false, skills: new CommandCatalogue(dataDir) });
  const sessions = new SessionManager({
    store,
    turnRunner: () => Promise.resolve(runner),
    toolsets,
    log: silentLogger,
    maxHistoryTokens: DEFAULT_BUDGET_LIMITS.maxHistoryTokens,
  });
  let loads = 0;
  const context = testContext(sessions, {
    tools: lazyToolCatalogue(() => {
      loads += 1;
      return Promise.resolve({ toolsets, alwaysAsk, extraTools });
    }),
  });
  const router = buildRouter(context);
  const clients: TestClient[] = [];
  return {
    provider,
    dataDir,
    loads: () => loads,
    async connect({ capabilities = { approvals: {} }, tools } = {}) {
      const client = connectClient(context, router, {
        configure: (rpc) => {
          rpc.onRequest(Methods.ToolExecute.method, () => ({ content: 'done' }));
          rpc.onRequest(Methods.ApprovalRequest.method, () => ({ decision: 'allow' }));
        },
      });
      clients.push(client);
      const init = (await client.request(Methods.Initialize, {
        capabilities,
        ...(tools && { tools }),
      })) as { clientId: string; capabilities: Record<string, unknown> };
      assert.deepEqual(init.capabilities['tools'], {}, 'the daemon advertises capabilities.tools');
      client.rpc.sendNotification(Methods.Initialized.method, {});
      return Object.assign(client, { clientId: init.clientId });
    },
    async close() {
      for (const client of clients) client.close();
      await toolsets.closeAll();
      store.close();
    },
  };
}

async function listTools(client: TestClient, params?: unknown): Promise<ToolInfo[]> {
  const result: unknown = await client.request(Methods.ToolsList, params);
  assertValid(Methods.ToolsList.result, result, 'tools/list result');
  return (result as { tools: ToolInfo[] }).tools;
}

async function newSession(
  client: TestClient,
  permissionMode: PermissionMode = 'default',
  chatContext: 'thread' | 'editor' = 'thread',
  workspaceRoot = tempDir(),
): Promise<string> {
  const info = (await client.request(Methods.SessionNew, {
    workspaceRoot,
    permissionMode,
    chatContext: { kind: chatContext },
  })) as { sessionId: string };
  return info.sessionId;
}

async function errorOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, String(error));
    return error.code;
  }
  assert.fail('the request succeeded');
}

const byName = (tools: readonly ToolInfo[]) => new Map(tools.map((t) => [t.name, t]));
const permissions = (tools: readonly ToolInfo[]) =>
  Object.fromEntries(tools.map((t) => [t.name, t.permission]));
/** What the model is offered of each tool, as the provider sees it. */
const offered = (tools: readonly { name: string; description: string; inputSchema: unknown }[]) =>
  tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));

const OPEN_FILE: ClientToolDeclaration = {
  name: 'open_file',
  description: 'Open a file in the editor',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  category: 'read',
};
const APPLY_EDIT: ClientToolDeclaration = {
  name: 'apply_edit',
  description: 'Apply an edit with a diff view',
  inputSchema: { type: 'object', properties: { diff: { type: 'string' } }, required: ['diff'] },
  category: 'write',
};
/** Named like a daemon tool: never offered (client-tools.md#client-tools-builtin-collision). */
const SHADOWED: ClientToolDeclaration = {
  name: 'read_file',
  description: 'The editor buffer of a file',
  inputSchema: { type: 'object' },
  category: 'read',
};
const EDITOR_CLIENT = {
  capabilities: { approvals: {}, clientTools: {} },
  tools: [OPEN_FILE, APPLY_EDIT, SHADOWED],
};

const ANSWER: ScriptInput = { version: 1, conversations: { '*': [{ text: 'ok' }] } };

describe('tools/list', function () {
  this.timeout(20_000);
  const daemons: ToolsDaemon[] = [];
  const daemon = (script: ScriptInput = ANSWER, options?: Parameters<typeof toolsDaemon>[1]) => {
    const d = toolsDaemon(script, options);
    daemons.push(d);
    return d;
  };
  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((d) => d.close()));
  });

  describe('without a session: the built-in tools', () => {
    it('lists every daemon tool once, without permission, origin daemon', async () => {
      const client = await daemon().connect();
      const tools = await listTools(client, {});
      assert.deepEqual(tools.map((t) => t.name).sort(), [...DAEMON_TOOL_NAMES].sort());
      for (const tool of tools) {
        assert.equal(tool.origin, 'daemon', tool.name);
        assert.equal('permission' in tool, false, `${tool.name} has no permission`);
      }
    });

    it('reports the categories, parallel-safety and schemas of the tools themselves', async () => {
      const client = await daemon().connect();
      const tools = byName(await listTools(client));
      const expected: Record<string, [string, boolean]> = {
        read_file: ['read', true],
        write_file: ['write', false],
        edit_file: ['write', false],
        run_command: ['execute', false],
        todo_write: ['read', true],
        run_subtask: ['read', true],
        memory_write: ['read', true],
      };
      for (const [name, [category, parallelSafe]] of Object.entries(expected)) {
        assert.equal(tools.get(name)?.category, category, name);
        assert.equal(tools.get(name)?.parallelSafe, parallelSafe, name);
      }
      for (const tool of builtinTools()) {
        const definition = toolDefinition(tool);
        assert.deepEqual(tools.get(tool.name)?.inputSchema, definition.inputSchema, tool.name);
        assert.equal(tools.get(tool.name)?.description, definition.description, tool.name);
      }
    });

    it('takes params omitted or {} alike, and never lists client tools', async () => {
      // null and [] need raw frames (vscode-jsonrpc wraps them): toolsListProcess.test.ts.
      const client = await daemon().connect(EDITOR_CLIENT);
      const names = (await listTools(client, {})).map((t) => t.name);
      assert.deepEqual(
        (await listTools(client)).map((t) => t.name),
        names,
      );
      assert.ok(!names.includes('open_file'));
    });

    it('loads the catalogue once, on first use', async () => {
      const d = daemon();
      const client = await d.connect();
      assert.equal(d.loads(), 0, 'initialize advertises the capability without loading the tools');
      await Promise.all([listTools(client), listTools(client)]);
      await listTools(client);
      assert.equal(d.loads(), 1);
    });
  });

  describe('with a session: its toolset and permissions', () => {
    it('gives each tool the verdict of the session’s current mode', async () => {
      const client = await daemon().connect();
      const sessionId = await newSession(client, 'plan');
      const plan = permissions(await listTools(client, { sessionId }));
      assert.deepEqual(
        [plan['read_file'], plan['grep'], plan['todo_write'], plan['memory_write']],
        ['run', 'run', 'run', 'run'],
      );
      assert.deepEqual(
        [plan['write_file'], plan['edit_file'], plan['run_command']],
        ['block', 'block', 'block'],
      );

      for (const [mode, write] of [
        ['default', 'ask'],
        ['auto', 'run'],
      ] as const) {
        await client.request(Methods.SessionSetPermissionMode, { sessionId, mode });
        const verdicts = permissions(await listTools(client, { sessionId }));
        assert.equal(verdicts['read_file'], 'run', mode);
        assert.equal(verdicts['write_file'], write, mode);
        assert.equal(verdicts['edit_file'], write, mode);
        assert.equal(verdicts['run_command'], write, mode);
      }
    });

    it('always-ask tools ask in auto; in plan a read one asks and the others are blocked', async () => {
      const client = await daemon(ANSWER, { alwaysAsk: ['grep', 'run_command'] }).connect();
      const expected: Record<PermissionMode, [string, string, string]> = {
        plan: ['ask', 'block', 'run'],
        default: ['ask', 'ask', 'run'],
        auto: ['ask', 'ask', 'run'],
      };
      for (const [mode, [grep, command, glob]] of Object.entries(expected)) {
        const sessionId = await newSession(client, mode as PermissionMode);
        const verdicts = permissions(await listTools(client, { sessionId }));
        assert.deepEqual(
          [verdicts['grep'], verdicts['run_command'], verdicts['glob']],
          [grep, command, glob],
        );
      }
    });

    it('run_subtask, which the loop runs without the gate, says run in every mode', async () => {
      const client = await daemon(ANSWER, { alwaysAsk: ['run_subtask'] }).connect();
      for (const mode of ['plan', 'default', 'auto'] as const) {
        const sessionId = await newSession(client, mode);
        const verdicts = permissions(await listTools(client, { sessionId }));
        assert.equal(verdicts['run_subtask'], 'run', mode);
      }
    });

    it('an editor session lists the requesting client’s declared tools, origin client', async () => {
      const d = daemon();
      const editor = await d.connect(EDITOR_CLIENT);
      const sessionId = await newSession(editor, 'default', 'editor');
      const tools = await listTools(editor, { sessionId });
      const mine = tools.filter((t) => t.origin === 'client');
      assert.deepEqual(
        mine.map((t) => [t.name, t.category, t.permission]),
        [
          ['open_file', 'read', 'run'],
          ['apply_edit', 'write', 'ask'],
        ],
      );
      assert.deepEqual(
        mine[0]!.inputSchema,
        OPEN_FILE.inputSchema,
        'the declared schema, verbatim',
      );
      assert.equal(mine[0]!.description, OPEN_FILE.description);
      const readFile = tools.filter((t) => t.name === 'read_file');
      assert.deepEqual(
        readFile.map((t) => t.origin),
        ['daemon'],
        'a declared tool named like a daemon tool is left out',
      );
      assert.equal(new Set(tools.map((t) => t.name)).size, tools.length, 'names are unique');

      // Another client asking about the same session gets its own tools, not the editor's.
      const plain = await d.connect();
      const theirs = await listTools(plain, { sessionId });
      assert.deepEqual(
        theirs.filter((t) => t.origin !== 'daemon'),
        [],
      );
    });

    it('lists no client tools in a thread session or without clientTools negotiated', async () => {
      const d = daemon();
      const editor = await d.connect(EDITOR_CLIENT);
      const thread = await newSession(editor, 'default', 'thread');
      assert.deepEqual(
        (await listTools(editor, { sessionId: thread })).filter((t) => t.origin === 'client'),
        [],
      );
      const undeclared = await d.connect({ capabilities: {}, tools: [OPEN_FILE] });
      const editorSession = await newSession(undeclared, 'default', 'editor');
      assert.deepEqual(
        (await listTools(undeclared, { sessionId: editorSession })).filter(
          (t) => t.origin === 'client',
        ),
        [],
      );
    });

    it('lists the daemon’s extra tools after its own, before the session’s', async () => {
      const extra = defineTool({
        name: 'lookup_docs',
        description: 'Looks something up',
        input: z.object({ query: z.string() }),
        category: 'external',
        execute: () => 'found',
      }) as Tool;
      const client = await daemon(ANSWER, { extraTools: [extra] }).connect();
      const sessionId = await newSession(client, 'plan');
      const tools = await listTools(client, { sessionId });
      const names = tools.map((t) => t.name);
      assert.equal(names.indexOf('lookup_docs'), 5, names.join(', '));
      assert.equal(byName(tools).get('lookup_docs')?.permission, 'block');
    });

    it('answers -33004 for an unknown session and -32602 for a malformed sessionId', async () => {
      const client = await daemon().connect();
      assert.equal(
        await errorOf(client.request(Methods.ToolsList, { sessionId: 'ses_nope' })),
        ErrorCodes.SessionNotFound,
      );
      assert.equal(
        await errorOf(client.request(Methods.ToolsList, { sessionId: 7 })),
        ErrorCodes.InvalidParams,
      );
      const sessionId = await newSession(client);
      await client.request(Methods.SessionDelete, { sessionId });
      assert.equal(
        await errorOf(client.request(Methods.ToolsList, { sessionId })),
        ErrorCodes.SessionNotFound,
      );
    });

    it('needs no attachment and changes nothing: no event, no attach', async () => {
      const d = daemon();
      const owner = await d.connect();
      const sessionId = await newSession(owner, 'auto');
      const stranger = await d.connect();
      const before = owner.events.length;
      const tools = await listTools(stranger, { sessionId });
      assert.ok(tools.length > 0);
      await listTools(owner, { sessionId });
      // A round trip after: any event tools/list caused would have arrived by now.
      await owner.request(Methods.SessionList, {});
      assert.equal(owner.events.length, before);
      assert.equal(stranger.events.length, 0, 'the stranger was not attached');
      assert.equal(
        await errorOf(stranger.request(Methods.ChatSend, { sessionId, text: 'hi' })),
        ErrorCodes.NotAttached,
      );
    });
  });

  describe('equals what the model is offered', () => {
    for (const chatContext of ['thread', 'editor'] as const) {
      it(`in the ${chatContext} context: the first model call of a turn offers exactly tools/list`, async () => {
        const d = daemon();
        const client = await d.connect(EDITOR_CLIENT);
        const sessionId = await newSession(client, 'default', chatContext);
        const listed = await listTools(client, { sessionId });
        const { turnId } = (await client.request(Methods.ChatSend, {
          sessionId,
          text: 'hello',
        })) as { turnId: string };
        await turnEnd(client, turnId);
        const request = d.provider.requests[0];
        assert.ok(request?.tools, 'the model was offered tools');
        assert.deepEqual(offered(request.tools), offered(listed));
        if (chatContext === 'editor') assert.ok(listed.some((t) => t.origin === 'client'));
        else assert.ok(!listed.some((t) => t.origin === 'client'));
      });
    }

    it('with extra tools too, and tools/list without a session names the same daemon tools', async () => {
      const extra = defineTool({
        name: 'lookup_docs',
        description: 'Looks something up',
        input: z.object({ query: z.string().describe('What to look up') }),
        category: 'external',
        execute: () => 'found',
      }) as Tool;
      const d = daemon(ANSWER, { extraTools: [extra] });
      // Built-in tools are listed as a turn with every session tool gets them: ask_user for a
      // client that answers questions, read_skill for a user with a skill.
      mkdirSync(join(d.dataDir, 'skills/demo'), { recursive: true });
      writeFileSync(
        join(d.dataDir, 'skills/demo/SKILL.md'),
        '---\ndescription: A demo\n---\nDemo.',
      );
      const client = await d.connect({ capabilities: { approvals: {}, questions: {} } });
      const sessionId = await newSession(client);
      const { turnId } = (await client.request(Methods.ChatSend, { sessionId, text: 'go' })) as {
        turnId: string;
      };
      await turnEnd(client, turnId);
      const modelSaw = offered(d.provider.requests[0]!.tools ?? []);
      assert.deepEqual(modelSaw, offered(await listTools(client, { sessionId })));
      assert.deepEqual(modelSaw, offered(await listTools(client)));
    });

    it('a script written from tools/list runs: a structured subtask ends with finish_subtask', async () => {
      // The appendix's example (appendix-scripted-provider.md#script-subtasks), plus a memory read.
      const outputSchema = {
        type: 'object',
        properties: { count: { type: 'integer' } },
        required: ['count'],
      };
      const d = daemon({
        version: 1,
        conversations: {
          'Count the fixtures': [
            {
              toolCalls: [
                {
                  name: 'run_subtask',
                  arguments: {
                    title: 'Count',
                    instructions: 'Count files in test/fixtures',
                    output_schema: outputSchema,
                  },
                },
              ],
            },
            { toolCalls: [{ name: 'memory_list', arguments: {} }] },
            { text: 'There are 3 fixtures.' },
          ],
          'Count files in test/fixtures': [
            { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
            { toolCalls: [{ name: 'finish_subtask', arguments: { count: '3' } }] },
            { toolCalls: [{ name: 'finish_subtask', arguments: { count: 3 } }] },
          ],
        },
      });
      const client = await d.connect();
      const sessionId = await newSession(client, 'plan');
      const listed = await listTools(client, { sessionId });
      assert.ok(!listed.some((t) => t.name === 'finish_subtask'), 'only inside the subtask');
      const { turnId } = (await client.request(Methods.ChatSend, {
        sessionId,
        text: 'Count the fixtures',
      })) as { turnId: string };
      const end = await turnEnd(client, turnId);
      assert.equal(end['stopReason'], 'end_turn');

      const subtaskCalls = d.provider.requests.filter(
        (r) => r.messages[0]?.content === 'Count files in test/fixtures',
      );
      for (const call of subtaskCalls) {
        const finish = call.tools?.find((t) => t.name === 'finish_subtask');
        assert.deepEqual(finish?.inputSchema, outputSchema, 'finish_subtask takes output_schema');
      }
      const rootCalls = d.provider.requests.filter(
        (r) => r.messages[0]?.content === 'Count the fixtures',
      );
      const toolMessages = rootCalls[rootCalls.length - 1]!.messages.filter(
        (m) => m.role === 'tool',
      );
      const [subtask, memory] = toolMessages as { content: string; isError?: boolean }[];
      assert.equal(subtask?.content, '{"count":3}');
      assert.equal(subtask?.isError, false);
      assert.match(memory?.content ?? '', /^task:\S+ \(11 chars\)$/);
      const retry = subtaskCalls[2]!.messages.filter((m) => m.role === 'tool').pop();
      assert.match(
        retry?.content ?? '',
        /does not match the output schema[\s\S]*\(3 retries left\)/,
      );
    });
  });

  it('is not served, nor advertised, by a daemon without a catalogue', async () => {
    const d = inMemoryDaemon();
    const client = d.connect({ initialize: false });
    const c = await client;
    const init = (await c.request(Methods.Initialize, {})) as { capabilities: object };
    assert.equal('tools' in init.capabilities, false);
    c.rpc.sendNotification(Methods.Initialized.method, {});
    assert.equal(await errorOf(c.request(Methods.ToolsList, {})), ErrorCodes.MethodNotFound);
    c.close();
    d.close();
  });
});
