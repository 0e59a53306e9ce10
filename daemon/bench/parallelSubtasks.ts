/**
 * Benchmark (not a test): 8 parallel subtasks, each running one 200 ms tool,
 * through the real loop with the scripted provider. The critical path is one
 * tool (200 ms) plus the scripted model turns (no delay); the target is a
 * wall time within 1.15x of it.
 *
 * Run: node --import tsx bench/parallelSubtasks.ts   (from daemon/)
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { NotificationDescriptor, Script } from '@arbor/protocol';
import { z } from 'zod';
import { DEFAULT_BUDGET_LIMITS } from '../src/agent/budgetLimits.js';
import { createTurnRunner } from '../src/agent/index.js';
import { defineTool, type Tool } from '../src/tools/tool.js';

const SUBTASKS = 8;
const TOOL_MS = 200;
const RUNS = 5;

const work = defineTool({
  name: 'work',
  description: `Works for ${TOOL_MS} ms.`,
  input: z.object({}),
  category: 'read',
  execute: (_args, { signal }) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve('worked'), TOOL_MS);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      });
    }),
}) as Tool;

const benchScript: Script = {
  version: 1,
  conversations: {
    '*': [
      {
        text: 'Fanning out.',
        toolCalls: Array.from({ length: SUBTASKS }, (_, i) => ({
          name: 'run_subtask',
          arguments: { title: `part ${i + 1}`, instructions: `bench part ${i + 1}` },
        })),
      },
      { text: 'All parts done.' },
    ],
    'bench part': [{ toolCalls: [{ name: 'work', arguments: {} }] }, { text: 'part done' }],
  },
};

export interface ParallelSubtasksResult {
  wallMs: number;
  criticalPathMs: number;
  ratio: number;
}

export async function benchParallelSubtasks(): Promise<ParallelSubtasksResult> {
  const runner = createTurnRunner({
    budgets: DEFAULT_BUDGET_LIMITS,
    defaultModel: undefined,
    scriptPath: undefined,
    log: () => undefined,
    tools: [work],
  });
  const sink = { emit: <D extends NotificationDescriptor>(_d: D, _p: unknown) => undefined };
  const walls: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const result = await runner.run({
      sessionId: 'bench',
      turnId: `turn-${run}`,
      text: 'go',
      workspaceRoot: process.cwd(),
      model: undefined,
      script: benchScript,
      permissionMode: () => 'auto',
      history: [],
      events: sink,
      signal: new AbortController().signal,
    });
    walls.push(performance.now() - started);
    if (result.stopReason !== 'end_turn')
      throw new Error(`bench turn ended with ${result.stopReason}: ${result.error ?? ''}`);
  }
  walls.sort((a, b) => a - b);
  const wallMs = walls[Math.floor(walls.length / 2)] ?? 0;
  return { wallMs, criticalPathMs: TOOL_MS, ratio: wallMs / TOOL_MS };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { wallMs, criticalPathMs, ratio } = await benchParallelSubtasks();
  console.log(
    `parallel subtasks: ${SUBTASKS} x ${TOOL_MS} ms tool — wall ${wallMs.toFixed(1)} ms (median of ${RUNS}), ` +
      `critical path ${criticalPathMs} ms, ratio ${ratio.toFixed(3)} (target <= 1.15)`,
  );
}
