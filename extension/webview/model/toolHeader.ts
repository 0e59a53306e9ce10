/**
 * The one line a tool call's card shows while collapsed: a verb, what the
 * call acts on and a short outcome (`Read src/convert.js · 42 lines`,
 * `Edit REVIEW.md +5 −0`, `Run npm test · exit 1`). Pure: unit-tested in Node.
 */
import type { DecidingRule, ExecutionTreeNode } from '@arbor/protocol';
import type { ToolCatalogue } from '@arbor/protocol/client/view';
import { editOf, lineCount } from './editDiff.js';

export interface ToolHeader {
  verb: string;
  /** What the call is about: a path, a command, a pattern; '' when unknown. */
  target: string;
  /** How it ended, briefly; '' while it runs or when there is nothing to say. */
  outcome: string;
}

interface ToolWording {
  verb: string;
  /** The outcome of a call that succeeded, from its arguments and result. */
  done?: (args: Record<string, unknown>, result: string) => string;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** "lines 1-40 of 120" when read_file paged, else the lines it returned. */
function linesRead(_args: Record<string, unknown>, result: string): string {
  const paged = /\[lines (\d+)-(\d+) of (\d+);/.exec(result);
  if (paged) return `lines ${paged[1]}–${paged[2]} of ${paged[3]}`;
  return plural(lineCount(result), 'line');
}

const counted =
  (one: string, many?: string) =>
  (_args: Record<string, unknown>, result: string): string =>
    plural(result.trim() === '' ? 0 : lineCount(result.trim()), one, many);

function editCounts(args: Record<string, unknown>): string {
  const edit = editOf(args);
  if (!edit) return '';
  return `+${edit.added} −${edit.removed}`;
}

/** "exit 1", "killed after the 60000 ms timeout": the first line of run_command's result. */
function exitStatus(_args: Record<string, unknown>, result: string): string {
  const first = result.split('\n', 1)[0] ?? '';
  const code = /^exit code (-?\d+)/.exec(first);
  if (code) return `exit ${code[1]}`;
  return first.length > 60 ? `${first.slice(0, 59)}…` : first;
}

const WORDING: Record<string, ToolWording> = {
  read_file: { verb: 'Read', done: linesRead },
  open_file: { verb: 'Open' },
  list_dir: { verb: 'List', done: counted('entry', 'entries') },
  glob: { verb: 'Find', done: counted('file') },
  grep: { verb: 'Search', done: counted('match', 'matches') },
  search_code: { verb: 'Search', done: counted('result') },
  write_file: { verb: 'Write', done: editCounts },
  edit_file: { verb: 'Edit', done: editCounts },
  apply_edit: { verb: 'Edit', done: editCounts },
  apply_patch: { verb: 'Patch', done: editCounts },
  run_command: { verb: 'Run', done: exitStatus },
  run_task: { verb: 'Run task', done: exitStatus },
  run_vscode_task: { verb: 'Run task', done: exitStatus },
  web_fetch: { verb: 'Fetch' },
  todo_write: { verb: 'Update the plan' },
  memory_list: { verb: 'List memory', done: counted('entry', 'entries') },
  memory_read: { verb: 'Read memory' },
  memory_write: { verb: 'Write memory' },
  read_artifact: { verb: 'Read stored result' },
  ask_user: { verb: 'Ask' },
  get_selection: { verb: 'Read the selection' },
  get_diagnostics: { verb: 'Read problems' },
  finish_subtask: { verb: 'Finish subtask' },
};

/** Argument names that say what a call is about, most telling first. */
const TARGET_KEYS = [
  'path',
  'file',
  'command',
  'pattern',
  'query',
  'url',
  'name',
  'key',
  'question',
];

/** A denied call is the user's decision, not a failure: said plainly, without the message meant for the model. */
export function deniedText(node: ExecutionTreeNode): string | undefined {
  if (node.status === 'blocked') return 'Blocked by plan mode';
  if (node.status !== 'denied') return undefined;
  if (node.rule?.effect === 'deny') return `Denied by rule ${node.rule.rule}`;
  if (node.approval === 'timed_out') return 'Not answered in time';
  if (node.approval === 'cancelled') return 'Cancelled';
  return 'Denied by you';
}

const RULE_SOURCE: Record<DecidingRule['source'], string> = {
  user: 'your',
  workspace: "the workspace's",
  remembered: 'a saved',
};

/** The permission rule that let the call run or made it ask (a deny rule is the header's outcome). */
export function ruleText(node: ExecutionTreeNode): string | undefined {
  const rule = node.rule;
  if (rule === undefined || rule.effect === 'deny') return undefined;
  return `${rule.effect === 'allow' ? 'allowed' : 'asked'} by ${RULE_SOURCE[rule.source]} rule ${rule.rule}`;
}

export function parseArgs(argsPreview: string | undefined): Record<string, unknown> | undefined {
  if (argsPreview === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(argsPreview);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    // A preview cut short is not JSON: the header goes without a target.
    return undefined;
  }
}

export function toolHeader(node: ExecutionTreeNode, tools: ToolCatalogue): ToolHeader {
  const wording = WORDING[node.name];
  const args = parseArgs(node.argsPreview) ?? {};
  const key = TARGET_KEYS.find((k) => typeof args[k] === 'string' && args[k] !== '');
  const target =
    (key !== undefined ? firstLine(args[key] as string) : undefined) ??
    tools.summarize(node.name, node.argsPreview) ??
    '';
  return { verb: wording?.verb ?? node.name, target, outcome: outcomeOf(node, wording, args) };
}

function outcomeOf(
  node: ExecutionTreeNode,
  wording: ToolWording | undefined,
  args: Record<string, unknown>,
): string {
  const denied = deniedText(node);
  if (denied) return denied;
  const result = node.resultPreview ?? '';
  switch (node.status) {
    case 'awaiting_approval':
      return node.name === 'ask_user' ? 'waiting for your answer' : 'waiting for your approval';
    case 'cancelled':
      return 'cancelled';
    case 'error':
      // run_command's failure is its exit code; other tools say why in their first line.
      return wording?.done === exitStatus
        ? exitStatus(args, result)
        : firstLine(result) || 'failed';
    case 'done':
      if (node.isError) return wording?.done === exitStatus ? exitStatus(args, result) : 'failed';
      return wording?.done?.(args, result) ?? '';
    default:
      return '';
  }
}

function firstLine(text: string, max = 80): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
