/**
 * TurnBudget: one object per turn, shared by identity by every loop of the
 * turn, checked before every LLM call, tool call and subtask spawn. The limits
 * that end the turn (LLM calls, tool calls, subtasks, wall clock, history
 * tokens) throw BudgetExceededError; the first one is reported once.
 * The others shape the work instead: depth (a tool error), iterations
 * (the last call is tool-less), parallel (queued), tool result bytes (truncated).
 */
import type { BudgetKind } from '@arbor/protocol';
import type { BudgetLimits } from './budgetLimits.js';

export interface BudgetExceedance {
  kind: BudgetKind;
  limit: number;
  observed: number;
  /** The node where the limit was hit. */
  nodeId: string | undefined;
}

export class BudgetExceededError extends Error {
  constructor(readonly exceedance: BudgetExceedance) {
    super(
      `budget exceeded: ${exceedance.kind} (limit ${exceedance.limit}, observed ${exceedance.observed})`,
    );
    this.name = 'BudgetExceededError';
  }
}

export class TurnBudget {
  private llmCalls = 0;
  private toolCalls = 0;
  private subtasks = 0;
  private first: BudgetExceedance | undefined;
  private readonly startedAt: number;

  constructor(
    readonly limits: BudgetLimits,
    /** Called once, with the first limit exceeded. */
    private readonly onExceeded: (exceedance: BudgetExceedance) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
  }

  /** The first limit exceeded in this turn, if any. */
  get exceeded(): BudgetExceedance | undefined {
    return this.first;
  }

  get elapsedMs(): number {
    return this.now() - this.startedAt;
  }

  get counts(): { llmCalls: number; toolCalls: number; subtasks: number } {
    return { llmCalls: this.llmCalls, toolCalls: this.toolCalls, subtasks: this.subtasks };
  }

  beforeLlmCall(nodeId: string): void {
    this.checkWallClock(nodeId);
    this.llmCalls += 1;
    this.check('llm_calls', this.limits.maxLlmCalls, this.llmCalls, nodeId);
  }

  beforeToolCall(nodeId: string): void {
    this.checkWallClock(nodeId);
    this.toolCalls += 1;
    this.check('tool_calls', this.limits.maxToolCalls, this.toolCalls, nodeId);
  }

  /**
   * Before a run_subtask from a loop at `depth`: false at the depth limit (the
   * caller answers with a tool error, the turn goes on); throws when the turn's
   * subtask count is used up.
   */
  beforeSubtaskSpawn(nodeId: string, depth: number): boolean {
    this.checkWallClock(nodeId);
    if (depth >= this.limits.maxDepth) return false;
    this.subtasks += 1;
    this.check('subtasks', this.limits.maxSubtasks, this.subtasks, nodeId);
    return true;
  }

  checkWallClock(nodeId?: string): void {
    this.check('wall_clock_ms', this.limits.maxWallClockMs, this.elapsedMs, nodeId);
  }

  /** The history of one LLM call, in estimated tokens, against the model's limit. */
  checkHistoryTokens(limit: number, observed: number, nodeId: string): void {
    this.check('history_tokens', limit, observed, nodeId);
  }

  private check(
    kind: BudgetKind,
    limit: number,
    observed: number,
    nodeId: string | undefined,
  ): void {
    if (this.first !== undefined) throw new BudgetExceededError(this.first);
    if (observed <= limit) return;
    this.first = { kind, limit, observed: Math.round(observed), nodeId };
    this.onExceeded(this.first);
    throw new BudgetExceededError(this.first);
  }
}
