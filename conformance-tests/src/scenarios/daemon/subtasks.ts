/**
 * Subtasks and structured results (subtasks.md), driven through the scripted
 * provider: the root loop's script calls `run_subtask`, and each subtask loop
 * replays the list keyed by its instructions
 * (appendix-scripted-provider.md#script-subtasks).
 *
 * What a loop is offered cannot be seen from outside, but what a call of a
 * tool does can: a tool the loop is not offered is an unknown tool, an error
 * result that runs nothing (the client tools the suite declares make "ran"
 * exact: a `tool/execute`). What the caller gets is the subtask node's status
 * and `resultPreview`; the memory is read through `memory_list` in the
 * caller's next model call (the script cannot name a node id it has not seen,
 * so `memory_read` of `task:<id>` is out of reach).
 *
 * Every subtask's instructions hold a key longer than its root's message, and
 * no root message holds a subtask's key, so that which list a subtask loop uses
 * says which first user message it got (daemon.subtasks.fresh-context).
 */
import { Methods } from '@arbor/protocol';
import type { Recorder } from '../../checks/results.js';
import type { Connection, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import { type DaemonContext, type Initialized, requireDaemonCapability } from './context.js';
import { FINAL_STATUSES, TURN_END_CHECKS, checkTurnEnd } from './turnEnd.js';
import { requireScriptBasics, setScript } from './scriptBasics.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const TURN_TIMEOUT_MS = 20_000;

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

const READ_TOOL = {
  name: 'conformance_subtask_read',
  description: 'A read-category client tool of the conformance suite.',
  inputSchema: { type: 'object', properties: { marker: { type: 'string' } } },
  category: 'read',
};
/** A second read tool: whether a call runs depends on what the loop offers, never on the gate. */
const OTHER_TOOL = {
  name: 'conformance_subtask_other',
  description: 'Another read-category client tool of the conformance suite.',
  inputSchema: { type: 'object', properties: { marker: { type: 'string' } } },
  category: 'read',
};

/** The structured result every structured subtask of the suite returns. */
const SCHEMA = {
  type: 'object',
  properties: { count: { type: 'integer' } },
  required: ['count'],
};
/** Not usable as a JSON Schema in any draft: `type` names no JSON type. */
const UNUSABLE_SCHEMA = { type: 'conformance-no-such-type' };

const call = (name: string, args: JsonObject = {}): JsonObject => ({ name, arguments: args });
const spawn = (title: string, instructions: string, extra: JsonObject = {}): JsonObject =>
  call('run_subtask', { title, instructions, ...extra });
const calls = (...toolCalls: JsonObject[]): JsonObject => ({ toolCalls });
const read = (marker: string): JsonObject => call(READ_TOOL.name, { marker });
const other = (marker: string): JsonObject => call(OTHER_TOOL.name, { marker });

interface Node extends JsonObject {
  id: string;
}

/** One finished turn as one client saw it: its nodes (upserts merged), texts and idle. */
class Turn {
  readonly nodes = new Map<string, Node>();
  readonly texts = new Map<string, string>();
  readonly streamed: string[] = [];

  constructor(
    readonly turnId: string,
    readonly idle: JsonObject,
    events: readonly { method: string; params: JsonObject }[],
  ) {
    for (const e of events) {
      if (e.params.turnId !== turnId) continue;
      if (e.method === Methods.TreeUpdate.method)
        for (const node of (e.params.nodes ?? []) as Node[])
          this.nodes.set(String(node.id), { ...this.nodes.get(String(node.id)), ...node });
      if (e.method === Methods.ChatChunk.method) {
        const id = String(e.params.nodeId);
        this.texts.set(id, (this.texts.get(id) ?? '') + String(e.params.text));
        this.streamed.push(String(e.params.text));
      }
    }
  }

  get root(): Node | undefined {
    return [...this.nodes.values()].find((n) => n.parentId === null);
  }

  children(id: string | undefined): Node[] {
    return [...this.nodes.values()].filter((n) => n.parentId === id);
  }

  /** The node of the run_subtask call with this title (or, without a title, these instructions). */
  subtask(title: string, instructions: string): Node | undefined {
    return [...this.nodes.values()].find(
      (n) =>
        n.name === 'run_subtask' &&
        (n.title === title ||
          (n.title === undefined && String(n.argsPreview ?? '').includes(instructions))),
    );
  }

  /** Whether any text of the turn, on any node, holds `text`. */
  saw(text: string): boolean {
    return (
      this.streamed.join('').includes(text) ||
      [...this.texts.values()].some((t) => t.includes(text))
    );
  }

  text(id: string | undefined): string {
    return id === undefined ? '' : (this.texts.get(id) ?? '');
  }
}

const brief = (node: Node | undefined): string =>
  node
    ? show({
        kind: node.kind,
        status: node.status,
        isError: node.isError,
        resultPreview: node.resultPreview,
        approval: node.approval,
      })
    : 'no such node';

const failed = (node: Node | undefined): boolean =>
  node?.status === 'error' && node.isError !== false;
const succeeded = (node: Node | undefined): boolean =>
  node?.status === 'done' && node.isError !== true;
/** A call that did not succeed; whether its node also reached a final status is tree.all-final-at-end's. */
const refusedCall = (node: Node | undefined): boolean =>
  node !== undefined && node.status !== 'done';
const preview = (node: Node | undefined): string =>
  typeof node?.resultPreview === 'string' ? node.resultPreview : '';
const SCHEMA_NOT_SATISFIED = /"error"\s*:\s*"schema_not_satisfied"/;

/**
 * What a caller got is seen as the node's resultPreview, which tree.md makes
 * optional: a check that fails where a final node has none is skipped instead.
 */
function judge(
  r: Recorder,
  check: string,
  ok: boolean,
  message: string,
  ...seen: (Node | undefined)[]
): void {
  const unseen = seen.filter(
    (n) =>
      n !== undefined &&
      FINAL_STATUSES.has(String(n.status)) &&
      typeof n.resultPreview !== 'string',
  );
  if (!ok && unseen.length > 0)
    r.skip(
      check,
      `the daemon gave no resultPreview (optional, tree.md#node) for ${unseen.map((n) => n!.id).join(', ')}: what the caller got is not observable (${message})`,
    );
  else r.expect(check, ok, message);
}

/** Nothing of a subtask loop ran under `node`: no child node and no text. */
function noLoop(t: Turn, node: Node | undefined): boolean {
  return node !== undefined && t.children(node.id).length === 0 && t.text(node.id) === '';
}

async function runTurn(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
  text: string,
): Promise<Turn> {
  const turnId = await send(ctx, conn, sessionId, text);
  const idle = await waitTurnEnd(ctx, conn, sessionId, turnId, TURN_TIMEOUT_MS);
  const events = sessionEvents(conn, sessionId);
  checkTurnEnd(ctx.recorder, events, turnId);
  return new Turn(turnId, idle, events);
}

/** Skips unless the daemon offers run_subtask (subtasks.md binds the daemons that do). */
async function requireSubtasks(c: Initialized, sessionId: string): Promise<void> {
  if (c.init.capabilities.tools === undefined) return; // judged by the first turn instead
  const listed = await c.conn.request(Methods.ToolsList.method, { sessionId });
  const tools = (listed?.result as JsonObject | undefined)?.tools;
  if (Array.isArray(tools) && !tools.some((t) => (t as JsonObject).name === 'run_subtask'))
    throw new Skip('the daemon offers no run_subtask tool (tools/list)');
}

/** Without tools/list: a run_subtask call that made no subtask node means there is no such tool. */
function requireSubtaskNode(t: Turn): void {
  if (![...t.nodes.values()].some((n) => n.kind === 'subtask'))
    throw new Skip('a run_subtask call made no subtask node: the daemon offers no run_subtask');
}

// ---- daemon-subtasks: a fresh context, the text result, memory, the depth limit --------------

const FRESH_ROOT = 'conformance-subtasks: the caller of a subtask that answers in text';
const FRESH = 'ctask-fresh';
const FRESH_TEXT = 'conformance: the fresh subtask answers.';
const ROOT_TEXT = 'conformance: the caller is done.';
const DEPTH_ROOT = 'ctask-root-depth';
const DEEP = 'ctask-subtask-at-the-depth-limit-spawns';
const TOO_DEEP = 'ctask-subtask-below-the-depth-limit-must-not-run';
const TOO_DEEP_TEXT = 'conformance: a subtask ran below the depth limit.';

export const subtasks: Scenario<DaemonContext> = {
  id: 'daemon-subtasks',
  role: 'daemon',
  title:
    'run_subtask (setScript budgets {depth: 1}): a subtask starts from its instructions alone, its text is the result, stored as task:<id> before the caller goes on; a call at the depth limit runs no subtask',
  checks: [
    'daemon.subtasks.fresh-context',
    'daemon.subtasks.text-result',
    'daemon.subtasks.memory',
    'daemon.subtasks.depth',
    'daemon.testing.set-budgets',
    ...TURN_END_CHECKS,
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect();
    const sessionId = await scriptedSession(ctx, c, {}, 'auto', 'thread');
    await requireSubtasks(c, sessionId);
    await requireScriptBasics(ctx, c.conn, sessionId);
    await setScript(
      ctx,
      c.conn,
      sessionId,
      {
        // The root's key is longer than the subtask's: a subtask loop that got the
        // caller's message first would replay this list instead of its own.
        [FRESH_ROOT]: [
          calls(spawn('Fresh', `${FRESH}: answer in one sentence`)),
          calls(call('memory_list')),
          { text: ROOT_TEXT },
        ],
        [FRESH]: [{ text: FRESH_TEXT }],
        [DEPTH_ROOT]: [calls(spawn('Deep', `${DEEP}: try to go deeper`)), { text: ROOT_TEXT }],
        [DEEP]: [
          calls(spawn('Too deep', `${TOO_DEEP}: this must not run`)),
          { text: 'conformance: the deep subtask is done.' },
        ],
        [TOO_DEEP]: [{ text: TOO_DEEP_TEXT }],
      },
      { depth: 1 },
    );

    const t = await runTurn(ctx, c.conn, sessionId, FRESH_ROOT);
    requireSubtaskNode(t);
    const fresh = t.subtask('Fresh', FRESH);
    const freshText = t.text(fresh?.id);
    r.expect(
      'daemon.subtasks.fresh-context',
      fresh !== undefined && freshText === FRESH_TEXT && t.children(fresh.id).length === 0,
      `a subtask whose instructions match the list [{text: ${JSON.stringify(FRESH_TEXT)}}] streamed ${JSON.stringify(freshText)} and made ${t.children(fresh?.id).length} call(s) (${brief(fresh)}): its loop did not start from its instructions alone`,
    );
    judge(
      r,
      'daemon.subtasks.text-result',
      succeeded(fresh) && freshText !== '' && preview(fresh).trim() === freshText.trim(),
      `a subtask without output_schema answered ${JSON.stringify(freshText)}; the run_subtask node: ${brief(fresh)} (expected status done, no isError, resultPreview the subtask's text)`,
      fresh,
    );
    const list = t.children(t.root?.id).find((n) => n.name === 'memory_list' && n.kind === 'tool');
    judge(
      r,
      'daemon.subtasks.memory',
      fresh !== undefined && succeeded(list) && preview(list).includes(`task:${fresh.id}`),
      `memory_list in the caller's next model call after subtask ${String(fresh?.id)} ended: ${brief(list)} (expected a key task:${String(fresh?.id)})`,
      list,
    );

    const deep = await runTurn(ctx, c.conn, sessionId, DEPTH_ROOT);
    const outer = deep.subtask('Deep', DEEP);
    const inner = deep.children(outer?.id).find((n) => n.name === 'run_subtask');
    r.expect(
      'daemon.subtasks.depth',
      succeeded(outer) && failed(inner) && noLoop(deep, inner) && !deep.saw(TOO_DEEP_TEXT),
      `with budgets {depth: 1}, a subtask (${brief(outer)}) called run_subtask at the depth limit: ${brief(inner)}, ${deep.children(inner?.id).length} call(s) and text ${JSON.stringify(deep.text(inner?.id))} under it${deep.saw(TOO_DEEP_TEXT) ? ', and the nested list was replayed' : ''} (expected an error result and no subtask loop)`,
    );
  },
};

// ---- daemon-subtasks-structured: output_schema and finish_subtask -----------------------------

const STRUCTURED_ROOT = 'ctask-root-structured';
const STRUCTURED = 'ctask-structured-subtask-counts-files';
const QUICK = 'ctask-quick-structured-subtask-answers';
const TEXT_FINISH = 'ctask-text-subtask-calls-finish-subtask';
const WENT_ON = 'ctask-went-on';
const RETRIES_ROOT = 'ctask-root-retries';
const RETRIES = 'ctask-structured-subtask-never-validates';
const NO_FINISH_ROOT = 'ctask-root-nofinish';
const NO_FINISH = 'ctask-structured-subtask-answers-in-text';
const UNUSABLE = 'ctask-subtask-with-an-unusable-schema';
const UNUSABLE_TEXT = 'conformance: a subtask ran with an unusable schema.';

const finishes = (t: Turn, parent: Node | undefined): Node[] =>
  t.children(parent?.id).filter((n) => n.name === 'finish_subtask');

/** The result the caller got, parsed, or undefined. */
function payloadOf(node: Node | undefined): unknown {
  try {
    return JSON.parse(preview(node));
  } catch {
    return undefined;
  }
}

export const structuredSubtasks: Scenario<DaemonContext> = {
  id: 'daemon-subtasks-structured',
  role: 'daemon',
  title:
    'run_subtask with output_schema: finish_subtask offered only there and not gated, payloads validated with 3 retries, the accepted payload as JSON text, an answer without finish_subtask and an unusable schema',
  checks: [
    'daemon.subtasks.finish-offered',
    'daemon.subtasks.structured-result',
    'daemon.subtasks.finish-validates',
    'daemon.subtasks.retries',
    'daemon.subtasks.answer-without-finish',
    'daemon.subtasks.invalid-schema',
    'daemon.subtasks.finish-not-gated',
    'daemon.subtasks.memory',
    'daemon.testing.set-budgets',
    ...TURN_END_CHECKS,
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect();
    const structured = { output_schema: SCHEMA };
    const sessionId = await scriptedSession(ctx, c, {}, 'auto', 'thread');
    await requireSubtasks(c, sessionId);
    await requireScriptBasics(ctx, c.conn, sessionId);
    await setScript(ctx, c.conn, sessionId, {
      [STRUCTURED_ROOT]: [
        calls(
          spawn('Structured', `${STRUCTURED}: count them`, structured),
          spawn('Quick', `${QUICK}: count at once`, structured),
          spawn('Text finish', `${TEXT_FINISH}: answer in text`),
        ),
        calls(call('memory_list'), call('finish_subtask', { count: 7 })),
        { text: 'conformance: the caller is done.' },
      ],
      [STRUCTURED]: [
        calls(call('finish_subtask', {})),
        calls(
          call('finish_subtask', { count: 3 }),
          call('memory_write', { key: 'ctask-same-reply', value: 'ran' }),
        ),
        {
          text: `conformance: ${WENT_ON}`,
          toolCalls: [call('memory_write', { key: WENT_ON, value: 'ran' })],
        },
        { text: `conformance: ${WENT_ON}` },
      ],
      [QUICK]: [calls(call('finish_subtask', { count: 5 }))],
      [TEXT_FINISH]: [
        calls(call('finish_subtask', { count: 1 })),
        { text: 'conformance: the text subtask is done.' },
      ],
      [RETRIES_ROOT]: [
        calls(spawn('Retries', `${RETRIES}: count them`, structured)),
        { text: 'conformance: the caller is done.' },
      ],
      [RETRIES]: [
        calls(call('finish_subtask', { count: 'one' })),
        calls(call('finish_subtask', { count: 'two' })),
        calls(call('finish_subtask', {})),
        calls(call('finish_subtask', { count: 1.5 })),
        calls(call('finish_subtask', { count: 5 })),
        { text: 'conformance: too many retries.' },
      ],
      [NO_FINISH_ROOT]: [
        calls(
          spawn('No finish', `${NO_FINISH}: count them`, structured),
          spawn('Unusable', `${UNUSABLE}: count them`, { output_schema: UNUSABLE_SCHEMA }),
        ),
        { text: 'conformance: the caller is done.' },
      ],
      [NO_FINISH]: [
        { text: 'conformance: there are 3, no finish_subtask.' },
        calls(call('finish_subtask', { count: 3 })),
        { text: 'conformance: the subtask went on.' },
      ],
      [UNUSABLE]: [{ text: UNUSABLE_TEXT }],
    });

    const t = await runTurn(ctx, c.conn, sessionId, STRUCTURED_ROOT);
    requireSubtaskNode(t);
    const main = t.subtask('Structured', STRUCTURED);
    const quick = t.subtask('Quick', QUICK);
    const textual = t.subtask('Text finish', TEXT_FINISH);
    const [rejected, accepted] = finishes(t, main);
    const inRoot = finishes(t, t.root);
    const inText = finishes(t, textual);
    const quickFinish = finishes(t, quick)[0];
    r.expect(
      'daemon.subtasks.finish-offered',
      succeeded(accepted) &&
        succeeded(quickFinish) &&
        inRoot.length === 1 &&
        inRoot.every(refusedCall) &&
        inText.length === 1 &&
        inText.every(refusedCall),
      `finish_subtask with a valid payload in a structured subtask, on its 2nd model call: ${brief(accepted)}, on its 1st: ${brief(quickFinish)} (expected accepted); called in the root loop: ${inRoot.map(brief).join(', ') || 'no node'}, in a subtask without output_schema: ${inText.map(brief).join(', ') || 'no node'} (expected unknown-tool error results)`,
    );
    const sameReply = t
      .children(main?.id)
      .find(
        (n) =>
          n.name === 'memory_write' && String(n.argsPreview ?? '').includes('ctask-same-reply'),
      );
    const wentOn =
      t.saw(WENT_ON) ||
      t.children(main?.id).some((n) => String(n.argsPreview ?? '').includes(WENT_ON));
    const got = payloadOf(main);
    const quickGot = payloadOf(quick);
    judge(
      r,
      'daemon.subtasks.structured-result',
      succeeded(main) &&
        show(got) === show({ count: 3 }) &&
        succeeded(quick) &&
        show(quickGot) === show({ count: 5 }) &&
        succeeded(sameReply) &&
        !wentOn,
      `payloads {"count":3} (with a memory_write in the same reply) and {"count":5} were accepted; the callers got ${brief(main)} and ${brief(quick)} (expected done with the payload as JSON text); the other call of that reply: ${brief(sameReply)}${wentOn ? '; the subtask loop went on after its payload was accepted' : ''}`,
      main,
      quick,
    );
    judge(
      r,
      'daemon.subtasks.finish-validates',
      failed(rejected) &&
        preview(rejected).includes('count') &&
        /\b3\b|three/i.test(preview(rejected)) &&
        accepted !== undefined,
      `finish_subtask with {} against an output_schema requiring "count": ${brief(rejected)} (expected an error result naming the validation error on count and the 3 retries left)${accepted ? '' : '; the subtask loop did not go on to its next model call'}`,
      rejected,
    );
    const list = t.children(t.root?.id).find((n) => n.name === 'memory_list');
    const keys = [main, quick, textual].map((n) => `task:${String(n?.id)}`);
    judge(
      r,
      'daemon.subtasks.memory',
      [main, quick, textual].every((n) => n !== undefined) &&
        succeeded(list) &&
        keys.every((key) => preview(list).includes(key)),
      `memory_list in the caller's next model call after three subtasks ended: ${brief(list)} (expected the keys ${keys.join(', ')})`,
      list,
    );

    const retries = await runTurn(ctx, c.conn, sessionId, RETRIES_ROOT);
    const giving = retries.subtask('Retries', RETRIES);
    const tries = finishes(retries, giving);
    judge(
      r,
      'daemon.subtasks.retries',
      failed(giving) && SCHEMA_NOT_SATISFIED.test(preview(giving)) && tries.length === 4,
      `a structured subtask sending only invalid payloads (a valid one 5th): ${tries.length} finish_subtask call(s) ran (expected 4: the first and 3 retries), the caller got ${brief(giving)} (expected an error result with "error":"schema_not_satisfied")`,
      giving,
    );

    const end = await runTurn(ctx, c.conn, sessionId, NO_FINISH_ROOT);
    const noFinish = end.subtask('No finish', NO_FINISH);
    judge(
      r,
      'daemon.subtasks.answer-without-finish',
      failed(noFinish) &&
        SCHEMA_NOT_SATISFIED.test(preview(noFinish)) &&
        preview(noFinish).includes('the subtask ended without calling finish_subtask') &&
        finishes(end, noFinish).length === 0,
      `a structured subtask whose model answered without a tool call: ${brief(noFinish)}, then ${finishes(end, noFinish).length} finish_subtask call(s) (expected schema_not_satisfied, "the subtask ended without calling finish_subtask", at once)`,
      noFinish,
    );
    const unusable = end.subtask('Unusable', UNUSABLE);
    judge(
      r,
      'daemon.subtasks.invalid-schema',
      failed(unusable) &&
        /schema/i.test(preview(unusable)) &&
        noLoop(end, unusable) &&
        !end.saw(UNUSABLE_TEXT),
      `run_subtask with output_schema ${show(UNUSABLE_SCHEMA)}: ${brief(unusable)}, ${end.children(unusable?.id).length} call(s) and text ${JSON.stringify(end.text(unusable?.id))} under it (expected an error result about the schema, and no subtask loop)`,
      unusable,
    );

    const all = [...finishes(t, main), ...finishes(t, quick), ...tries];
    const gated = all.filter(
      (n) => n.approval !== undefined || n.status === 'denied' || n.status === 'blocked',
    );
    r.expect(
      'daemon.subtasks.finish-not-gated',
      all.length > 0 && gated.length === 0 && all.every((n) => n.kind === 'tool'),
      `finish_subtask nodes in structured subtasks: ${gated.map(brief).join(', ') || all.map(brief).join(', ')} (expected tool nodes without an approval)`,
    );
  },
};

// ---- daemon-subtasks-tools: tools, and the last call (client tools) ---------------------------

const SUBSET_ROOT = 'ctask-root-subset';
const SUBSET = 'ctask-subtask-restricted-to-the-read-tool';
const UNKNOWN = 'ctask-subtask-naming-a-tool-nobody-has';
const UNKNOWN_TEXT = 'conformance: a subtask ran with an unknown tool.';
const EVERY = 'ctask-subtask-with-every-tool-of-its-caller';
const LAST_ROOT = 'ctask-root-lastcall';
const LAST = 'ctask-structured-subtask-finishes-on-its-last-call';
const NEVER = 'ctask-structured-subtask-never-finishes-in-time';
const ITERATIONS = 3;

export const subtaskTools: Scenario<DaemonContext> = {
  id: 'daemon-subtasks-tools',
  role: 'daemon',
  title: `run_subtask's tools (client tools observe what ran), and a structured subtask's last model call under setScript budgets {iterations: ${ITERATIONS}}`,
  checks: [
    'daemon.subtasks.tools-subset',
    'daemon.subtasks.finish-last-call',
    'daemon.testing.set-budgets',
    ...TURN_END_CHECKS,
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect('caller', {
      capabilities: { approvals: {}, clientTools: {} },
      tools: [READ_TOOL, OTHER_TOOL],
    });
    requireDaemonCapability(c.init, 'clientTools');
    const executed: string[] = [];
    c.conn.handle(Methods.ToolExecute.method, (params) => {
      const args = ((params as JsonObject).args ?? {}) as JsonObject;
      executed.push(String(args.marker));
      return { content: `conformance: ran ${String(args.marker)}` };
    });
    const structured = { output_schema: SCHEMA };
    const sessionId = await scriptedSession(ctx, c, {}, 'auto', 'editor');
    await requireSubtasks(c, sessionId);
    await requireScriptBasics(ctx, c.conn, sessionId);
    await setScript(
      ctx,
      c.conn,
      sessionId,
      {
        [SUBSET_ROOT]: [
          calls(
            spawn('Subset', `${SUBSET}: read`, { tools: [READ_TOOL.name] }),
            spawn('Unknown tools', `${UNKNOWN}: read`, { tools: ['conformance_no_such_tool'] }),
            spawn('Every tool', `${EVERY}: write`),
          ),
          { text: 'conformance: the caller is done.' },
        ],
        [SUBSET]: [
          calls(
            other('subset-other'),
            read('subset-read'),
            call('memory_write', { key: 'ctask-subset', value: 'ran' }),
          ),
          { text: 'conformance: the restricted subtask is done.' },
        ],
        [UNKNOWN]: [{ text: UNKNOWN_TEXT }],
        [EVERY]: [calls(other('every-other')), { text: 'conformance: done.' }],
        [LAST_ROOT]: [
          calls(
            spawn('Last call', `${LAST}: count them`, structured),
            spawn('Never', `${NEVER}: count them`, structured),
          ),
          { text: 'conformance: the caller is done.' },
        ],
        [LAST]: [
          calls(read('last-1')),
          calls(read('last-2')),
          calls(read('last-3'), call('finish_subtask', { count: 3 })),
          { text: 'conformance: the subtask went on.' },
        ],
        [NEVER]: [
          calls(read('never-1')),
          calls(read('never-2')),
          calls(read('never-3')),
          calls(call('finish_subtask', { count: 3 })),
        ],
      },
      { iterations: ITERATIONS },
    );

    const t = await runTurn(ctx, c.conn, sessionId, SUBSET_ROOT);
    requireSubtaskNode(t);
    const subset = t.subtask('Subset', SUBSET);
    const byName = (parent: Node | undefined, name: string): Node | undefined =>
      t.children(parent?.id).find((n) => n.name === name);
    const refused = byName(subset, OTHER_TOOL.name);
    const memory = byName(subset, 'memory_write');
    const unknown = t.subtask('Unknown tools', UNKNOWN);
    const problems = [
      !executed.includes('subset-read') && `the named ${READ_TOOL.name} did not run`,
      executed.includes('subset-other') && `${OTHER_TOOL.name}, not named, ran (tool/execute)`,
      !refusedCall(refused) && `the call of ${OTHER_TOOL.name}, not named: ${brief(refused)}`,
      !succeeded(memory) && `memory_write (memory tools are always offered): ${brief(memory)}`,
      !(failed(unknown) && noLoop(t, unknown) && !t.saw(UNKNOWN_TEXT)) &&
        `with tools ["conformance_no_such_tool"]: ${brief(unknown)}, ${t.children(unknown?.id).length} call(s), text ${JSON.stringify(t.text(unknown?.id))} (expected an error result, no subtask loop)`,
      !executed.includes('every-other') &&
        `a subtask without tools did not run its caller's ${OTHER_TOOL.name}`,
    ].filter(Boolean);
    r.expect(
      'daemon.subtasks.tools-subset',
      subset !== undefined && problems.length === 0,
      `a subtask with tools [${READ_TOOL.name}]: ${problems.join('; ') || brief(subset)}`,
    );

    const last = await runTurn(ctx, c.conn, sessionId, LAST_ROOT);
    const done = last.subtask('Last call', LAST);
    const never = last.subtask('Never', NEVER);
    const refusedLast = (parent: Node | undefined): Node | undefined =>
      last
        .children(parent?.id)
        .find((n) => n.name === READ_TOOL.name && String(n.argsPreview ?? '').includes('-3'));
    const lastProblems = [
      !['last-1', 'last-2', 'never-1', 'never-2'].every((m) => executed.includes(m)) &&
        `the calls of ${READ_TOOL.name} before the last model call did not all run (ran: ${executed.join(', ')})`,
      (executed.includes('last-3') || executed.includes('never-3')) &&
        `a ${READ_TOOL.name} call of the last model call ran`,
      !(failed(refusedLast(done)) && failed(refusedLast(never))) &&
        `the other calls of the last model call: ${brief(refusedLast(done))}, ${brief(refusedLast(never))} (expected error results)`,
      !(succeeded(done) && show(payloadOf(done)) === show({ count: 3 })) &&
        `finish_subtask {"count":3} on the last call: the caller got ${brief(done)}`,
      !(failed(never) && SCHEMA_NOT_SATISFIED.test(preview(never))) &&
        `no finish_subtask by the last call: the caller got ${brief(never)} (expected schema_not_satisfied)`,
      finishes(last, never).length > 0 && 'the subtask made a model call after its last one',
    ].filter(Boolean);
    judge(
      r,
      'daemon.subtasks.finish-last-call',
      lastProblems.length === 0,
      `with budgets {iterations: ${ITERATIONS}}: ${lastProblems.join('; ')}`,
      done,
      never,
    );
  },
};
