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
import { STOP_GRACE_MS } from './processes/backgroundProcess.js';
import { MAX_OUTPUT_READ_CHARS, START_GRACE_MS } from './processes/processTools.js';
import {
  MAX_KEPT_EXITED,
  MAX_PROCESS_OUTPUT_CHARS,
  MAX_RUNNING_PROCESSES,
} from './processes/sessionProcesses.js';
import { ARTIFACT_PAGE_CHARS, MAX_ARTIFACT_PAGE_CHARS, READ_ARTIFACT } from './readArtifact.js';
import { CONNECT_TIMEOUT_MS, MAX_REDIRECTS, TOTAL_TIMEOUT_MS } from './web/fetchPage.js';
import { BUILD_WAIT_MS, LINES_PER_FILE, RANKED_FILES } from './search/searchCode.js';
import { MAX_INDEXED_FILE_BYTES } from './search/workspaceIndex.js';

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
  [READ_ARTIFACT]: {
    result: `A page of the artifact: a line \`[artifact <id>: characters <start>–<end> of <total>; more: read_artifact {"id": "<id>", "offset": <end>}]\` (or \`; this is the end\`), then the text. \`length\` defaults to ${ARTIFACT_PAGE_CHARS} and is at most ${MAX_ARTIFACT_PAGE_CHARS} characters.`,
    errors: [
      '`No artifact "<id>" in this session.`',
      '`Offset <offset> is past the end of artifact <id> (<total> characters).`',
    ],
    notes: [
      'Artifacts are tool results the context engine kept out of the conversation: one larger than its offload threshold (the model gets a preview ending in `[offloaded: …]`), or an older one replaced by a reduced version (`[reduced: N tokens, full result kept as artifact <id>]`) when a request had to shrink to fit the model’s context window.',
      'Artifacts belong to the session and are stored with it: they outlive the turn and a daemon restart.',
    ],
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
  search_code: {
    result: `One line per matching line, \`<file>:<line>: <text>\` (file relative to the workspace root, line 1-based, text trimmed and cut at 200 characters), files best first (definitions of a term, then files named after one, then whole-word matches, then how often the terms occur; past ${RANKED_FILES} matching files the ranking covers the first ${RANKED_FILES} found plus those named after a term) and at most ${LINES_PER_FILE} lines per file, a long line cut to a window around the match; \`<file>: (the terms are on different lines)\` when a file holds every term but no line holds one. At most \`limit\` lines, then \`[… more files match; narrow the query or raise limit]\`; \`No matches.\` when no file matches. While the index is still being built the result ends with \`[the search index is still being built (<n> of <m> files checked): …; search again in a moment, or use grep to search every file now]\`.`,
    errors: [
      '`search terms need at least 3 characters each (<terms> is shorter); use grep for shorter patterns`',
      CONFINED,
    ],
    notes: [
      'A file matches when it contains every term of `query` (split at spaces) as a case-insensitive substring: the index is an SQLite FTS5 trigram index, kept in `<dataDir>/search/`, one per workspace root.',
      `The first call for a workspace builds its index (in batches, other work going on in between) and waits at most ${BUILD_WAIT_MS / 1000} s for it, then answers from what is indexed so far; later calls first re-index what a watcher on the indexed directories saw change. Skips \`.git\`, \`node_modules\`, \`.gitignore\`d paths, symbolic links, binary files and files over ${MAX_INDEXED_FILE_BYTES} bytes. A restarted daemon re-reads only files whose modification time or size changed.`,
      '`path` limits results to a directory, `glob` to matching files (as grep’s `include`).',
      'The index closes when the last session of its workspace is released, after 10 minutes without a search, or when the daemon exits.',
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
  process_start: {
    arguments: {
      command: 'The command line, run by `/bin/sh -c`',
      cwd: 'Working directory, inside the workspace',
    },
    result: `A first line \`<id>: running (pid <pid>, for <n> s)\` — or, when the process ended within the first ${START_GRACE_MS / 1000} s, how it ended (\`exited with code <n>\`, \`killed by <signal>\`, \`failed to start: <reason>\`) — then \`[ran without a sandbox: <reason>]\` when no sandbox could be used, or a note that its sandbox has no network, then what it wrote in those ${START_GRACE_MS / 1000} s as process_output shows it, then how to read on and stop it. Ids are \`p1\`, \`p2\`, … per session. An error result when it ended with a nonzero exit code, by a signal or could not start.`,
    errors: [
      `\`refused: this session already runs ${MAX_RUNNING_PROCESSES} background processes, the most it may (<ids>). Stop one with process_kill first.\``,
      '`cwd <cwd> is not a directory of the workspace`',
      '`failed to start: <reason>`',
      CONFINED,
    ],
    notes: [
      'Runs `/bin/sh -c <command>` as run_command does — same sandbox, scrubbed environment, secrets redacted from its output, its own process group — but does not wait for it: it runs until process_kill stops it, it ends by itself, its session is deleted or the daemon ends, however it ends (a sandboxed process dies with bwrap; one without a sandbox is killed by a watchdog process that notices when the daemon is gone). Always spawned by the daemon, also in sessions whose commands run in an editor’s terminal.',
      'Where the sandbox has no network (the default), the ports it listens on answer only inside its own sandbox: neither run_command nor the user reaches them. `sandbox.network: true` in the config lifts this.',
      `What it writes during the first ${START_GRACE_MS / 1000} s shows live in the call’s node (\`output\`); later output reaches the model and the tree through process_output. The last ${MAX_PROCESS_OUTPUT_CHARS} characters of its output are kept.`,
      'An allow-for-session grant covers the same command line only.',
    ],
  },
  process_output: {
    result: `A first line with the id, the command in backquotes and the state — \`running (pid <pid>, for <n> s)\`, \`exited with code <n>\`, \`killed by <signal>\`, followed by \`(process_kill)\` or \`(its session ended)\` when it was stopped — then \`[output <start>–<end> of <total> characters]\` and the text, or \`[no new output; <total> characters in all]\`. Positions count every character the process wrote since it started. Without \`since\`: what it wrote since the last process_start or process_output result for it, only the last ${MAX_OUTPUT_READ_CHARS} characters when more is new (a line says which were left out and how to read them); with \`since\`: at most ${MAX_OUTPUT_READ_CHARS} characters from there, then a line with the \`since\` to read on. Secrets the daemon knows are redacted.`,
    errors: [
      '`No background process "<id>" in this session.` followed by the list process_list returns.',
      "`since <n> is past the end of <id>'s output (<total> characters).`",
    ],
    notes: [
      'The call’s node shows the output it returned (`output`).',
      `Output before the last ${MAX_PROCESS_OUTPUT_CHARS} characters is no longer kept; a read from there says so.`,
    ],
  },
  process_kill: {
    result:
      '`<id> stopped: killed by SIGTERM (process_kill).` (or how it ended, when it ended another way meanwhile); `<id> had already ended: <state>.` when it was not running.',
    errors: ['`No background process "<id>" in this session.` followed by the list.'],
    notes: [
      `Sends SIGTERM to the process’s whole group, SIGKILL after ${STOP_GRACE_MS / 1000} s, and returns once it has exited. Its output stays readable with process_output.`,
      'Category `execute`, like process_start: stopping a server the user may be using is an action on the machine, so plan mode blocks it and default mode asks. An allow-for-session grant covers every process_kill of the session (they reach only its own processes).',
    ],
  },
  process_list: {
    result: `\`Background processes of this session:\` then one line per process — its id, the command in backquotes, \`(cwd <cwd>)\` and its state as process_output gives it — in the order they were started; \`This session has no background processes.\` when there are none.`,
    errors: [],
    notes: [
      `A session runs at most ${MAX_RUNNING_PROCESSES} background processes at once and lists the last ${MAX_KEPT_EXITED} that ended besides them; deleting the session stops its processes and forgets them.`,
    ],
  },
  run_task: {
    arguments: {
      timeout_ms: 'Kill the task after this many milliseconds',
    },
    result:
      'A first line `<source> task <name>: <command line>` (e.g. `package.json task test: pnpm run test`), then what run_command returns for that command line.',
    errors: [
      '`No task named <name>. The tasks of this workspace:` then one line per task, `- <name> (<source>): <script or recipe>`; or `… declares none` when there is no package.json script and no Makefile target.',
      'Every error of run_command.',
    ],
    notes: [
      'Tasks are read at each call: `package.json` scripts, run with the package manager whose lockfile is there (pnpm, yarn, bun, else npm), and the explicit targets of `GNUmakefile`, `makefile` or `Makefile` (a target named like a script is `make:<name>`). Arguments are shell-quoted and, for npm, pnpm and bun, passed after `--`.',
      'Runs like run_command (sandbox, environment, timeout, output live in the node). An allow-for-session grant covers the same task name, whatever its arguments.',
    ],
  },
  apply_patch: {
    result:
      '`Applied the patch to <n> file(s):` then one line per file: `- created <path> (+<added> -<removed>)`, `- modified <path> (+<added> -<removed>)`, `- deleted <path>`, `- renamed <from> to <path> (+<added> -<removed>)`.',
    errors: [
      '`the patch cannot be read: <reason>; give a unified diff: …`, `the patch changes no file; …`, `a hunk has no file header; …` — also for binary changes and copies, which are not supported.',
      'Any file that cannot be patched: `The patch was not applied; nothing was changed.` followed by one entry per such file — a refused path, a stale file, `<path> already exists; …`, `<path> does not exist; …`, `<path>: the patch deletes the file, but its hunks do not remove all of its content` — or, per hunk that does not apply: `<path>: hunk <i> of <n> does not apply: @@ -<l>,<n> +<l>,<n> @@`, the lines it expected (context and removed lines) and the lines found at that line of the file, each shown as `    |<line>`.',
      STALE,
      CONFINED,
      FILE_SYSTEM,
    ],
    notes: [
      'Parsed and applied with the `diff` package: hunks match exactly (whitespace included), searched near the line their header names; line-ending differences between patch and file are tolerated. File names drop the `a/` and `b/` prefixes of git diffs; `/dev/null` on the old side creates a file, on the new side deletes one (its hunks must remove all of its content); git `rename from`/`rename to` headers rename.',
      'All or nothing: every file is checked and patched in memory before anything is written; should writing fail midway, the files already written are put back.',
      'The approval request shows the whole patch (the call’s `patch` argument). A patch touching `.git/` or the daemon’s data directory asks even in `auto`.',
    ],
  },
  web_fetch: {
    result:
      'A first line `<final url>[ (redirected from <url>)]: HTTP <status> <reason>, <content type>, <n> bytes[, cut at maxBytes <maxBytes>]`, an empty line, then the content: HTML as Markdown (the main article Readability finds, else the whole body, headed by the page title), `text/*` and JSON as text (decoded with the charset the server names). A body longer than `maxBytes` is cut there and ends with `[… cut: only the first <maxBytes> bytes were downloaded; pass a larger maxBytes for more]`. Credentials written into the URL never appear in it.',
    errors: [
      'A status outside 200–299: the same result, marked as an error.',
      '`not a valid absolute URL: <url>`; `refused: <scheme> URLs are not fetched; web_fetch reaches http and https only`',
      '`refused: <address> is a loopback, private, link-local or otherwise non-public address; web_fetch only reaches the public internet` — also `refused: <host> resolves to <addresses>, …` and for any redirect leading there.',
      '`refused: the content type is <type>; web_fetch returns only HTML (as Markdown), text and JSON` (after the first line)',
      `\`too many redirects (more than ${MAX_REDIRECTS}): <url> -> …\``,
      `\`could not connect to <host> within ${CONNECT_TIMEOUT_MS / 1000} s\`, \`<url> did not answer within ${TOTAL_TIMEOUT_MS / 1000} s\`, \`<host> was not found (DNS)\`, \`<url> could not be fetched: <reason>\``,
    ],
    notes: [
      'Addresses are checked on the address each connection actually uses, so a name that resolves differently later (DNS rebinding) is refused too. Refused: IPv4 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.168/16, 198.18/15, 224/4, 240/4; IPv6 ::, ::1, fe80::/10, fec0::/10, fc00::/7, ff00::/8, and IPv4-mapped forms of the IPv4 ranges. The config settings `webFetch.allowPrivateNetworks` (all of them) and `webFetch.privateNetworkAllowlist` (listed addresses and CIDR subnets) lift this.',
      `At most ${MAX_REDIRECTS} redirects are followed, each checked again (scheme and address). Credentials in the URL are sent as Basic authorization to that URL’s origin only, never to another host a redirect leads to; they are treated as secrets from the call on ([security.md](security.md)).`,
      'An allow-for-session grant covers the same origin (scheme, host, port).',
    ],
  },
  ask_user: {
    result: '`The user answered: <answer>` — the option label the user picked, or their own words.',
    errors: [
      '`The user did not answer in time. …` (the approval timeout)',
      '`The user could not be asked or dismissed the question. …` (no controller answers questions, or every answer was invalid)',
      '`The question was cancelled with the turn.`',
    ],
    notes: [
      'Offered only to a turn whose sending client advertised `client.questions`; the question reaches every controller of the session that did, as [`tool/question`](questions.md#question-request), and the first valid answer wins.',
      'Category `read`: it runs in every permission mode, `plan` included. While it waits, the node has status `awaiting_approval` and the session `requires_action`.',
      'Calls run one at a time, in the order the model made them.',
    ],
  },
  read_skill: {
    arguments: {
      name: 'A skill the system prompt lists',
      path: 'Relative to the skill folder; absent: SKILL.md',
    },
    result:
      'The file’s text (at most 32000 characters, then `[truncated: <n> characters]`), or for a folder its entries one per line, folders ending in `/`.',
    errors: [
      '`No skill named "<name>".`',
      '`<path> of skill <name> is outside the skill folder.` (`..`, an absolute path, or a link leading out)',
      '`<path> of skill <name> cannot be read (<code>).`, `<path> is not a file.`, `<path> is too large to read (<n> bytes).`',
    ],
    notes: [
      'Offered only to a turn whose workspace (`.arbor/skills/`) or user (the data dir’s `skills/`) has at least one skill; the system prompt then lists each skill’s name and description ([commands.md](commands.md#skills)).',
      'Reads through the same symlink-safe confinement as the workspace file tools, with the skill’s folder as the root.',
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
/** run_subtasks, offered only with an agent profile that allows parallel subagents. */
export const RUN_SUBTASKS_DOC: ToolDoc = {
  result:
    'A JSON array with one entry per job, in the order of `jobs`: `{"ok":true,"result":…}` with the job’s text, or with `output_schema` its accepted payload (a JSON value); `{"ok":false,"error":"…"}` with what a failed `run_subtask` would have returned (`The subtask failed: …`, `{"error":"schema_not_satisfied",…}` as text, …). The call is an error result only when every job failed. Each job’s outcome is also stored in shared memory as `task:<id>` (its node’s id). See [subtasks.md](subtasks.md#run-subtasks).',
  errors: [
    'More jobs than the profile’s `maxParallelSubagents`: `run_subtasks takes at most <n> jobs; this call has <m>. Nothing ran: split the jobs over several calls.` — no job runs.',
    'Depth limit: `Depth limit reached: subtasks nest at most <depth> levels deep. Do this work here, without run_subtasks.`',
    'Per job (an `{"ok":false}` entry, its siblings still run): `tool_names` naming a tool the job may not have: `tool_names must be tools a job may have: <names> are not. Available: <names>.`; an `output_schema` that does not compile; a result that does not satisfy it.',
  ],
  notes: [
    'Offered only when the session’s agent profile sets `allowParallelSubagents`; its schema’s `maxItems` is the profile’s `maxParallelSubagents` (1–7, 3 by default, as below).',
    'Each job is a subtask: a `subtask` node under the call’s node, counted against the `subtasks` budget; the jobs run concurrently, at most the `parallel` budget at once. A job has the caller’s tools except `run_subtasks` (or the `tool_names` of them, plus the memory tools).',
    'Not checked by the permission gate itself; every call of a job is, with the session’s mode.',
  ],
};

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
