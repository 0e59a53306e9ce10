/**
 * What the terminal shows of a turn, as lines of text: the execution tree,
 * the plan, budget notices, the cost summary, the end of the turn. Pure (the
 * clock and the spinner frame are arguments), so the live and the plain
 * renderer print exactly the same thing.
 */
import type {
  ApprovalRequestParams,
  QuestionRequestParams,
  BudgetExceededParams,
  CostSummaryParams,
  ExecutionTreeNode,
  NodeStatus,
  PlanEntry,
  StopReason,
  Usage,
} from '@arbor/protocol';
import { progressText, type ToolCatalogue, type TreeReducer } from '@arbor/protocol/client';
import type { Style } from './terminalStyle.js';

export const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

export interface TreeFormatOptions {
  style: Style;
  /** Epoch ms, for the running time of live nodes. */
  now: number;
  /** Index into SPINNER_FRAMES; undefined prints a static marker (plain output). */
  spinnerFrame?: number | undefined;
  /** The session's tools (tools/list): categories and what each call is about. */
  tools?: ToolCatalogue | undefined;
}

const STATUS_ICONS: Record<NodeStatus, string> = {
  pending: '○',
  awaiting_approval: '?',
  running: '●',
  done: '✓',
  error: '✗',
  cancelled: '⊘',
  denied: '⊗',
  blocked: '⊘',
};

function statusIcon(status: NodeStatus, options: TreeFormatOptions): string {
  const { style } = options;
  switch (status) {
    case 'running':
      return style.cyan(
        options.spinnerFrame === undefined
          ? STATUS_ICONS.running
          : SPINNER_FRAMES[options.spinnerFrame % SPINNER_FRAMES.length]!,
      );
    case 'done':
      return style.green(STATUS_ICONS.done);
    case 'error':
    case 'denied':
      return style.red(STATUS_ICONS[status]);
    case 'awaiting_approval':
      return style.yellow(STATUS_ICONS[status]);
    default:
      return style.dim(STATUS_ICONS[status]);
  }
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** USD with enough digits for cheap calls; `null` (unknown price) says so. */
export function formatCost(cost: number | null): string {
  if (cost === null) return 'price unknown';
  if (cost === 0) return '$0.00';
  return cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

export function formatTokens(usage: Usage): string {
  const count = (n: number) => n.toLocaleString('en-US');
  return `${count(usage.inputTokens)} in / ${count(usage.outputTokens)} out tokens`;
}

function firstLine(text: string, max = 80): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function nodeLabel(node: ExecutionTreeNode, tree: TreeReducer, options: TreeFormatOptions): string {
  const { style } = options;
  if (node.kind === 'turn') return style.bold('turn');
  if (node.kind === 'subtask') {
    return `${style.bold(node.title ?? 'subtask')} ${style.dim('(subtask)')}`;
  }
  if (node.kind === 'compaction') {
    return `${style.bold(node.title ?? 'summarizing the earlier conversation')} ${style.dim('(compaction)')}`;
  }
  if (node.kind === 'hook') {
    return `${style.bold(node.name)}${node.title ? ` ${node.title}` : ''} ${style.dim('(hook)')}`;
  }
  if (node.kind === 'planner') {
    return `${style.bold(node.title ?? 'planning')} ${style.dim('(planner)')}`;
  }
  // From the tool's schema when the catalogue knows it: `src/a.ts`, not `{"path":"src/a.ts"}`.
  const about =
    options.tools?.summarize(node.name, node.argsPreview) ??
    (node.argsPreview && node.argsPreview !== '{}' ? node.argsPreview : '');
  const args = about ? ` ${style.dim(firstLine(about, 60))}` : '';
  // Read tools always run; the others are the calls that change or reach out of the workspace.
  const category = options.tools?.categoryOf(node.name);
  const tag = category && category !== 'read' ? ` ${style.dim(`(${category})`)}` : '';
  return `${style.bold(node.name)}${tag}${args}`;
}

function nodeFacts(node: ExecutionTreeNode, options: TreeFormatOptions): string[] {
  const facts: string[] = [];
  const live = node.status === 'running' || node.status === 'awaiting_approval';
  if (node.durationMs !== undefined && !live) facts.push(formatDuration(node.durationMs));
  else if (live && node.startedAt !== undefined) {
    facts.push(formatDuration(Math.max(0, options.now - Date.parse(node.startedAt))));
  }
  if (node.cost !== undefined) facts.push(formatCost(node.cost));
  if (node.usage !== undefined) {
    facts.push(`${(node.usage.inputTokens + node.usage.outputTokens).toLocaleString('en-US')} tok`);
  }
  if (node.status === 'awaiting_approval') facts.push('awaiting approval');
  const progress = progressText(node);
  if (progress !== undefined) facts.push(progress);
  // A running command's latest line, so a long `npm test` is seen moving.
  const line = node.status === 'running' ? lastLine(node.output) : undefined;
  if (line) facts.push(firstLine(line, 60));
  if (node.status === 'denied' || node.status === 'blocked' || node.status === 'cancelled') {
    facts.push(node.status);
  }
  return facts;
}

/** One line per node, depth-first, children indented under their parent. */
export function formatTree(tree: TreeReducer, options: TreeFormatOptions): string[] {
  const { style } = options;
  const lines: string[] = [];
  const visit = (node: ExecutionTreeNode, indent: number): void => {
    const facts = nodeFacts(node, options);
    let line = `${'  '.repeat(indent)}${statusIcon(node.status, options)} ${nodeLabel(node, tree, options)}`;
    if (facts.length > 0) line += `  ${style.dim(facts.join(' · '))}`;
    if (node.kind !== 'turn') {
      const detail =
        node.status === 'error' || node.isError
          ? node.resultPreview && style.red(`— ${firstLine(node.resultPreview)}`)
          : node.kind === 'subtask' && node.status === 'done'
            ? node.resultPreview && style.dim(`— ${firstLine(node.resultPreview)}`)
            : undefined;
      if (detail) line += ` ${detail}`;
    }
    lines.push(line);
    for (const child of tree.children(node.id)) visit(child, indent + 1);
  };
  for (const root of tree.roots()) visit(root, 0);
  return lines;
}

const PLAN_MARKS: Record<PlanEntry['status'], string> = {
  pending: '[ ]',
  in_progress: '[~]',
  completed: '[x]',
  cancelled: '[-]',
};

export function formatPlan(entries: readonly PlanEntry[], style: Style): string[] {
  if (entries.length === 0) return [];
  return [
    style.bold('Plan'),
    ...entries.map((entry) => {
      const mark = PLAN_MARKS[entry.status];
      const text = `  ${mark} ${entry.content}`;
      if (entry.status === 'completed') return style.green(text);
      if (entry.status === 'in_progress') return style.cyan(text);
      if (entry.status === 'cancelled') return style.dim(text);
      return text;
    }),
  ];
}

export function formatBudget(notice: BudgetExceededParams, style: Style): string {
  return style.yellow(
    `! Budget exceeded: ${notice.kind.replace(/_/g, ' ')} (limit ${notice.limit}, observed ${notice.observed}); the turn stops here`,
  );
}

export function formatCostSummary(summary: CostSummaryParams, style: Style): string[] {
  const lines = [
    style.bold(`Cost: ${formatCost(summary.cost)}`) +
      style.dim(` · ${formatTokens(summary.usage)}`),
  ];
  for (const model of summary.byModel) {
    lines.push(
      style.dim(
        `  ${model.provider}:${model.model}  ${model.calls} call${model.calls === 1 ? '' : 's'} · ` +
          `${formatTokens(model.usage)} · ${formatCost(model.cost)}`,
      ),
    );
  }
  if (summary.context) {
    const { tokens, window } = summary.context;
    const percent = Math.min(100, Math.round((tokens / window) * 100));
    const text = `  context ${tokens.toLocaleString('en-US')} / ${window.toLocaleString('en-US')} tokens (${percent}%)`;
    lines.push(percent >= 80 ? style.yellow(text) : style.dim(text));
  }
  return lines;
}

export function formatTurnEnd(stopReason: StopReason, style: Style, error?: string): string {
  const text = `Turn ended: ${stopReason}${error ? ` — ${error}` : ''}`;
  if (stopReason === 'end_turn') return style.green(text);
  if (stopReason === 'cancelled') return style.yellow(text);
  return style.red(text);
}

export function formatApprovalRequest(request: ApprovalRequestParams, style: Style): string[] {
  const args = JSON.stringify(request.args ?? {});
  return [
    style.yellow(`? ${style.bold(request.name)} needs approval (${request.category})`) +
      (request.reason ? style.dim(` — ${firstLine(request.reason, 120)}`) : ''),
    style.dim(`  ${args.length > 200 ? `${args.slice(0, 199)}…` : args}`),
    `  ${style.bold('[a]')} allow   ${style.bold('[s]')} allow for this session   ` +
      (request.suggestedRule === undefined
        ? ''
        : `${style.bold('[w]')} always allow ${request.suggestedRule}   `) +
      `${style.bold('[d]')} deny`,
  ];
}

/**
 * The model's question (ask_user): the question wrapped to `width`, its
 * options numbered with their descriptions, and how to answer.
 */
export function formatQuestionRequest(
  request: QuestionRequestParams,
  style: Style,
  width = 80,
): string[] {
  const options = request.options ?? [];
  const lead = 'Arbor asks:';
  const text = wrapText(`${lead} ${request.question}`, Math.max(20, width - 2));
  const first = (text[0] ?? '').slice(lead.length);
  const lines = [
    style.yellow(`? ${style.bold(lead)}${first}`),
    ...text.slice(1).map((line) => `  ${line}`),
  ];
  options.forEach((option, i) => {
    const head = `  ${style.bold(`${i + 1})`)} ${option.label}`;
    lines.push(option.description ? `${head} ${style.dim(`— ${option.description}`)}` : head);
  });
  const how =
    options.length === 0
      ? 'type your answer'
      : request.freeText
        ? `type a number (1–${options.length}) or your own answer`
        : `type a number (1–${options.length})`;
  lines.push(style.dim(`  ${how}, then Enter`));
  return lines;
}

/** Words wrapped to `width` columns, keeping the text's own line breaks. */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const chars = [...word];
      for (let i = 0; i < chars.length; i += width) {
        const piece = chars.slice(i, i + width).join('');
        if (line === '') line = piece;
        else if ([...line].length + 1 + [...piece].length <= width) line += ` ${piece}`;
        else {
          out.push(line);
          line = piece;
        }
      }
    }
    out.push(line);
  }
  return out;
}

/** The last non-empty line of a tool's output so far. */
function lastLine(output: string | undefined): string | undefined {
  return output
    ?.split('\n')
    .map((line) => line.trim())
    .findLast((line) => line !== '');
}
