/** Pure presentation rules of the chat view: labels, icons, numbers. */
import type {
  ApprovalDecision,
  BudgetExceededParams,
  ExecutionTreeNode,
  InjectedArgs,
  InstructionsFile,
  NodeStatus,
  OmittedData,
  PlanEntry,
} from '@arbor/protocol';
import type { QuestionEnd } from '../../src/shared/messages.js';
import type { TurnStatus } from './chatModel.js';

/** Codicon per node status; a running one spins (chat.css). */
export const STATUS_ICON: Record<NodeStatus, string> = {
  pending: 'circle-large-outline',
  awaiting_approval: 'shield',
  running: 'loading',
  done: 'pass',
  error: 'error',
  cancelled: 'circle-slash',
  denied: 'circle-slash',
  blocked: 'lock',
};

export const STATUS_LABEL: Record<NodeStatus, string> = {
  pending: 'pending',
  awaiting_approval: 'awaiting approval',
  running: 'running',
  done: 'done',
  error: 'failed',
  cancelled: 'cancelled',
  denied: 'denied',
  blocked: 'blocked by permission mode',
};

export const PLAN_ICON: Record<PlanEntry['status'], string> = {
  pending: 'circle-large-outline',
  in_progress: 'loading',
  completed: 'pass-filled',
  cancelled: 'circle-slash',
};

export const TURN_STATUS_LABEL: Record<TurnStatus, string> = {
  running: 'Running',
  complete: 'Done',
  cancelled: 'Cancelled',
  budget_exceeded: 'Stopped: budget exceeded',
  max_iterations: 'Stopped: too many iterations',
  error: 'Failed',
  interrupted: 'Interrupted',
};

/** Subtasks show their title, tools their name (and title when it adds something). */
export function nodeLabel(node: ExecutionTreeNode): string {
  if (node.kind === 'subtask') return node.title ?? 'Subtask';
  if (node.kind === 'compaction') return node.title ?? 'Summarizing the earlier conversation';
  // A hook the user configured: its event, and the command it ran (title).
  if (node.kind === 'hook') return `Hook ${node.name}${node.title ? `: ${node.title}` : ''}`;
  // The agent profile's planner pre-pass: its plan arrives as the session's plan.
  if (node.kind === 'planner') return node.title ?? 'Planning';
  if (node.title && node.title !== node.name) return `${node.name}: ${node.title}`;
  return node.name;
}

/**
 * A failure of the call itself. A denied, blocked or cancelled call carries
 * `isError` for the model's sake, but to the user it is a decision, not an error.
 */
export function isErrorNode(node: ExecutionTreeNode): boolean {
  if (node.status === 'denied' || node.status === 'blocked' || node.status === 'cancelled')
    return false;
  return node.status === 'error' || node.isError === true;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${seconds} s`;
}

/** USD, with enough digits for the cents-and-below costs of single turns. */
export function formatCost(cost: number | null | undefined): string {
  if (cost === undefined) return '';
  if (cost === null) return 'cost unknown';
  if (cost === 0) return '$0.00';
  if (cost < 0.01) return `$${cost.toFixed(4)}`;
  return `$${cost.toFixed(2)}`;
}

/** "41k / 200k context" and its long form, for the composer's context meter. */
export function contextText(context: { tokens: number; window: number }): {
  short: string;
  long: string;
} {
  const percent = Math.min(100, Math.round((context.tokens / context.window) * 100));
  const k = (n: number): string =>
    n >= 1_000_000
      ? `${(n / 1_000_000).toFixed(n % 1_000_000 === 0 ? 0 : 1)}M`
      : `${Math.round(n / 1000)}k`;
  return {
    short: `${k(context.tokens)} / ${k(context.window)} context`,
    long: `Context window: ${context.tokens.toLocaleString('en-US')} of ${context.window.toLocaleString('en-US')} tokens used (${percent} %)`,
  };
}

export function formatTokens(
  usage: { inputTokens: number; outputTokens: number } | undefined,
): string {
  if (!usage) return '';
  return `${usage.inputTokens.toLocaleString('en-US')} in · ${usage.outputTokens.toLocaleString('en-US')} out`;
}

const BUDGET_NAMES: Record<BudgetExceededParams['kind'], string> = {
  depth: 'subtask depth',
  iterations: 'iterations per level',
  parallel: 'parallel tool calls',
  subtasks: 'subtasks',
  llm_calls: 'model calls',
  tool_calls: 'tool calls',
  wall_clock_ms: 'time',
  tool_result_bytes: 'tool result size',
  history_tokens: 'history tokens',
};

export function budgetText(notice: BudgetExceededParams): string {
  const name = BUDGET_NAMES[notice.kind];
  const unit =
    notice.kind === 'wall_clock_ms' ? ' ms' : notice.kind === 'tool_result_bytes' ? ' bytes' : '';
  return `Budget exceeded: ${name} — limit ${notice.limit}${unit}, observed ${notice.observed}${unit}.`;
}

const DECISION_LABEL: Record<ApprovalDecision, string> = {
  allow: 'Allowed',
  allowForSession: 'Allowed for this session',
  allowAlways: 'Allowed from now on in this workspace',
  deny: 'Denied',
};
export function decisionLabel(decision: ApprovalDecision): string {
  return DECISION_LABEL[decision];
}

/** "Instructions: AGENTS.md, api/AGENTS.md (cut)": what the workspace told the model this turn. */
export function instructionsText(files: readonly InstructionsFile[]): string | undefined {
  if (files.length === 0) return undefined;
  return `Instructions: ${files.map((file) => `${file.path}${file.truncated ? ' (cut)' : ''}`).join(', ')}`;
}

const OMITTED_LABEL: Record<OmittedData, string> = {
  text: 'the answer',
  toolCalls: 'tool arguments',
  toolResults: 'tool results',
};

/** What a reloaded turn lacks because the agent's data policy did not keep it. */
export function omittedText(omitted: readonly OmittedData[]): string | undefined {
  const known = omitted.filter((kind) => Object.hasOwn(OMITTED_LABEL, kind));
  if (known.length === 0) return undefined;
  return `Not kept by the agent's data policy: ${known.map((kind) => OMITTED_LABEL[kind]).join(', ')}.`;
}

/** The injected arguments of a call as `name: value` lines, in the order the model gave them. */
export function injectedArgsText(args: InjectedArgs | undefined): string | undefined {
  const entries = Object.entries(args ?? {});
  if (entries.length === 0) return undefined;
  return entries.map(([name, value]) => `${name}: ${value}`).join('\n');
}

/** How an asked call was decided, for its card; a refusal is the header's outcome (deniedText). */
export function approvalText(node: ExecutionTreeNode): string | undefined {
  return node.approval === 'approved' ? 'approved' : undefined;
}

/** Write and edit approvals can show a diff; the host decides whether it can build one. */
export function canShowDiff(category: string, name: string): boolean {
  return category === 'write' || /edit|write|patch/i.test(name);
}

/** JSON for previews: stable, short. */
export function previewJson(value: unknown, max = 2000): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A preview that is a whole JSON value, indented; anything else (plain text, a cut preview) as it is. */
export function prettyJson(text: string): string {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** "Today 14:05", "Yesterday", "12 Mar", "12 Mar 2024": when a chat was last used. */
export function formatWhen(iso: string, now = new Date()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const day = (d: Date): number => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((day(now) - day(at)) / 86_400_000);
  const time = at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  if (days === 0) return `Today ${time}`;
  if (days === 1) return `Yesterday ${time}`;
  const sameYear = at.getFullYear() === now.getFullYear();
  return at.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
  });
}

/** How a question's card says it ended. */
export function questionEndText(end: QuestionEnd): string {
  if (end.kind !== 'resolved') return 'Closed: the question is no longer asked.';
  switch (end.outcome) {
    case 'answered': {
      const answer = end.answer !== undefined ? `: ${quoteAnswer(end.answer)}` : '';
      if (end.answeredHere === true) return `Answered here${answer}`;
      if (end.answeredHere === false) return `Answered in another window${answer}`;
      return `Answered${answer}`;
    }
    case 'timed_out':
      return 'Timed out: the model went on without an answer.';
    case 'cancelled':
      return 'Cancelled with the turn.';
    case 'unanswered':
    case undefined:
      return 'Not answered: the model went on without an answer.';
  }
}

/** An answer in a status line: quoted, one line, cut short. */
export function quoteAnswer(answer: string, max = 200): string {
  const line = answer.replace(/\s+/g, ' ').trim();
  return `“${line.length > max ? `${line.slice(0, max - 1)}…` : line}”`;
}
