/**
 * Slash commands and skills (protocol-spec/spec/commands.md) against a daemon
 * in one process with the real agent, session toolsets and command catalogue:
 * what the scripted model receives is recorded, so expansion, the skills in
 * the system prompt and read_skill's results are asserted on the provider's input.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Methods, Script, type CommandInfo, type ScriptInput } from '@arbor/protocol';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import { CommandCatalogue } from '../../src/commands/commandCatalogue.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createPermissionGate } from '../../src/permissions/permissionGate.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import { buildRouter } from '../../src/server/handlers/index.js';
import { SessionManager } from '../../src/session/sessionManager.js';
import { openStore } from '../../src/store/index.js';
import { SessionToolsets } from '../../src/tools/toolset.js';
import { RecordingProvider } from '../agent/harness.js';
import { assertValid } from '../helpers/schemas.js';
import { connectClient, testContext, type TestClient } from '../helpers/inMemoryDaemon.js';
import { turnEnd } from '../permissions/helpers.js';

const tempDir = (prefix: string): string => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

interface CommandsDaemon {
  provider: RecordingProvider;
  userDir: string;
  workspace: string;
  client: TestClient;
  sessionId: string;
  close(): Promise<void>;
}

async function commandsDaemon(script: ScriptInput): Promise<CommandsDaemon> {
  const userDir = tempDir('arbor-data-');
  const workspace = tempDir('arbor-ws-');
  const store = openStore(userDir);
  const provider = new RecordingProvider(new ScriptedProvider(Script.parse(script)));
  const runner = createTurnRunner({
    budgets: DEFAULT_BUDGET_LIMITS,
    defaultModel: undefined,
    scriptPath: undefined,
    log: () => undefined,
    provider,
    tools: [],
    gate: createPermissionGate({ alwaysAsk: [], dataDir: userDir }),
    chunkCoalesceMs: 0,
    // As the daemon does: later turns get earlier ones as the model saw them.
    sessionContext: (sessionId) => store.context.of(sessionId),
  });
  const commands = new CommandCatalogue(userDir);
  const toolsets = new SessionToolsets({ watch: false, skills: commands });
  const sessions = new SessionManager({
    store,
    turnRunner: () => Promise.resolve(runner),
    toolsets,
    commands,
    log: silentLogger,
    maxHistoryTokens: DEFAULT_BUDGET_LIMITS.maxHistoryTokens,
  });
  const context = testContext(sessions, { commands: true });
  const client = connectClient(context, buildRouter(context));
  const init = (await client.request(Methods.Initialize, {})) as {
    capabilities: Record<string, unknown>;
  };
  assert.deepEqual(
    init.capabilities['commands'],
    {},
    'the daemon advertises capabilities.commands',
  );
  client.rpc.sendNotification(Methods.Initialized.method, {});
  const { sessionId } = (await client.request(Methods.SessionNew, {
    workspaceRoot: workspace,
    permissionMode: 'default',
  })) as { sessionId: string };
  return {
    provider,
    userDir,
    workspace,
    client,
    sessionId,
    async close() {
      client.close();
      await toolsets.closeAll();
      store.close();
    },
  };
}

const ANSWER: ScriptInput = { version: 1, conversations: { '*': [{ text: 'ok' }] } };

async function list(d: CommandsDaemon): Promise<CommandInfo[]> {
  const result: unknown = await d.client.request(Methods.CommandsList, { sessionId: d.sessionId });
  assertValid(Methods.CommandsList.result, result, 'commands/list result');
  return (result as { commands: CommandInfo[] }).commands;
}

async function runTurn(d: CommandsDaemon, text: string): Promise<void> {
  const { turnId } = (await d.client.request(Methods.ChatSend, {
    sessionId: d.sessionId,
    text,
  })) as { turnId: string };
  const end = await turnEnd(d.client, turnId);
  assert.equal(end['stopReason'], 'end_turn', JSON.stringify(end));
}

/** The last user message the model got in the provider's first request of the last turn. */
function lastUserMessage(d: CommandsDaemon, request = d.provider.requests.at(-1)!): string {
  const user = request.messages.filter((m) => m.role === 'user').at(-1);
  assert.ok(user, 'the model got a user message');
  return user.content;
}

describe('slash commands and skills', function () {
  this.timeout(20_000);
  const daemons: CommandsDaemon[] = [];
  const daemon = async (script: ScriptInput = ANSWER) => {
    const d = await commandsDaemon(script);
    daemons.push(d);
    return d;
  };
  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((d) => d.close()));
  });

  describe('commands/list', () => {
    it('lists workspace and user commands and skills; a workspace one hides the user one', async () => {
      const d = await daemon();
      write(
        join(d.workspace, '.arbor/commands/review.md'),
        '---\ndescription: Review a file\nargument-hint: "<file> [focus]"\n---\nReview $1.',
      );
      write(join(d.workspace, '.arbor/commands/git/commit.md'), 'Write a commit message.');
      write(join(d.userDir, 'commands/review.md'), '---\ndescription: mine\n---\nMine.');
      write(join(d.userDir, 'commands/explain.md'), 'Explain $ARGUMENTS.');
      write(
        join(d.userDir, 'skills/pdf/SKILL.md'),
        '---\nname: pdf\ndescription: Fill PDF forms\n---\nUse scripts/fill.py.',
      );
      assert.deepEqual(await list(d), [
        { name: 'explain', kind: 'command', source: 'user' },
        { name: 'git:commit', kind: 'command', source: 'workspace' },
        {
          name: 'review',
          kind: 'command',
          source: 'workspace',
          description: 'Review a file',
          argumentHint: '<file> [focus]',
        },
        { name: 'pdf', kind: 'skill', source: 'user', description: 'Fill PDF forms' },
      ]);
    });

    it('announces a command file added since with commands/changed before the next turn runs', async () => {
      const d = await daemon();
      assert.deepEqual(await list(d), []);
      write(join(d.workspace, '.arbor/commands/fix.md'), 'Fix it.');
      await runTurn(d, 'hello');
      const changed = d.client.eventsOf(Methods.CommandsChanged);
      assert.equal(changed.length, 1, 'one commands/changed');
      assertValid(Methods.CommandsChanged.params, changed[0], 'commands/changed params');
      assert.deepEqual(changed[0]!['commands'], [
        { name: 'fix', kind: 'command', source: 'workspace' },
      ]);
      const methods = d.client.events.map((e) => e.method);
      assert.ok(
        methods.indexOf(Methods.CommandsChanged.method) <
          methods.indexOf(Methods.SessionState.method),
        'commands/changed comes before session/state running',
      );
      // Nothing changed since: no second announcement.
      await list(d);
      assert.equal(d.client.eventsOf(Methods.CommandsChanged).length, 1);
    });
  });

  describe('/name in chat/send', () => {
    it('gives the model the expansion with $ARGUMENTS and $1..$9, and stores the text as typed', async () => {
      const d = await daemon();
      write(
        join(d.workspace, '.arbor/commands/review.md'),
        '---\ndescription: Review\n---\nReview $1 for $2.\nAll: $ARGUMENTS',
      );
      await runTurn(d, '/review src/app.ts "off by one"');
      assert.equal(
        lastUserMessage(d),
        'Review src/app.ts for off by one.\nAll: src/app.ts "off by one"',
      );
      const loaded = (await d.client.request(Methods.SessionLoad, { sessionId: d.sessionId })) as {
        messages: { role: string; content: string }[];
      };
      assert.equal(
        loaded.messages.find((m) => m.role === 'user')?.content,
        '/review src/app.ts "off by one"',
      );
    });

    it('appends the arguments to a template that names none, and keeps the expansion in later turns', async () => {
      const d = await daemon();
      write(join(d.userDir, 'commands/explain.md'), 'Explain this code.');
      await runTurn(d, '/explain the parser');
      assert.equal(lastUserMessage(d), 'Explain this code.\n\nARGUMENTS: the parser');
      await runTurn(d, 'thanks');
      const history = d.provider.requests.at(-1)!.messages.filter((m) => m.role === 'user');
      assert.equal(history[0]?.content, 'Explain this code.\n\nARGUMENTS: the parser');
    });

    it('sends a /word that names no command to the model unchanged', async () => {
      const d = await daemon();
      write(join(d.workspace, '.arbor/commands/review.md'), 'Review $ARGUMENTS');
      await runTurn(d, '/nope keep this');
      assert.equal(lastUserMessage(d), '/nope keep this');
    });
  });

  describe('skills', () => {
    const READ = (args: Record<string, unknown>) => ({
      toolCalls: [{ id: 'c1', name: 'read_skill', arguments: args }],
    });

    it('names each skill in the system prompt and reads its files with read_skill on demand', async () => {
      const d = await daemon({
        version: 1,
        conversations: {
          '*': [
            READ({ name: 'pdf' }),
            READ({ name: 'pdf', path: 'reference/forms.md' }),
            { text: 'done' },
          ],
        },
      });
      // A user skill: outside the workspace, where read_file cannot reach.
      write(
        join(d.userDir, 'skills/pdf/SKILL.md'),
        '---\nname: pdf\ndescription: Fill PDF forms\n---\nSee reference/forms.md.',
      );
      write(join(d.userDir, 'skills/pdf/reference/forms.md'), 'Field names are case-sensitive.');
      await runTurn(d, 'fill the form');
      const [first, second, third] = d.provider.requests;
      assert.match(first!.system, /- pdf: Fill PDF forms/);
      assert.ok(
        first!.tools?.some((t) => t.name === 'read_skill'),
        'read_skill is offered',
      );
      const toolResult = (request: typeof second) =>
        request!.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
      assert.match(toolResult(second), /See reference\/forms\.md\./);
      assert.match(toolResult(third), /Field names are case-sensitive\./);
    });

    it('refuses a path leading out of the skill folder, by .. or by a link', async () => {
      const d = await daemon({
        version: 1,
        conversations: {
          '*': [
            READ({ name: 'pdf', path: '../../secret.txt' }),
            READ({ name: 'pdf', path: 'link.txt' }),
            { text: 'done' },
          ],
        },
      });
      write(join(d.workspace, '.arbor/skills/pdf/SKILL.md'), '---\ndescription: PDF\n---\nx');
      write(join(d.workspace, '.arbor/secret.txt'), 'TOP SECRET');
      symlinkSync(
        join(d.workspace, '.arbor/secret.txt'),
        join(d.workspace, '.arbor/skills/pdf/link.txt'),
      );
      await runTurn(d, 'go');
      const results = d.provider.requests
        .at(-1)!
        .messages.filter((m) => m.role === 'tool')
        .map((m) => m.content);
      assert.equal(results.length, 2);
      for (const result of results) {
        assert.doesNotMatch(result, /TOP SECRET/);
        assert.match(result, /outside the skill folder/);
      }
    });

    it('offers no read_skill and lists no skills when there are none', async () => {
      const d = await daemon();
      await runTurn(d, 'hi');
      const request = d.provider.requests[0]!;
      assert.ok(!request.tools?.some((t) => t.name === 'read_skill'));
      assert.doesNotMatch(request.system, /Available skills/);
    });
  });
});
