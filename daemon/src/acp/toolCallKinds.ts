/**
 * What a tool call is called and what kind of work it is, for the editor:
 * the built-in tools by name, any other tool (client tools, MCP tools) by
 * the category `tools/list` gives it.
 */
import type { ToolCategory } from '@arbor/protocol';
import type { ToolKind } from '@agentclientprotocol/sdk';
import { stringArg, type ToolArgs } from './toolCallArgs.js';

const KIND_BY_TOOL: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  list_dir: 'read',
  memory_list: 'read',
  memory_read: 'read',
  memory_write: 'other',
  glob: 'search',
  grep: 'search',
  write_file: 'edit',
  edit_file: 'edit',
  run_command: 'execute',
  run_task: 'execute',
  run_subtask: 'think',
  finish_subtask: 'think',
  todo_write: 'think',
  // The context engine's summary of earlier turns (a compaction node).
  compact_context: 'think',
};

const KIND_BY_CATEGORY: Readonly<Record<ToolCategory, ToolKind>> = {
  read: 'read',
  write: 'edit',
  execute: 'execute',
  // External tools reach outside the machine (the web, a service): ACP's fetch.
  external: 'fetch',
};

export function toolKind(name: string, category: ToolCategory | undefined): ToolKind {
  return KIND_BY_TOOL[name] ?? (category === undefined ? 'other' : KIND_BY_CATEGORY[category]);
}

/**
 * One line saying what the call does. Subtask titles start with "Subtask"
 * so an editor that cannot nest still tells them from tool calls. `nodeTitle`
 * is the tree node's title (a subtask's, a compaction's).
 * `summary` is the tool catalogue's one-line summary of other tools' arguments.
 */
export function toolTitle(
  name: string,
  args: ToolArgs,
  nodeTitle: string | undefined,
  summary: string | undefined,
): string {
  const path = stringArg(args, 'path');
  const pattern = stringArg(args, 'pattern');
  const key = stringArg(args, 'key');
  switch (name) {
    case 'run_subtask':
      return `Subtask: ${nodeTitle ?? stringArg(args, 'title') ?? 'untitled'}`;
    case 'read_file':
      return `Read ${path ?? 'a file'}${linesOf(args)}`;
    case 'list_dir':
      return `List ${path ?? '.'}`;
    case 'glob':
      return `Find files matching ${pattern ?? '?'}${path && path !== '.' ? ` in ${path}` : ''}`;
    case 'grep':
      return `Search for ${pattern ?? '?'}${path && path !== '.' ? ` in ${path}` : ''}`;
    case 'write_file':
      return `Write ${path ?? 'a file'}`;
    case 'edit_file':
      return `Edit ${path ?? 'a file'}`;
    case 'run_command':
      return `Run ${oneLine(stringArg(args, 'command') ?? 'a command')}`;
    case 'run_task':
      return `Run task ${stringArg(args, 'name') ?? '?'}`;
    case 'todo_write':
      return 'Update the plan';
    case 'compact_context':
      return nodeTitle ?? 'Summarize the earlier conversation';
    case 'memory_list':
      return 'List the turn memory';
    case 'memory_read':
      return `Read memory ${key ?? ''}`.trimEnd();
    case 'memory_write':
      return `Write memory ${key ?? ''}`.trimEnd();
    case 'finish_subtask':
      return 'Finish the subtask';
    default:
      return summary === undefined ? name : `${name}: ${summary}`;
  }
}

function linesOf(args: ToolArgs): string {
  const offset = args['offset'];
  const limit = args['limit'];
  if (typeof offset !== 'number') return '';
  return typeof limit === 'number'
    ? ` (lines ${offset}–${offset + limit - 1})`
    : ` (from line ${offset})`;
}

/** A title is one line: a multi-line command shows its first line, long ones are cut. */
function oneLine(text: string, max = 120): string {
  const lines = text.trim().split('\n');
  const first = lines[0] ?? '';
  const cut = first.length > max ? `${first.slice(0, max - 1)}…` : first;
  return lines.length > 1 && cut === first ? `${cut} …` : cut;
}
