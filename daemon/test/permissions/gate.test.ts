/** The permission gate: approvals.md#permission-matrix, its exceptions, grants, subtasks. */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Methods, type PermissionMode, type ToolCategory } from '@arbor/protocol';
import fc from 'fast-check';
import { script } from '../agent/harness.js';
import { decideCall } from '../../src/permissions/permissionMatrix.js';
import { SessionGrants } from '../../src/permissions/grants.js';
import { createDaemonContext } from '../../src/server/startDaemon.js';
import { resolveConfig } from '../../src/config/daemonConfig.js';
import { silentLogger } from '../../src/logging/logger.js';
import {
  DAEMON_TOOL_NAMES,
  PROCESS_TOOL_NAMES,
  WORKSPACE_TOOL_NAMES,
} from '../../src/tools/toolNames.js';
import { createWorkspaceTools, openWorkspace } from '../../src/tools/workspace/index.js';
import { MEMORY_TOOLS } from '../../src/tools/memory.js';
import { READ_ARTIFACT } from '../../src/tools/readArtifact.js';
import { ASK_USER } from '../../src/tools/askUser.js';
import { READ_SKILL } from '../../src/commands/readSkillTool.js';
import { RUN_SUBTASK } from '../../src/agent/subtaskTools.js';
import { CATEGORY_TOOLS, runGated, toolMessagesOf } from './gateHarness.js';
import { tempDir } from './helpers.js';

const MODES: PermissionMode[] = ['plan', 'default', 'auto'];
const CATEGORIES: ToolCategory[] = ['read', 'write', 'execute', 'external'];

/** The table of approvals.md#approvals-matrix, written out. */
const EXPECTED: Record<PermissionMode, Record<ToolCategory, 'run' | 'ask' | 'block'>> = {
  plan: { read: 'run', write: 'block', execute: 'block', external: 'block' },
  default: { read: 'run', write: 'ask', execute: 'ask', external: 'ask' },
  auto: { read: 'run', write: 'run', execute: 'run', external: 'run' },
};

const callOnce = (name: string, args: object = {}) =>
  script({ go: [{ toolCalls: [{ id: 'call_1', name, arguments: args }] }, { text: 'done' }] });

describe('permission gate', function () {
  this.timeout(20_000);

  describe('mode × category matrix, through a turn', () => {
    for (const mode of MODES) {
      for (const category of CATEGORIES) {
        const expected = EXPECTED[mode][category];
        it(`${mode} × ${category}: ${expected}`, async () => {
          const name = CATEGORY_TOOLS[category];
          const run = await runGated(callOnce(name), { mode, answer: 'allow' });
          const node = run.result.tree.nodes.find((n) => n.name === name)!;
          const result = toolMessagesOf(run)[0]!;
          if (expected === 'run') {
            assert.deepEqual(run.executions, [name]);
            assert.equal(run.asked.length, 0);
            assert.equal(node.approval, 'not_required');
            assert.equal(node.status, 'done');
          } else if (expected === 'ask') {
            assert.equal(run.asked.length, 1, 'asked once');
            assert.equal(run.asked[0]!.category, category);
            assert.deepEqual(run.executions, [name], 'runs after allow');
            assert.equal(node.approval, 'approved');
          } else {
            assert.deepEqual(run.executions, []);
            assert.equal(run.asked.length, 0);
            assert.equal(node.status, 'blocked');
            assert.match(result.content, /^blocked_in_plan_mode/);
            assert.equal(result.isError, true);
          }
          assert.equal(
            decideCall(mode, { category, alwaysAsk: false, protectedPath: false }),
            expected,
          );
        });
      }
    }
  });

  it('a tool of unknown category counts as external', async () => {
    const extra = [{ name: 'mystery', category: 'teleport' }];
    const plan = await runGated(callOnce('mystery'), { mode: 'plan', extraTools: extra });
    assert.deepEqual(plan.executions, []);
    const ask = await runGated(callOnce('mystery'), {
      mode: 'default',
      extraTools: extra,
      answer: 'allow',
    });
    assert.equal(ask.asked[0]!.category, 'external');
  });

  describe('always-ask (HITL) tools', () => {
    it('ask in auto on every call, and a grant does not cover them', async () => {
      const two = script({
        go: [
          { toolCalls: [{ id: 'c1', name: 'launch', arguments: {} }] },
          { toolCalls: [{ id: 'c2', name: 'launch', arguments: {} }] },
          { text: 'done' },
        ],
      });
      const run = await runGated(two, {
        mode: 'auto',
        alwaysAsk: ['launch'],
        answer: 'allowForSession',
      });
      assert.equal(run.asked.length, 2);
      assert.match(run.asked[0]!.reason, /always-ask/);
      assert.deepEqual(run.executions, ['launch', 'launch']);
    });

    it('are blocked in plan, except read tools, which ask', async () => {
      const blocked = await runGated(callOnce('launch'), {
        mode: 'plan',
        alwaysAsk: ['launch'],
        answer: 'allow',
      });
      assert.deepEqual(blocked.executions, []);
      assert.equal(blocked.asked.length, 0);
      const read = await runGated(callOnce('peek'), {
        mode: 'plan',
        alwaysAsk: ['peek'],
        answer: 'allow',
      });
      assert.equal(read.asked.length, 1);
      assert.deepEqual(read.executions, ['peek']);
    });

    it('unknown names in the config are a startup error', async () => {
      const config = resolveConfig(
        { alwaysAsk: ['run_comand'] },
        {},
        { dataDir: tempDir('arbor-data-') },
      );
      await assert.rejects(
        createDaemonContext({ config, log: silentLogger, daemonVersion: 'test', testing: false }),
        /alwaysAsk names unknown tools: run_comand/,
      );
    });

    it('the startup list of daemon tool names matches the real tools', () => {
      const workspaceNames = createWorkspaceTools(openWorkspace(tempDir(), { watch: false })).map(
        (t) => t.name,
      );
      assert.deepEqual([...WORKSPACE_TOOL_NAMES], workspaceNames);
      assert.deepEqual(
        [...DAEMON_TOOL_NAMES].sort(),
        [
          RUN_SUBTASK,
          ...MEMORY_TOOLS.map((t) => t.name),
          READ_ARTIFACT,
          ...workspaceNames,
          ...PROCESS_TOOL_NAMES,
          ASK_USER,
          READ_SKILL,
        ].sort(),
      );
    });
  });

  describe('node status while the gate decides', () => {
    const statusesOf = (run: Awaited<ReturnType<typeof runGated>>, name: string) =>
      run.sink
        .of(Methods.TreeUpdate)
        .flatMap((p) => p['nodes'] as { name: string; status: string }[])
        .filter((node) => node.name === name)
        .map((node) => node.status)
        // An upsert may repeat a status (another field changed): keep each change once.
        .filter((status, i, all) => status !== all[i - 1]);

    it('a call that waits for approval and is denied is never shown running', async () => {
      const run = await runGated(callOnce('scribble', {}), { mode: 'default', answer: 'deny' });
      assert.deepEqual(statusesOf(run, 'scribble'), ['pending', 'awaiting_approval', 'denied']);
    });

    it('an approved call runs after its approval', async () => {
      const run = await runGated(callOnce('scribble', {}), { mode: 'default', answer: 'allow' });
      assert.deepEqual(statusesOf(run, 'scribble'), [
        'pending',
        'awaiting_approval',
        'running',
        'done',
      ]);
    });
  });

  describe('protected paths', () => {
    it('a write into .git/ or the data dir asks even in auto; elsewhere it runs', async () => {
      const ws = tempDir();
      mkdirSync(join(ws, '.git'));
      const dataDir = tempDir('arbor-data-');
      for (const path of [
        '.git/config',
        './sub/../.git/hooks/pre-commit',
        join(ws, '.GIT/HEAD'),
        join(dataDir, 'token'),
      ]) {
        const run = await runGated(callOnce('scribble', { path }), {
          mode: 'auto',
          answer: 'deny',
          workspaceRoot: ws,
          dataDir,
        });
        assert.equal(run.asked.length, 1, `${path} asks`);
        assert.match(run.asked[0]!.reason, /protected path/);
        assert.deepEqual(run.executions, []);
      }
      const free = await runGated(callOnce('scribble', { path: 'src/.gitkeep' }), {
        mode: 'auto',
        workspaceRoot: ws,
        dataDir,
      });
      assert.deepEqual(free.executions, ['scribble']);
    });

    it('a grant never covers a protected path', async () => {
      const ws = tempDir();
      const grants = new SessionGrants();
      grants.grant('scribble', undefined);
      const run = await runGated(callOnce('scribble', { path: '.git/config' }), {
        mode: 'default',
        answer: 'deny',
        workspaceRoot: ws,
        grants,
      });
      assert.equal(run.asked.length, 1);
    });
  });

  it('reads the mode at call time: a switch mid-turn applies to the next call', async () => {
    // Read once for the root prompt, then once per gate check.
    let reads = 0;
    const turn = script({
      go: [
        { toolCalls: [{ id: 'c1', name: 'scribble', arguments: {} }] },
        { toolCalls: [{ id: 'c2', name: 'scribble', arguments: {} }] },
        { text: 'done' },
      ],
    });
    const run = await runGated(turn, {
      // The user switches to plan right after the first call was checked.
      mode: (): PermissionMode => (++reads <= 2 ? 'auto' : 'plan'),
    });
    assert.deepEqual(run.executions, ['scribble']);
    assert.match(toolMessagesOf(run)[1]!.content, /^blocked_in_plan_mode/);
  });

  describe('subtasks inherit the gate', () => {
    const nested = script({
      go: [
        {
          toolCalls: [
            { id: 's1', name: 'run_subtask', arguments: { title: 't', instructions: 'LEVEL1' } },
          ],
        },
        { text: 'done' },
      ],
      LEVEL1: [
        {
          toolCalls: [
            { id: 'w1', name: 'scribble', arguments: {} },
            { id: 's2', name: 'run_subtask', arguments: { title: 't2', instructions: 'LEVEL2' } },
          ],
        },
        { text: 'l1 done' },
      ],
      LEVEL2: [{ toolCalls: [{ id: 'w2', name: 'launch', arguments: {} }] }, { text: 'l2 done' }],
    });

    it('plan: no non-read tool runs at any depth', async () => {
      const run = await runGated(nested, { mode: 'plan', answer: 'allow' });
      assert.deepEqual(run.executions, []);
      const blocked = run.result.tree.nodes.filter((n) => n.status === 'blocked');
      assert.deepEqual(blocked.map((n) => [n.name, n.depth]).sort(), [
        ['launch', 2],
        ['scribble', 1],
      ]);
    });

    it('default: calls in subtasks ask the same controllers', async () => {
      const run = await runGated(nested, { mode: 'default', answer: 'deny' });
      assert.deepEqual(run.asked.map((a) => a.name).sort(), ['launch', 'scribble']);
      assert.deepEqual(run.executions, []);
    });

    it("the session's grants apply in subtasks", async () => {
      const grants = new SessionGrants();
      grants.grant('scribble', undefined);
      grants.grant('launch', undefined);
      const run = await runGated(nested, { mode: 'default', grants });
      assert.equal(run.asked.length, 0);
      assert.deepEqual(run.executions.sort(), ['launch', 'scribble']);
    });
  });

  it('property: plan mode runs no non-read tool, over random scripted calls and subtasks', async () => {
    type Call = { tool: string } | { sub: Call[][] };
    const toolName = fc.constantFrom(...Object.values(CATEGORY_TOOLS), 'mystery', 'nonexistent');
    const call: fc.Memo<Call> = fc.memo((n) =>
      n <= 1
        ? toolName.map((tool) => ({ tool }))
        : fc.oneof(
            { weight: 3, arbitrary: toolName.map((tool) => ({ tool })) },
            {
              weight: 1,
              arbitrary: fc
                .array(fc.array(call(n - 1), { minLength: 1, maxLength: 3 }), {
                  minLength: 1,
                  maxLength: 2,
                })
                .map((sub) => ({ sub })),
            },
          ),
    );
    const turns = fc.array(fc.array(call(3), { minLength: 1, maxLength: 4 }), {
      minLength: 1,
      maxLength: 3,
    });
    await fc.assert(
      fc.asyncProperty(turns, fc.constantFrom<PermissionMode>('plan'), async (rootTurns, mode) => {
        const conversations: Record<string, unknown[]> = {};
        let nextSub = 0;
        const build = (modelTurns: Call[][]): unknown[] => [
          ...modelTurns.map((calls, t) => ({
            toolCalls: calls.map((c, i) => {
              if ('tool' in c) return { id: `c${t}_${i}`, name: c.tool, arguments: {} };
              const key = `<<SUB-${String(nextSub++).padStart(4, '0')}>>`;
              conversations[key] = build(c.sub);
              return {
                id: `c${t}_${i}`,
                name: 'run_subtask',
                arguments: { title: key, instructions: key },
              };
            }),
          })),
          { text: 'finished' },
        ];
        conversations['<<ROOT>>'] = build(rootTurns);
        const run = await runGated(script(conversations as never), {
          mode,
          text: '<<ROOT>>',
          answer: 'allow',
          extraTools: [{ name: 'mystery', category: 'teleport' }],
        });
        const nonRead = run.executions.filter((name) => name !== CATEGORY_TOOLS.read);
        assert.deepEqual(nonRead, [], 'no write/execute/external tool ran in plan mode');
        assert.equal(run.asked.length, 0, 'plan mode asks nothing');
        for (const node of run.result.tree.nodes) {
          if (
            node.kind === 'tool' &&
            node.name !== CATEGORY_TOOLS.read &&
            node.name !== 'nonexistent'
          )
            assert.equal(node.status, 'blocked', `${node.name} at depth ${node.depth}`);
        }
      }),
      { numRuns: 60 },
    );
  });
});
