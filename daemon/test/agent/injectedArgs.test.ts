/**
 * An agent profile's injected tool arguments (agent/injectedArgs.ts): the
 * model is offered them in every tool's schema, the tool never gets them,
 * and the user sees them on the call's node and in its approval request.
 * Also the tool-result metadata a node carries (tree.md#tool-result-metadata):
 * completedAt, and approvalId naming the approval request that asked.
 */
import assert from 'node:assert/strict';
import { ExecutionTreeNode, type ApprovalRequestParams } from '@arbor/protocol';
import { z } from 'zod';
import { AgentProfile, type NamedAgentProfile } from '../../src/agents/agentProfile.js';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import { SessionGrants } from '../../src/permissions/grants.js';
import { createPermissionGate } from '../../src/permissions/permissionGate.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import { defineTool, toolDefinition, type Tool } from '../../src/tools/tool.js';
import { answeringBroker } from '../permissions/gateHarness.js';
import { RecordingProvider, RecordingSink, nodes, runTurn, script } from './harness.js';

const REASONED: NamedAgentProfile = {
  name: 'reasoned',
  source: 'config',
  profile: AgentProfile.parse({
    injectedToolArgs: { reason: 'Why this call is needed', ticket: 'The ticket it is for' },
  }),
};

/** A tool with a strict schema that records what it was given. */
function recordingTool(name: string, category: 'read' | 'write', seen: unknown[]): Tool {
  return defineTool({
    name,
    description: `a ${category} tool`,
    input: z.object({ path: z.string() }).strict(),
    category,
    execute: (args) => {
      seen.push(args);
      return `${name} did ${args.path}`;
    },
  }) as Tool;
}

describe('injected tool arguments', () => {
  it('are offered in a copy of every tool schema, split off before the tool runs, and shown on its node', async () => {
    const seen: unknown[] = [];
    const tool = recordingTool('peek', 'read', seen);
    const before = structuredClone(toolDefinition(tool).inputSchema);
    const run = await runTurn(
      script({
        hello: [
          {
            toolCalls: [
              {
                id: 'c1',
                name: 'peek',
                arguments: { path: 'a.txt', reason: 'to see the config', ticket: 'T-1' },
              },
            ],
          },
          { text: 'done' },
        ],
      }),
      { tools: [tool], profile: REASONED },
    );
    assert.equal(run.result.stopReason, 'end_turn');

    // Every tool the model was offered has the injected properties, optional.
    const offered = run.provider.requests[0]!.tools!;
    assert.ok(offered.length > 1);
    for (const definition of offered) {
      const properties = definition.inputSchema['properties'] as Record<
        string,
        { description?: string }
      >;
      assert.equal(properties['reason']?.description, 'Why this call is needed', definition.name);
      assert.equal(properties['ticket']?.description, 'The ticket it is for', definition.name);
      assert.ok(
        !((definition.inputSchema['required'] as string[] | undefined) ?? []).includes('reason'),
      );
    }
    // The tool's own schema is untouched.
    assert.deepEqual(toolDefinition(tool).inputSchema, before);

    // The strict tool got only its own arguments (it would have refused `reason`).
    assert.deepEqual(seen, [{ path: 'a.txt' }]);
    const node = nodes(run).find((n) => n.name === 'peek')!;
    assert.equal(node.status, 'done');
    assert.deepEqual(node.injectedArgs, { reason: 'to see the config', ticket: 'T-1' });
    assert.equal(node.argsPreview, '{"path":"a.txt"}');
    ExecutionTreeNode.parse(node);
  });

  it('a long injected value is cut to the preview limit on the node; without a profile nothing is offered or split', async () => {
    const seen: unknown[] = [];
    const long = 'r'.repeat(2000);
    const run = await runTurn(
      script({
        hello: [
          { toolCalls: [{ name: 'peek', arguments: { path: 'a', reason: long } }] },
          { text: 'done' },
        ],
      }),
      { tools: [recordingTool('peek', 'read', seen)], profile: REASONED },
    );
    const node = nodes(run).find((n) => n.name === 'peek')!;
    assert.equal((node.injectedArgs as Record<string, string>)['reason']!.length, 500);
    ExecutionTreeNode.parse(node);

    const plain: unknown[] = [];
    const without = await runTurn(
      script({
        hello: [
          { toolCalls: [{ name: 'peek', arguments: { path: 'a', reason: 'x' } }] },
          { text: 'done' },
        ],
      }),
      { tools: [recordingTool('peek', 'read', plain)] },
    );
    const offered = without.provider.requests[0]!.tools!.find((t) => t.name === 'peek')!;
    assert.equal((offered.inputSchema['properties'] as object)['reason' as never], undefined);
    // Without the profile `reason` is the tool's business: the strict tool refuses it.
    assert.deepEqual(plain, []);
    const refused = nodes(without).find((n) => n.name === 'peek')!;
    assert.equal(refused.injectedArgs, undefined);
    assert.equal(refused.isError, true);
  });

  it('reach the approval request, never the tool; the node links the request and says when it completed', async () => {
    const seen: unknown[] = [];
    const provider = new RecordingProvider(
      new ScriptedProvider(
        script({
          go: [
            {
              toolCalls: [
                {
                  id: 'call-7',
                  name: 'scribble',
                  arguments: { path: 'notes.md', reason: 'record the decision' },
                },
              ],
            },
            { toolCalls: [{ id: 'call-8', name: 'peek', arguments: { path: 'notes.md' } }] },
            { text: 'done' },
          ],
        }),
      ),
    );
    const runner = createTurnRunner({
      budgets: DEFAULT_BUDGET_LIMITS,
      defaultModel: undefined,
      scriptPath: undefined,
      log: () => undefined,
      provider,
      tools: [recordingTool('scribble', 'write', seen), recordingTool('peek', 'read', seen)],
      gate: createPermissionGate({ alwaysAsk: [] }),
      chunkCoalesceMs: 0,
    });
    const sink = new RecordingSink();
    const { broker, asked } = answeringBroker(sink, 'allow');
    const result = await runner.run({
      sessionId: 'session-1',
      turnId: 'turn-1',
      text: 'go',
      workspaceRoot: '/tmp',
      model: 'scripted:test',
      script: undefined,
      permissionMode: () => 'default',
      agent: REASONED,
      history: [],
      approvals: { grants: new SessionGrants(), broker },
      events: sink,
      signal: new AbortController().signal,
    });
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(asked.length, 1);
    const request: ApprovalRequestParams = asked[0]!;
    assert.deepEqual(request.injectedArgs, { reason: 'record the decision' });
    assert.deepEqual(request.args, { path: 'notes.md' });
    assert.deepEqual(seen, [{ path: 'notes.md' }, { path: 'notes.md' }]);

    const asking = result.tree.nodes.find((n) => n.name === 'scribble')!;
    assert.equal(asking.approval, 'approved');
    assert.equal(asking.approvalId, request.toolCallId);
    assert.deepEqual(asking.injectedArgs, { reason: 'record the decision' });
    // A call nobody was asked about has no approvalId; every finished node says when it ended.
    const unasked = result.tree.nodes.find((n) => n.name === 'peek')!;
    assert.equal(unasked.approval, 'not_required');
    assert.equal(unasked.approvalId, undefined);
    for (const node of result.tree.nodes) {
      assert.ok(node.completedAt !== undefined, node.name);
      assert.equal(
        Date.parse(node.startedAt!) + node.durationMs!,
        Date.parse(node.completedAt),
        node.name,
      );
    }
  });
});
