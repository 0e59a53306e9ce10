/**
 * Hand-written prose about each built-in tool — what a call returns, the
 * error results it produces, what else a client or script author must know —
 * for protocol-spec/spec/builtin-tools.md. The generator (daemon/scripts/
 * builtinToolsDoc.ts) merges it with what it reads from the tools themselves
 * (names, descriptions, categories, schemas, scheduling), and a test fails
 * when a tool has no entry here or an entry names no tool. Kept apart from
 * the tool definitions, whose files other work owns; only the generator and
 * its test import it.
 */
import { FINISH_SUBTASK, MAX_SCHEMA_RETRIES, RUN_SUBTASK } from '../agent/subtaskTools.js';
import { MAX_ARGUMENT_DEPTH } from '../agent/boundedArguments.js';
import {
  MAX_FILE_BYTES,
  MAX_GREP_MATCHES_DEFAULT,
  MAX_LISTED,
  MAX_READ_BYTES,
} from './workspace/fileTools.js';
import { MAX_COMMAND_OUTPUT_BYTES } from './workspace/runCommand.js';

export interface ToolDoc {
  /**
   * Meaning of arguments whose schema has no description, by path (`todos[].content`).
   * Only for the page: the model is offered the schema as it is.
   */
  arguments?: Readonly<Record<string, string>>;
  /** What the model gets when the call succeeds (Markdown). */
  result: string;
  /** The error results (`isError: true`) the tool itself produces, as the model reads them. */
  errors: readonly string[];
  /** Anything else a client or a script author needs. */
  notes?: readonly string[];
}

const CONFINED =
  'A path outside the workspace, or one that leaves it through a symbolic link: `refused: "<path>" …; workspace tools only reach files inside the workspace`.';
const FILE_SYSTEM =
  'What the file system reports: `not found: <path>`, `that path is a directory`, `a component of that path is a file, not a directory`, `permission denied by the file system`, `file system error: <code>`.';
const STALE =
  '`refused: <path> changed on disk after you last read it (someone else edited it). Read <path> again (read_file) and redo the change on its current content.` — also when it was deleted or moved meanwhile. Only files this session read or wrote are checked; a file it never read can be overwritten.';

/** Errors every call can end in, before or around the tool itself. */
export const COMMON_ERRORS: readonly string[] = [
  'Arguments that do not match the input schema: `Invalid arguments for <tool>:` followed by each problem; the tool does not run.',
  `Arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels: \`Not run: the arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels; …\`.`,
  'A name the loop does not offer: `Unknown tool "<name>". Available tools: …`.',
  'The permission gate refuses ([approvals.md](approvals.md#permission-matrix)): `blocked_in_plan_mode: …` (node `blocked`) or `permission_denied: …` (node `denied`).',
  'The tool fails unexpectedly: `Tool <name> failed: <message>`.',
  'Every result, error or not, is cut to the `tool_result_bytes` budget with a `[… truncated: K of N bytes shown]` marker ([budgets.md](budgets.md#budget-kinds)).',
];

export const PATH_RULES =
  'Paths are relative to the workspace root; `~` is the home directory and absolute paths are accepted, but every path is resolved (symbolic links followed) when the call runs and must lie inside the workspace ([security.md](security.md)).';

export const BUILTIN_TOOL_DOCS: Readonly<Record<string, ToolDoc>> = {
  [RUN_SUBTASK]: {
    result:
      'The subtask’s outcome: its text, or with `output_schema` its accepted payload as JSON text; when it stopped at its iteration limit, did not deliver a valid payload or its model failed, an error result. The outcome is also stored in shared memory as `task:<id>` (the subtask node’s id). See [subtasks.md](subtasks.md#subtask-result).',
    errors: [
      'Depth limit: `Depth limit reached: subtasks nest at most <depth> levels deep. Do this work here, without run_subtask.`',
      'Unknown names in `tools`: `Unknown tools for the subtask: <names>. Available: <names>.`',
      '`output_schema is not a valid JSON Schema: <reason>`',
      'The subtask ended without a usable result: `The subtask stopped at its iteration limit (<n>). …`, `{"error":"schema_not_satisfied",…}`, `The subtask failed: <message>`.',
    ],
    notes: [
      'Not checked by the permission gate itself; every call of the subtask is, with the session’s mode.',
      'Counts against the `subtasks` budget, not `tool_calls`. Not offered to a loop at the depth limit.',
      `With \`output_schema\`, the subtask gets \`${FINISH_SUBTASK}\` ([below](#builtin-finish-subtask)).`,
    ],
  },
  memory_list: {
    result:
      'One line per key of the turn’s shared memory, `<key> (<n> chars)`, in the order the keys were first written; `Memory is empty.` when there are none.',
    errors: [],
    notes: [
      'Memory belongs to one turn: every loop of the turn shares it; the next turn starts empty.',
    ],
  },
  memory_read: {
    result:
      'The value: a string as it is, anything else (a structured subtask result, an error object) as JSON text.',
    errors: ['`No memory entry "<key>". Existing keys: <keys or none>.`'],
  },
  memory_write: {
    arguments: {
      key: 'The key; `task:<id>` keys hold subtask results',
      value: 'The text to store',
    },
    result: '`Stored <key>.` An existing value under the key is replaced.',
    errors: [],
    notes: ['Values are strings. Category `read`: it changes nothing outside the turn.'],
  },
  read_file: {
    arguments: { path: 'The file to read' },
    result: `The file’s text (UTF-8). When only part of it is returned — \`offset\`/\`limit\` given, or the ${MAX_READ_BYTES}-byte cap per call reached — the text is followed by a line \`[lines <first>-<last> of <total>; pass offset and limit for other lines]\`.`,
    errors: [
      '`<path> is a directory; use list_dir`',
      '`<path> is not a regular file`',
      `\`<path> is <n> bytes; read_file opens files up to ${MAX_FILE_BYTES} bytes\``,
      '`<path> looks like a binary file` (a NUL byte in its first 8192 bytes)',
      '`<path> has <n> lines; offset <offset> is past the end`',
      CONFINED,
      FILE_SYSTEM,
    ],
    notes: [
      'Reading records the file’s content for the stale-write check of write_file and edit_file.',
    ],
  },
  list_dir: {
    arguments: { path: 'The directory to list' },
    result: `The directory’s entries, one per line, sorted: directories end with \`/\`, symbolic links with \`@\`. At most ${MAX_LISTED} entries, then \`[… <n> more entries]\`; \`(empty directory)\` when there are none.`,
    errors: [CONFINED, FILE_SYSTEM],
  },
  glob: {
    arguments: {
      pattern: 'Glob pattern, matched against paths relative to `path`',
      path: 'The directory to search',
      include_ignored: 'Also search `node_modules` and `.gitignore`d paths',
    },
    result: `Matching file paths, relative to the workspace root, one per line; at most ${MAX_LISTED}, then \`[… more files match; narrow the pattern]\`. \`No files match.\` when none do (also when \`path\` does not exist).`,
    errors: [CONFINED],
    notes: [
      'The pattern matches the whole path relative to `path`: `*.ts` finds files directly in `path`, `**/*.ts` at any depth.',
      'Only files are listed. Symbolic links are not followed; `.git` is always skipped, `node_modules` and `.gitignore`d paths unless `include_ignored`. A search stops after 100000 directory entries.',
    ],
  },
  grep: {
    arguments: {
      pattern: 'Regular expression (JavaScript syntax), matched against each line',
      path: 'The directory to search',
      ignore_case: 'Match case-insensitively',
      include_ignored: 'Also search `node_modules` and `.gitignore`d paths',
      max_matches: 'Stop after this many matching lines',
    },
    result: `Matching lines as \`<file>:<line>:<text>\` (file relative to the workspace root, line 1-based); with \`context\`, context lines as \`<file>-<line>-<text>\` and \`--\` between groups that are not adjacent. At most \`max_matches\` matches (default ${MAX_GREP_MATCHES_DEFAULT}), then \`[stopped after <n> matches]\`; \`No matches.\` when there are none.`,
    errors: ['`invalid regular expression: <reason>`', CONFINED],
    notes: [
      '`include` without a `/` matches file names at any depth (`*.ts`); with a `/` it matches the whole path from the workspace root (`src/**/*.ts`).',
      'Skips binary files and files over 2 MiB; `.git`, `node_modules` and `.gitignore`d paths as for glob.',
    ],
  },
  write_file: {
    arguments: { path: 'The file to write', content: 'The whole new content (UTF-8)' },
    result:
      '`Created <path> (<n> bytes).` or `Wrote <path> (<n> bytes).` Missing parent directories are created.',
    errors: ['`<path> is a directory`', STALE, CONFINED, FILE_SYSTEM],
    notes: [
      'A write inside the workspace’s `.git/` or the daemon’s data directory asks for approval even in `auto` ([approvals.md](approvals.md#approvals-protected-paths)).',
    ],
  },
  edit_file: {
    arguments: {
      path: 'The file to edit',
      old: 'The exact text to replace',
      new: 'The replacement text',
      replace_all: 'Replace every occurrence instead of requiring exactly one',
    },
    result: '`Edited <path>: <n> replacement(s).`',
    errors: [
      '`<path> does not exist; use write_file to create it`',
      '`<path> is not a regular file`',
      '`the text to replace was not found in <path>; read the file and copy it exactly`',
      '`the text to replace occurs <n> times in <path>; include more surrounding text so it is unique, or pass replace_all`',
      STALE,
      CONFINED,
      FILE_SYSTEM,
    ],
    notes: [
      '`old` is matched exactly (no regular expression, no whitespace folding).',
      'Protected paths ask as for write_file.',
    ],
  },
  run_command: {
    arguments: {
      command: 'The command line, run by `/bin/sh -c`',
      cwd: 'Working directory, inside the workspace',
      timeout_ms: 'Kill the command after this many milliseconds',
    },
    result: `A first line with how the command ended — \`exit code <n>\`, \`killed after the <timeout_ms> ms timeout\`, \`killed: the turn was cancelled\`, \`killed by <signal>\` or \`failed to start: <reason>\` — then, when no sandbox could be used, a line \`[ran without a sandbox: <reason>]\`, then stdout and stderr interleaved (the first ${MAX_COMMAND_OUTPUT_BYTES} bytes, then \`[… <n> more bytes of output not kept]\`), with secrets the daemon knows redacted. It is an error result unless the exit code is 0.`,
    errors: [
      '`cwd <cwd> is not a directory of the workspace`',
      '`failed to start: <reason>`',
      CONFINED,
    ],
    notes: [
      'Runs `/bin/sh -c <command>` with no stdin, in its own process group: a timeout or a cancelled turn stops everything it started.',
      'An allow-for-session grant covers the same command line only.',
      'Where a sandbox works, the command can write only the workspace and a private /tmp, has no network unless configured, and sees no credentials ([security.md](security.md)).',
    ],
  },
  todo_write: {
    arguments: {
      todos: 'Every step of the plan, in order',
      'todos[].content': 'What the step is',
      'todos[].status': 'Where the step stands',
    },
    result:
      '`Plan updated: <n> step(s), <m> completed.` The whole list goes to every attached client as [`plan/update`](plan.md#plan-update).',
    errors: ['`Every step needs a distinct id.`'],
    notes: ['Each call replaces the whole plan; an empty list clears it.'],
  },
};

/** finish_subtask is not a Tool of any belt: the loop offers its definition in structured subtasks. */
export const FINISH_SUBTASK_DOC: ToolDoc = {
  result:
    '`Result accepted.` — the subtask ends once the calls of this model reply have run, and the payload is its result. A later call in the same subtask gets `The result was already accepted.`',
  errors: [
    `The payload does not validate: \`The result does not match the output schema:\` with one \`- <path> <message>\` line per problem, then \`Correct it and call finish_subtask again (<n> retries left).\` — after ${MAX_SCHEMA_RETRIES} retries \`No retries left.\`, and the subtask ends as \`schema_not_satisfied\`.`,
  ],
  notes: [
    'Offered only in a subtask started with `output_schema`, on every model call of its loop (alone on the last one the iteration limit allows). Its input schema is that `output_schema`; its arguments are the result.',
    'Not checked by the permission gate, and not counted against the `tool_calls` budget. Not listed by `tools/list`, which describes root loops.',
    'See [subtasks.md](subtasks.md#output-schema).',
  ],
};
