/**
 * Runs turns of the real agent with the real permission gate and the user's
 * hooks (real processes, sandboxed like run_command where bwrap works), on
 * tools that record their calls: run_command (execute) and write_file
 * (write, its path the gate's target).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  Methods,
  type ApprovalDecision,
  type ApprovalRequestParams,
  type ExecutionTreeNode,
  type PermissionMode,
  type Script,
} from '@arbor/protocol';
import { z } from 'zod';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import type { TurnResult } from '../../src/agent/turnRunner.js';
import type { UserHooks } from '../../src/hooks/hookConfig.js';
import { HookRunner } from '../../src/hooks/hookRunner.js';
import { SessionGrants } from '../../src/permissions/grants.js';
import { createPermissionGate } from '../../src/permissions/permissionGate.js';
import { PermissionRules } from '../../src/permissions/rules/index.js';
import type { RuleLists } from '../../src/permissions/rules/ruleLists.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import { defineTool, type Tool } from '../../src/tools/tool.js';
import { answeringBroker } from '../permissions/gateHarness.js';
import { RecordingProvider, RecordingSink } from '../agent/harness.js';
import { tempDir } from '../permissions/helpers.js';

export interface Call {
  name: string;
  args: Record<string, unknown>;
}

function recordingTools(calls: Call[]): Tool[] {
  return [
    defineTool({
      name: 'run_command',
      description: 'runs a command',
      input: z.object({ command: z.string().min(1) }),
      category: 'execute',
      execute: (args) => {
        calls.push({ name: 'run_command', args });
        return `ran ${args.command}`;
      },
    }) as Tool,
    defineTool({
      name: 'write_file',
      description: 'writes a file',
      input: z.object({ path: z.string().min(1), content: z.string() }),
      category: 'write',
      targetPath: (args: { path: string }) => args.path,
      execute: (args) => {
        calls.push({ name: 'write_file', args });
        return `wrote ${args.path}`;
      },
    }) as Tool,
  ];
}

export interface HookedRun {
  result: TurnResult;
  provider: RecordingProvider;
  calls: Call[];
  asked: ApprovalRequestParams[];
  /** Every node as last updated, in creation order. */
  nodes: ExecutionTreeNode[];
  logged: string[];
}

export interface HookedRunOptions {
  hooks: UserHooks;
  mode?: PermissionMode;
  rules?: RuleLists;
  answer?: ApprovalDecision;
  text?: string;
  workspaceRoot?: string;
  sessionId?: string;
  /** Reuse across turns (SessionStart runs once per session and runner). */
  runner?: HookRunner;
  /** The turn's cancel signal (chat/cancel). */
  signal?: AbortSignal;
}

/** A fresh workspace with these files (e.g. hook scripts). */
export function workspace(files: Record<string, string> = {}): string {
  const root = tempDir('arbor-hooks-ws-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text, { mode: 0o755 });
  }
  return root;
}

export async function runHooked(turnScript: Script, options: HookedRunOptions): Promise<HookedRun> {
  const calls: Call[] = [];
  const logged: string[] = [];
  const provider = new RecordingProvider(new ScriptedProvider(turnScript));
  const workspaceRoot = options.workspaceRoot ?? workspace();
  const runner = createTurnRunner({
    budgets: DEFAULT_BUDGET_LIMITS,
    defaultModel: undefined,
    scriptPath: undefined,
    log: () => undefined,
    provider,
    tools: recordingTools(calls),
    gate: createPermissionGate({
      alwaysAsk: [],
      rules: new PermissionRules({
        user: options.rules ?? {},
        dataDir: tempDir('arbor-hooks-data-'),
      }),
    }),
    hooks:
      options.runner ??
      new HookRunner({ user: options.hooks, log: (_level, message) => logged.push(message) }),
    chunkCoalesceMs: 0,
  });
  const sink = new RecordingSink();
  const { broker, asked } = answeringBroker(sink, options.answer ?? 'deny');
  const result = await runner.run({
    sessionId: options.sessionId ?? 'session-1',
    turnId: 'turn-1',
    text: options.text ?? 'go',
    workspaceRoot,
    model: 'scripted:test',
    script: undefined,
    permissionMode: () => options.mode ?? 'auto',
    history: [],
    approvals: { grants: new SessionGrants(), broker },
    events: sink,
    signal: options.signal ?? new AbortController().signal,
  });
  const nodes = new Map<string, ExecutionTreeNode>();
  for (const update of sink.of(Methods.TreeUpdate))
    for (const node of update['nodes'] as ExecutionTreeNode[])
      nodes.set(node.id, { ...nodes.get(node.id), ...node });
  return { result, provider, calls, asked, nodes: [...nodes.values()], logged };
}

/** The hook nodes of a run. */
export function hookNodes(run: HookedRun): ExecutionTreeNode[] {
  return run.nodes.filter((node) => node.kind === 'hook');
}

/** What the model got back for its tool calls, in order. */
export function toolResults(run: HookedRun): { content: string; isError?: boolean }[] {
  const last = run.provider.requests.at(-1);
  return (last?.messages ?? []).filter((message) => message.role === 'tool') as {
    content: string;
    isError?: boolean;
  }[];
}
