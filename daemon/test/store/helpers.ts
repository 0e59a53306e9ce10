/** Builders and scratch directories shared by the store tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../src/store/sqlite/index.js';
import type { ExecutionTreeNode, ExecutionTreeSnapshot, ModelCost, Usage } from '@arbor/protocol';
import type { NewSession, TurnCommit } from '../../src/store/index.js';

const scratch: string[] = [];

/** A fresh directory under the OS temp dir, removed by removeScratchDirs(). */
export function scratchDir(prefix = 'arbor-store-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

export function removeScratchDirs(): void {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function newSession(overrides: Partial<NewSession> = {}): NewSession {
  return {
    workspaceRoot: '/work/project',
    permissionMode: 'default',
    chatContext: { kind: 'thread' },
    ...overrides,
  };
}

/** A valid tree: the turn node, then `size - 1` tool and subtask nodes nested up to depth 3. */
export function treeOf(size: number, turnId = 'turn'): ExecutionTreeSnapshot {
  const nodes: ExecutionTreeNode[] = [
    { id: turnId, parentId: null, kind: 'turn', name: 'turn', status: 'done', depth: 0 },
  ];
  for (let i = 1; i < size; i++) {
    const subtask = i % 10 === 1;
    const parent = nodes[Math.max(0, i - 1 - (i % 10))]!;
    nodes.push({
      id: `${turnId}-n${i}`,
      parentId: parent.kind === 'tool' ? parent.parentId : parent.id,
      kind: subtask ? 'subtask' : 'tool',
      name: subtask ? 'run_subtask' : 'read_file',
      ...(subtask ? { title: `subtask ${i}` } : {}),
      status: 'done',
      depth: Math.min(3, Math.floor(i / 50)),
      argsPreview: JSON.stringify({ path: `src/file${i}.ts` }),
      resultPreview: 'x'.repeat(200),
      startedAt: new Date(Date.UTC(2025, 0, 1, 0, 0, i % 60)).toISOString(),
      durationMs: i,
      approval: 'not_required',
      usage: { inputTokens: i, outputTokens: i },
      cost: 0.0001 * i,
    });
  }
  return { version: 1, nodes };
}

export const usage: Usage = {
  inputTokens: 1200,
  outputTokens: 340,
  cachedInputTokens: 800,
  reasoningTokens: 40,
};

export const byModel: ModelCost[] = [
  {
    provider: 'openai',
    model: 'gpt-4.1',
    calls: 2,
    usage: {
      inputTokens: 1000,
      outputTokens: 300,
      cachedInputTokens: 800,
      cacheWriteInputTokens: 120,
    },
    cost: 0.0042,
  },
  {
    provider: 'local',
    model: 'qwen2.5-coder',
    calls: 1,
    usage: { inputTokens: 200, outputTokens: 40, reasoningTokens: 40 },
    cost: null,
  },
];

export function turnCommit(turnId: string, overrides: Partial<TurnCommit> = {}): TurnCommit {
  return {
    turnId,
    stopReason: 'end_turn',
    assistantText: `answer of ${turnId}`,
    providerFields: {
      openai: { responseId: `resp_${turnId}`, reasoning: [{ id: 'rs_1', encrypted: 'abc' }] },
    },
    tree: treeOf(4, turnId),
    usage,
    byModel,
    ...overrides,
  };
}

/** A second, raw connection to the store's file, for looking under the API. */
export function rawDb(file: string): Database {
  const db = openDatabase(file);
  db.pragma('busy_timeout = 10000');
  return db;
}

export function count(db: Database, table: string): number {
  return db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
}

/** A clock that advances one second per reading, from 2025-01-01. */
export function steppingClock(start = Date.UTC(2025, 0, 1)): () => Date {
  let t = start;
  return () => new Date((t += 1000));
}
