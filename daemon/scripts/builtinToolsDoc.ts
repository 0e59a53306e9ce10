/**
 * protocol-spec/spec/builtin-tools.md, generated: every built-in tool as
 * tools/list reports it (name, description, category, parallel-safety, the
 * input schema the model is offered) plus its scheduling and gate, merged
 * with the prose of src/tools/toolDocs.ts. A test fails when the checked-in
 * page differs, so the page cannot drift from the tools.
 */
import { FINISH_SUBTASK, finishSubtaskDefinition } from '../src/agent/subtaskTools.js';
import { RUN_SUBTASKS, runSubtasksTool } from '../src/agent/parallelSubtasks/runSubtasks.js';
import { DEFAULT_MAX_PARALLEL_SUBAGENTS } from '../src/agents/agentProfile.js';
import { builtinTools, passesPermissionGate } from '../src/tools/catalogue.js';
import { toolDefinition, type Tool } from '../src/tools/tool.js';
import {
  BUILTIN_TOOL_DOCS,
  COMMON_ERRORS,
  FINISH_SUBTASK_DOC,
  PATH_RULES,
  RUN_SUBTASKS_DOC,
  type ToolDoc,
} from '../src/tools/toolDocs.js';

export const BUILTIN_TOOLS_DOC_PATH = new URL(
  '../../protocol-spec/spec/builtin-tools.md',
  import.meta.url,
);

type Schema = Record<string, unknown>;

/** Section anchor of a tool: `builtin-read-file`. */
export function toolAnchor(name: string): string {
  return `builtin-${name.replace(/_/g, '-')}`;
}

/** Plain text (a schema's description) as Markdown: emphasis and HTML characters escaped outside code spans. */
function plain(text: string): string {
  return text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[\\*_<>[\]]/g, (c) => `\\${c}`)))
    .join('`');
}

/** Text inside a table cell: pipes escaped, line breaks folded. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function range(low: unknown, high: unknown, unit = ''): string {
  const lo = typeof low === 'number' ? low : undefined;
  // zod's int() sets the safe-integer bound: no limit worth showing.
  const hi = typeof high === 'number' && high < Number.MAX_SAFE_INTEGER ? high : undefined;
  if (lo !== undefined && hi !== undefined) return `${lo}–${hi}${unit}`;
  if (lo !== undefined) return `≥ ${lo}${unit}`;
  if (hi !== undefined) return `≤ ${hi}${unit}`;
  return '';
}

/** A property's type in a few words, constraints included. */
function typeOf(schema: Schema): string {
  if (Array.isArray(schema.enum))
    return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' | ');
  const join = (base: string, limits: string): string => (limits ? `${base}, ${limits}` : base);
  switch (schema.type) {
    case 'string':
      if (schema.minLength === 1 && schema.maxLength === undefined) return 'non-empty string';
      return join('string', range(schema.minLength, schema.maxLength, ' characters'));
    case 'integer':
    case 'number':
      return join(schema.type, range(schema.minimum, schema.maximum));
    case 'boolean':
      return 'boolean';
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const of = items.type === 'object' ? 'objects' : `${typeOf(items)}s`;
      return join(`array of ${of}`, range(schema.minItems, schema.maxItems, ' items'));
    }
    case 'object':
      return schema.properties ? 'object' : 'object (any members)';
    default:
      return 'any JSON value';
  }
}

interface ArgumentRow {
  path: string;
  type: string;
  required: boolean;
  default: unknown;
  meaning: string | undefined;
}

/** The arguments, nested objects flattened as `a.b` and array items as `a[].b`. */
function argumentRows(schema: Schema, prefix = ''): ArgumentRow[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows: ArgumentRow[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const path = `${prefix}${name}`;
    rows.push({
      path,
      type: typeOf(property),
      required: required.has(name),
      default: property.default,
      meaning: typeof property.description === 'string' ? property.description : undefined,
    });
    const items = property.items as Schema | undefined;
    if (property.type === 'array' && items?.type === 'object')
      rows.push(...argumentRows(items, `${path}[].`));
    if (property.type === 'object' && property.properties)
      rows.push(...argumentRows(property, `${path}.`));
  }
  return rows;
}

/** Every argument path of a tool (for the test that toolDocs names real arguments). */
export function argumentPaths(tool: Tool): string[] {
  return argumentRows(toolDefinition(tool).inputSchema).map((row) => row.path);
}

function argumentsTable(tool: Tool, doc: ToolDoc): string[] {
  const rows = argumentRows(toolDefinition(tool).inputSchema);
  if (rows.length === 0) return ['No arguments: call it with `{}`.'];
  return [
    '| argument | type | required | default | meaning |',
    '|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| \`${row.path}\` | ${cell(row.type)} | ${row.required ? 'yes' : 'no'} | ${
          row.default === undefined ? '—' : `\`${JSON.stringify(row.default)}\``
        } | ${cell(row.meaning === undefined ? (doc.arguments?.[row.path] ?? '') : plain(row.meaning))} |`,
    ),
  ];
}

/** How the daemon schedules a call among the other calls of one model reply (toolScheduler.ts). */
function scheduling(tool: Tool): string {
  if (tool.lock !== undefined)
    return `one at a time with the other \`${tool.lock}\` calls, in the order emitted; concurrently with the rest`;
  if (tool.parallelSafe) return 'concurrently with the other calls';
  return 'alone, after the other calls of the reply';
}

function bullets(items: readonly string[]): string[] {
  return items.map((item) => `- ${item}`);
}

function section(
  name: string,
  description: string,
  facts: string[],
  args: string[],
  doc: ToolDoc,
  schema: string[],
): string[] {
  return [
    `<a id="${toolAnchor(name)}"></a>`,
    `## \`${name}\``,
    '',
    'What the model is told:',
    '',
    '```text',
    description,
    '```',
    '',
    ...facts,
    '',
    '### Arguments',
    '',
    ...args,
    '',
    '### Result',
    '',
    doc.result,
    '',
    '### Errors',
    '',
    ...(doc.errors.length > 0
      ? bullets(doc.errors)
      : ['None of its own; see [every tool](#builtin-common).']),
    '',
    ...(doc.notes && doc.notes.length > 0 ? ['### Notes', '', ...bullets(doc.notes), ''] : []),
    ...schema,
  ];
}

function schemaBlock(schema: Schema): string[] {
  return [
    '<details><summary>Input schema, as the model is offered it</summary>',
    '',
    '```json',
    JSON.stringify(schema, null, 2),
    '```',
    '',
    '</details>',
    '',
  ];
}

function docOf(name: string): ToolDoc {
  const doc = BUILTIN_TOOL_DOCS[name];
  if (doc === undefined) throw new Error(`src/tools/toolDocs.ts has no entry for ${name}`);
  return doc;
}

export function buildBuiltinToolsDoc(): string {
  const tools = builtinTools();
  const finish = finishSubtaskDefinition({});
  const parallel = runSubtasksTool(DEFAULT_MAX_PARALLEL_SUBAGENTS);
  const yes = (value: boolean): string => (value ? 'yes' : 'no');

  const summary = [
    '| tool | category | parallel-safe | permission gate |',
    '|---|---|---|---|',
    ...tools.map(
      (tool) =>
        `| [\`${tool.name}\`](#${toolAnchor(tool.name)}) | \`${tool.category}\` | ${yes(tool.parallelSafe)} | ${
          passesPermissionGate(tool) ? 'yes' : 'no'
        } |`,
    ),
    `| [\`${FINISH_SUBTASK}\`](#${toolAnchor(FINISH_SUBTASK)}) | — | — | no |`,
    `| [\`${RUN_SUBTASKS}\`](#${toolAnchor(RUN_SUBTASKS)}) | \`${parallel.category}\` | ${yes(parallel.parallelSafe)} | no |`,
  ];

  const lines = [
    '# Built-in tools of the reference daemon',
    '',
    '[Index](README.md)',
    '',
    '<!-- Generated by `npm run generate -w daemon` (daemon/scripts/builtinToolsDoc.ts) from the',
    'tools themselves and the prose in daemon/src/tools/toolDocs.ts. Do not edit: a daemon test',
    'fails when this page differs from what the generator writes. -->',
    '',
    'The tools the reference daemon (`arbor`) offers a model in every session, in the order it',
    'offers them, as [`tools/list`](tools.md#tools-list) without `sessionId` returns them; and',
    '`finish_subtask`, which exists only inside a structured subtask; and `run_subtasks`, offered',
    'only with an agent profile that allows parallel subagents. Names, descriptions,',
    'categories, parallel-safety and input schemas on this page are generated from the tools',
    'themselves. In `editor` sessions the model also gets the client tools the sending client',
    'declared ([client-tools.md](client-tools.md)); other daemons may offer other tools, and',
    '`tools/list` is how a client learns them.',
    '',
    '- <a id="builtin-tools-same-shape"></a>A daemon that offers a tool under one of the names on this page SHOULD give it the arguments, results and category described here, so that scripts and clients written against this page work with it.',
    '',
    '',
    ...summary,
    '',
    'Parallel-safe calls of one model reply run concurrently (up to the `parallel` budget); the',
    'others are serialized as each tool says. Whether a call runs, asks or is blocked follows the',
    "tool's category and the session's mode ([approvals.md](approvals.md#permission-matrix));",
    '`tools/list` with a `sessionId` reports it per tool. Tools without the gate run in every',
    'mode; the calls they lead to are gated.',
    '',
    '<a id="builtin-common"></a>',
    '## Every tool',
    '',
    PATH_RULES,
    '',
    'Error results any call can get, whatever the tool:',
    '',
    ...bullets(COMMON_ERRORS),
    '',
  ];

  for (const tool of tools) {
    const doc = docOf(tool.name);
    const offered = toolDefinition(tool);
    lines.push(
      ...section(
        tool.name,
        offered.description,
        [
          `Category \`${tool.category}\` · parallel-safe: ${yes(tool.parallelSafe)} · runs ${scheduling(tool)} · permission gate: ${
            passesPermissionGate(tool) ? 'yes' : 'no'
          }`,
        ],
        argumentsTable(tool, doc),
        doc,
        schemaBlock(offered.inputSchema),
      ),
    );
  }
  lines.push(
    ...section(
      FINISH_SUBTASK,
      finish.description,
      ['Category — · offered only in structured subtasks · permission gate: no'],
      [
        'Its input schema is the `output_schema` given to `run_subtask`: the arguments are the',
        "subtask's result. It has no fixed arguments.",
      ],
      FINISH_SUBTASK_DOC,
      [],
    ),
    ...section(
      RUN_SUBTASKS,
      toolDefinition(parallel).description,
      [
        `Category \`${parallel.category}\` · offered only with an agent profile that allows parallel subagents · runs ${scheduling(parallel)} · permission gate: no`,
      ],
      argumentsTable(parallel, RUN_SUBTASKS_DOC),
      RUN_SUBTASKS_DOC,
      schemaBlock(toolDefinition(parallel).inputSchema),
    ),
  );
  return (
    lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd() + '\n'
  );
}
