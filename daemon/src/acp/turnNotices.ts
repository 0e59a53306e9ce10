/**
 * What ends or limits a turn, as text the user reads in the agent's message
 * (ACP has no budget or cost notification), with the Arbor data in `_meta`.
 */
import type { BudgetExceededParams, BudgetKind, StoredMessage } from '@arbor/protocol';
import type { SessionUpdate } from '@agentclientprotocol/sdk';

const BUDGET_NAMES: Readonly<Record<BudgetKind, string>> = {
  depth: 'subtask depth',
  iterations: 'iterations',
  parallel: 'parallel tool calls',
  subtasks: 'subtasks',
  llm_calls: 'model calls',
  tool_calls: 'tool calls',
  wall_clock_ms: 'time (ms)',
  tool_result_bytes: 'tool result size (bytes)',
  history_tokens: 'history tokens',
};

export function budgetNotice(budget: BudgetExceededParams): SessionUpdate {
  const name = BUDGET_NAMES[budget.kind] ?? budget.kind;
  const { sessionId: _s, seq: _q, ...data } = budget;
  return agentText(
    `\n\n[Arbor] Budget exceeded: ${name} — limit ${budget.limit}, reached ${budget.observed}. The turn stopped here.\n`,
    { budgetExceeded: data },
  );
}

/** A stored turn that did not end normally says so when it is replayed. */
export function storedStatusNotice(message: StoredMessage): SessionUpdate | undefined {
  const status = message.status;
  if (status === undefined || status === 'complete') return undefined;
  const reading: Record<string, string> = {
    cancelled: 'it was cancelled',
    budget_exceeded: 'a budget was exceeded',
    max_iterations: 'it reached its iteration limit',
    error: 'it failed',
    interrupted: 'the daemon stopped while it ran',
  };
  return agentText(`\n\n[Arbor] This turn ended early: ${reading[status] ?? status}.\n`, {
    status,
  });
}

function agentText(text: string, arbor: Record<string, unknown>): SessionUpdate {
  return {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text },
    _meta: { arbor },
  };
}
