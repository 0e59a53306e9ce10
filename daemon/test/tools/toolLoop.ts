/**
 * One turn of the real agent loop behind the real permission gate, with the
 * tools a test gives it and the scripted provider calling them: how the
 * web and patch tools are checked in plan, default and auto mode.
 */
import type { ApprovalDecision, ApprovalRequestParams, PermissionMode } from '@arbor/protocol';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import type { TurnResult } from '../../src/agent/turnRunner.js';
import { SessionGrants } from '../../src/permissions/grants.js';
import { createPermissionGate } from '../../src/permissions/permissionGate.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import type { Tool } from '../../src/tools/tool.js';
import { answeringBroker } from '../permissions/gateHarness.js';
import { RecordingProvider, RecordingSink, script } from '../agent/harness.js';

export const MODES: readonly PermissionMode[] = ['plan', 'default', 'auto'];

export interface ToolLoopRun {
  result: TurnResult;
  sink: RecordingSink;
  /** Approval requests the controller received. */
  asked: ApprovalRequestParams[];
  /** What the model got back for the call. */
  toolResult: { content: string; isError?: boolean };
  /** The call's tree node as the turn ended. */
  node: TurnResult['tree']['nodes'][number];
}

/** The model calls `name` once with `args`, then answers "done". */
export async function callThroughLoop(
  tools: readonly Tool[],
  name: string,
  args: object,
  options: { mode: PermissionMode; answer?: ApprovalDecision; workspaceRoot?: string },
): Promise<ToolLoopRun> {
  const provider = new RecordingProvider(
    new ScriptedProvider(
      script({ go: [{ toolCalls: [{ id: 'call_1', name, arguments: args }] }, { text: 'done' }] }),
    ),
  );
  const runner = createTurnRunner({
    budgets: DEFAULT_BUDGET_LIMITS,
    defaultModel: undefined,
    scriptPath: undefined,
    log: () => undefined,
    provider,
    tools: [...tools],
    gate: createPermissionGate({ alwaysAsk: [] }),
    chunkCoalesceMs: 0,
  });
  const sink = new RecordingSink();
  const { broker, asked } = answeringBroker(sink, options.answer ?? 'deny');
  const result = await runner.run({
    sessionId: 'session-1',
    turnId: 'turn-1',
    text: 'go',
    workspaceRoot: options.workspaceRoot ?? '/tmp',
    model: 'scripted:test',
    script: undefined,
    permissionMode: () => options.mode,
    history: [],
    approvals: { grants: new SessionGrants(), broker },
    events: sink,
    signal: new AbortController().signal,
  });
  const toolMessage = provider.requests
    .flatMap((request) => request.messages)
    .find((message) => message.role === 'tool');
  if (toolMessage?.role !== 'tool') throw new Error('the model never got a tool result');
  const node = result.tree.nodes.find((n) => n.name === name);
  if (node === undefined) throw new Error(`no tree node for ${name}`);
  return { result, sink, asked, toolResult: toolMessage, node };
}
