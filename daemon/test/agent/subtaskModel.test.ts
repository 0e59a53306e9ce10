/**
 * Config `subtaskModel`: subtask loops (any depth > 0) run on their own model,
 * the root on the session's; without it a subtask inherits its parent's model.
 * Every call is accounted to the provider and model that served it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods, type ModelCost } from '@arbor/protocol';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import { daemonCommand } from '../../src/cli/daemonCommand.js';
import {
  ConfigError,
  configFromEnv,
  readConfigFile,
  resolveConfig,
} from '../../src/config/daemonConfig.js';
import type { ProviderRequest } from '../../src/providers/provider.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import {
  RecordingProvider,
  RecordingSink,
  TURN_ID,
  runTurn,
  script,
  type TurnRun,
} from './harness.js';

const subtask = (title: string, instructions: string) => ({
  name: 'run_subtask',
  arguments: { title, instructions },
});

/** Root -> subtask -> nested subtask, with distinct usage per loop. */
const TREE_SCRIPT = script({
  hello: [
    { toolCalls: [subtask('Sub', 'do sub')], usage: { inputTokens: 10, outputTokens: 1 } },
    { text: 'root done', usage: { inputTokens: 20, outputTokens: 2 } },
  ],
  'do sub': [
    { toolCalls: [subtask('Deeper', 'do deeper')], usage: { inputTokens: 100, outputTokens: 10 } },
    { text: 'sub done', usage: { inputTokens: 200, outputTokens: 20 } },
  ],
  'do deeper': [{ text: 'deeper done', usage: { inputTokens: 1000, outputTokens: 100 } }],
});

/** Two recording providers posing as real ones, and a runTurn that resolves models through them. */
function twoProviders() {
  const openai = new RecordingProvider(new ScriptedProvider(TREE_SCRIPT), 'openai');
  const anthropic = new RecordingProvider(new ScriptedProvider(TREE_SCRIPT), 'anthropic');
  const run = (subtaskModel: string | undefined): Promise<TurnRun> =>
    runTurn(TREE_SCRIPT, {
      model: 'openai:gpt-root',
      agent: {
        provider: undefined,
        providerFactories: { openai: () => openai, anthropic: () => anthropic },
        // Per input token: 0.5 on the root's model, 0.25 on the subtask's (exact in binary).
        pricing: (_provider, model, usage) =>
          usage.inputTokens * (model === 'gpt-root' ? 0.5 : 0.25),
        ...(subtaskModel === undefined ? {} : { subtaskModel }),
      },
    });
  return { openai, anthropic, run };
}

const firstUser = (request: ProviderRequest): string => request.messages[0]?.content ?? '';

function byModel(run: TurnRun): ModelCost[] {
  const [summary] = run.sink.of(Methods.CostSummary);
  return (summary?.byModel ?? []) as ModelCost[];
}

describe('agent: subtaskModel', () => {
  it('root on the session model, every subtask (any depth) on subtaskModel; byModel lists both', async () => {
    const { openai, anthropic, run } = twoProviders();
    const turn = await run('anthropic:claude-sub');
    assert.equal(turn.result.stopReason, 'end_turn', turn.result.error);
    assert.equal(turn.result.text, 'root done');

    assert.deepEqual(
      openai.requests.map((r) => [r.model, firstUser(r)]),
      [
        ['gpt-root', 'hello'],
        ['gpt-root', 'hello'],
      ],
    );
    assert.deepEqual(
      anthropic.requests.map((r) => [r.model, firstUser(r)]),
      [
        ['claude-sub', 'do sub'],
        ['claude-sub', 'do deeper'],
        ['claude-sub', 'do sub'],
      ],
    );

    assert.deepEqual(byModel(turn), [
      {
        provider: 'openai',
        model: 'gpt-root',
        calls: 2,
        usage: { inputTokens: 30, outputTokens: 3 },
        cost: 15,
      },
      {
        provider: 'anthropic',
        model: 'claude-sub',
        calls: 3,
        usage: { inputTokens: 1300, outputTokens: 130 },
        cost: 325,
      },
    ]);
    assert.deepEqual(turn.result.usage, { inputTokens: 1330, outputTokens: 133 });
  });

  it('without subtaskModel a subtask runs on its parent model', async () => {
    const { openai, anthropic, run } = twoProviders();
    const turn = await run(undefined);
    assert.equal(turn.result.stopReason, 'end_turn', turn.result.error);
    assert.equal(anthropic.requests.length, 0);
    assert.deepEqual(
      openai.requests.map((r) => r.model),
      Array(5).fill('gpt-root'),
    );
    assert.deepEqual(
      byModel(turn).map((m) => [m.provider, m.model, m.calls, m.usage]),
      [['openai', 'gpt-root', 5, { inputTokens: 1330, outputTokens: 133 }]],
    );
  });

  it('a turn with a script runs every loop on it, whatever subtaskModel says', async () => {
    const runner = createTurnRunner({
      budgets: DEFAULT_BUDGET_LIMITS,
      defaultModel: undefined,
      subtaskModel: 'anthropic:claude-sub',
      scriptPath: undefined,
      log: () => undefined,
      // No factories: resolving the subtask model would fail the turn.
      providerFactories: {},
    });
    const sink = new RecordingSink();
    const result = await runner.run({
      sessionId: 's',
      turnId: TURN_ID,
      text: 'hello',
      workspaceRoot: '/tmp',
      model: 'openai:gpt-root',
      script: TREE_SCRIPT,
      permissionMode: () => 'auto',
      history: [],
      events: sink,
      signal: new AbortController().signal,
    });
    assert.equal(result.stopReason, 'end_turn', result.error);
    const [summary] = sink.of(Methods.CostSummary);
    assert.deepEqual(
      (summary?.byModel as ModelCost[]).map((m) => [m.provider, m.model, m.calls]),
      [['scripted', 'scripted', 5]],
    );
  });

  it('a subtask model that cannot be resolved fails the turn with a clear error', async () => {
    const openai = new RecordingProvider(new ScriptedProvider(TREE_SCRIPT), 'openai');
    const turn = await runTurn(TREE_SCRIPT, {
      model: 'openai:gpt-root',
      agent: {
        provider: undefined,
        providerFactories: { openai: () => openai },
        subtaskModel: 'anthropic:claude-sub',
      },
    });
    assert.equal(turn.result.stopReason, 'error');
    assert.equal(turn.result.error, 'provider "anthropic" is not available in this build');
  });
});

describe('config: subtaskModel', () => {
  it('comes from the file, ARBOR_SUBTASK_MODEL or --subtask-model (flags win)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-config-'));
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ subtaskModel: 'openai:file' }));
    const file = readConfigFile(path);
    assert.equal(resolveConfig(file, {}, {}).subtaskModel, 'openai:file');
    const env = configFromEnv({ ARBOR_SUBTASK_MODEL: 'anthropic:env' });
    assert.equal(resolveConfig(file, env, {}).subtaskModel, 'anthropic:env');
    assert.equal(
      resolveConfig(file, env, { subtaskModel: 'local:q@http://127.0.0.1:1/v1' }).subtaskModel,
      'local:q@http://127.0.0.1:1/v1',
    );
    assert.equal(resolveConfig({}, {}, {}).subtaskModel, undefined);
  });

  it('an invalid model string is a config error naming subtaskModel', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-config-'));
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ subtaskModel: 'gpt-4.1' }));
    assert.throws(
      () => readConfigFile(path),
      (error: Error) =>
        error instanceof ConfigError &&
        /subtaskModel: model "gpt-4\.1" is not of the form provider:model/.test(error.message),
    );
    assert.throws(
      () => resolveConfig({}, configFromEnv({ ARBOR_SUBTASK_MODEL: 'nope:x' }), {}),
      /subtaskModel: unknown provider "nope"/,
    );
  });

  it('arbor daemon --subtask-model <bad> stops at startup with a ConfigError', async () => {
    await assert.rejects(
      daemonCommand(['--stdio', '--subtask-model', 'local:qwen']),
      (error: Error) =>
        error instanceof ConfigError &&
        /invalid option:\n {2}subtaskModel: local model "local:qwen" is not of the form/.test(
          error.message,
        ),
    );
  });
});
