/**
 * Runs turns of the real agent behind the real permission gate, without a
 * server: tools of every category that record their executions, and a broker
 * whose controller answers as the test says.
 */
import type {
  ApprovalDecision,
  ApprovalRequestParams,
  PermissionMode,
  Script,
  ToolCategory,
} from '@arbor/protocol';
import { z } from 'zod';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import type { TurnResult } from '../../src/agent/turnRunner.js';
import { ApprovalBroker, type ApprovalPeer } from '../../src/permissions/approvalBroker.js';
import { SessionGrants } from '../../src/permissions/grants.js';
import { createPermissionGate } from '../../src/permissions/permissionGate.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import { defineTool, type Tool } from '../../src/tools/tool.js';
import { RecordingProvider, RecordingSink } from '../agent/harness.js';

export const CATEGORY_TOOLS: Record<ToolCategory, string> = {
  read: 'peek',
  write: 'scribble',
  execute: 'launch',
  external: 'fetch_web',
};

export interface Executions {
  names: string[];
}

export function categoryTools(
  executions: Executions,
  extra: { name: string; category: string }[] = [],
): Tool[] {
  const all = [
    ...Object.entries(CATEGORY_TOOLS).map(([category, name]) => ({ name, category })),
    ...extra,
  ];
  return all.map(
    ({ name, category }) =>
      defineTool({
        name,
        description: `a ${category} tool`,
        input: z.object({ path: z.string().optional() }).passthrough(),
        category: category as ToolCategory,
        ...(category === 'write' && { targetPath: (args: { path?: string }) => args.path }),
        execute: () => {
          executions.names.push(name);
          return `${name} ran`;
        },
      }) as Tool,
  );
}

export interface GateRun {
  result: TurnResult;
  sink: RecordingSink;
  provider: RecordingProvider;
  executions: string[];
  asked: ApprovalRequestParams[];
}

export interface GateRunOptions {
  mode: PermissionMode | (() => PermissionMode);
  alwaysAsk?: string[];
  /** Controller answer; undefined: no controller attached. */
  answer?:
    | ApprovalDecision
    | ((params: ApprovalRequestParams) => ApprovalDecision | Promise<ApprovalDecision>);
  grants?: SessionGrants;
  workspaceRoot?: string;
  dataDir?: string;
  extraTools?: { name: string; category: string }[];
  text?: string;
}

/**
 * An approval broker with one controller that answers as told (undefined: no
 * controller is attached), and the requests it was sent, in order.
 */
export function answeringBroker(
  sink: RecordingSink,
  answer: GateRunOptions['answer'],
): { broker: ApprovalBroker; asked: ApprovalRequestParams[] } {
  const asked: ApprovalRequestParams[] = [];
  const peer: ApprovalPeer = {
    clientId: 'client-1',
    isClosed: false,
    requestApproval: async (params) => {
      asked.push(params);
      const decision = typeof answer === 'function' ? await answer(params) : answer;
      return { decision };
    },
  };
  const broker = new ApprovalBroker({
    controllers: () => (answer === undefined ? [] : [peer]),
    isController: () => true,
    emit: (descriptor, params) => sink.emit(descriptor, params),
    timeoutMs: 5000,
  });
  return { broker, asked };
}

export async function runGated(turnScript: Script, options: GateRunOptions): Promise<GateRun> {
  const executions: Executions = { names: [] };
  const provider = new RecordingProvider(new ScriptedProvider(turnScript));
  const runner = createTurnRunner({
    budgets: DEFAULT_BUDGET_LIMITS,
    defaultModel: undefined,
    scriptPath: undefined,
    log: () => undefined,
    provider,
    tools: categoryTools(executions, options.extraTools),
    gate: createPermissionGate({
      alwaysAsk: options.alwaysAsk ?? [],
      ...(options.dataDir && { dataDir: options.dataDir }),
    }),
    chunkCoalesceMs: 0,
  });
  const sink = new RecordingSink();
  const { broker, asked } = answeringBroker(sink, options.answer);
  const mode = options.mode;
  const result = await runner.run({
    sessionId: 'session-1',
    turnId: 'turn-1',
    text: options.text ?? 'go',
    workspaceRoot: options.workspaceRoot ?? '/tmp',
    model: 'scripted:test',
    script: undefined,
    permissionMode: typeof mode === 'function' ? mode : () => mode,
    history: [],
    approvals: { grants: options.grants ?? new SessionGrants(), broker },
    events: sink,
    signal: new AbortController().signal,
  });
  return { result, sink, provider, executions: executions.names, asked };
}

export function toolMessagesOf(
  run: GateRun,
): { name: string; content: string; isError?: boolean }[] {
  const seen = new Map<string, { name: string; content: string; isError?: boolean }>();
  for (const request of run.provider.requests) {
    for (const message of request.messages) {
      if (message.role === 'tool')
        seen.set(`${request.system.slice(0, 40)}|${message.toolCallId}`, message);
    }
  }
  return [...seen.values()];
}
