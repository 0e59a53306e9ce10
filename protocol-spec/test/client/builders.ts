/** Typed builders for protocol messages used by the client-core tests. */
import {
  Methods,
  type ApprovalRequestParams,
  type ApprovalResolvedParams,
  type BudgetExceededParams,
  type ExecutionTreeNode,
  type IdleSessionStateParams,
  type PermissionMode,
  type PlanEntry,
  type SessionInfo,
  type SessionStateParams,
  type TurnState,
} from '../../src/index.js';
import type { SessionEvent } from '../../src/client/index.js';

export const SESSION = 'ses_1';
export const TURN = 'turn_1';

export function node(
  id: string,
  parentId: string | null,
  fields: Partial<ExecutionTreeNode> = {},
): ExecutionTreeNode {
  return {
    id,
    parentId,
    kind: parentId === null ? 'turn' : 'tool',
    name: parentId === null ? 'turn' : 'read_file',
    status: 'running',
    depth: 0,
    ...fields,
  };
}

export function approvalRequest(
  toolCallId: string,
  fields: Partial<ApprovalRequestParams> = {},
): ApprovalRequestParams {
  return {
    sessionId: SESSION,
    turnId: TURN,
    nodeId: `node_${toolCallId}`,
    toolCallId,
    name: 'write_file',
    args: { path: 'a.txt', content: 'hi' },
    category: 'write',
    reason: 'writes a file',
    ...fields,
  };
}

export function sessionInfo(fields: Partial<SessionInfo> = {}): SessionInfo {
  return {
    sessionId: SESSION,
    workspaceRoot: '/tmp/ws',
    title: 'A session',
    permissionMode: 'default',
    chatContext: { kind: 'thread' },
    state: 'idle',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...fields,
  };
}

/** Ids of a reducer-like tree, indented by depth, for readable assertions. */
export function outline(
  roots: readonly ExecutionTreeNode[],
  children: (id: string) => readonly ExecutionTreeNode[],
): string[] {
  const lines: string[] = [];
  const visit = (n: ExecutionTreeNode, depth: number): void => {
    lines.push(`${'  '.repeat(depth)}${n.id}`);
    for (const child of children(n.id)) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return lines;
}

/** Session events as the daemon sends them (method + params), for SessionView.receive. */
export const ev = {
  chunk: (seq: number, text: string, nodeId = 't', turnId = TURN): SessionEvent => ({
    method: Methods.ChatChunk.method,
    params: { sessionId: SESSION, seq, turnId, nodeId, text },
  }),
  tree: (seq: number, nodes: ExecutionTreeNode[], turnId = TURN): SessionEvent => ({
    method: Methods.TreeUpdate.method,
    params: { sessionId: SESSION, seq, turnId, nodes },
  }),
  /** `fields` only belong with idle (a turn's end); a test may still put them on others. */
  state: (
    seq: number,
    state: TurnState,
    fields: Partial<Omit<IdleSessionStateParams, 'state'>> = {},
  ): SessionEvent => ({
    method: Methods.SessionState.method,
    params: { sessionId: SESSION, seq, turnId: TURN, ...fields, state } as SessionStateParams,
  }),
  update: (
    seq: number,
    fields: { permissionMode?: PermissionMode; title?: string },
  ): SessionEvent => ({
    method: Methods.SessionUpdate.method,
    params: { sessionId: SESSION, seq, ...fields },
  }),
  plan: (seq: number, entries: PlanEntry[]): SessionEvent => ({
    method: Methods.PlanUpdate.method,
    params: { sessionId: SESSION, seq, turnId: TURN, entries },
  }),
  budget: (seq: number, fields: Partial<BudgetExceededParams> = {}): SessionEvent => ({
    method: Methods.BudgetExceeded.method,
    params: {
      sessionId: SESSION,
      seq,
      turnId: TURN,
      kind: 'tool_calls',
      limit: 10,
      observed: 11,
      ...fields,
    },
  }),
  cost: (seq: number, cost: number | null): SessionEvent => ({
    method: Methods.CostSummary.method,
    params: {
      sessionId: SESSION,
      seq,
      turnId: TURN,
      usage: { inputTokens: 100, outputTokens: 20 },
      cost,
      currency: 'USD',
      byModel: [],
    },
  }),
  resolved: (
    seq: number,
    toolCallId: string,
    fields: Partial<ApprovalResolvedParams> = {},
  ): SessionEvent => ({
    method: Methods.ApprovalResolved.method,
    params: { sessionId: SESSION, seq, turnId: TURN, toolCallId, outcome: 'approved', ...fields },
  }),
};
