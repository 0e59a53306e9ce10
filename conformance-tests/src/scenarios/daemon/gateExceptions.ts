/**
 * The permission gate beyond the mode × category table (approvals.md): one
 * gate for the calls of subtasks too, the always-ask tools and writes to
 * protected paths, which ask even in `auto` mode.
 *
 * A subtask's call is observed with a `write`-category client tool (its
 * `tool/execute` is "it ran"). Which of a daemon's own tools are always-ask
 * is the user's configuration, which the suite learns from `tools/list`: a
 * daemon tool whose permission in an `auto` session is `ask` is one
 * (tools.md#tools-list-permission); without one the check is skipped. A
 * protected-path write needs a daemon tool of category `write` taking a
 * `path`. The suite denies every approval it is asked, so no call of a
 * daemon's own tool runs because of it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import { finalView, script, show } from './approvals.js';
import { type DaemonContext, type Initialized, notes, requireDaemonCapability } from './context.js';
import { scriptedSession, send, waitTurnEnd } from './turns.js';

const CAPS = { approvals: {}, clientTools: {} };
const WRITE_TOOL = {
  name: 'conformance_gate_write',
  description: 'A write-category client tool of the conformance suite; it writes nothing.',
  inputSchema: { type: 'object', properties: { marker: { type: 'string' } } },
  category: 'write',
};

interface Gated extends Initialized {
  /** toolCallIds of the tool/approvalRequest this client got (each denied). */
  asked: string[];
  /** toolCallIds of the tool/execute it got. */
  executed: string[];
}

/** A controller-to-be that denies every approval and records what it was asked and ran. */
async function denier(ctx: DaemonContext, label: string): Promise<Gated> {
  const c = await ctx.connect(label, { capabilities: CAPS, tools: [WRITE_TOOL] });
  requireDaemonCapability(c.init, 'testing.scriptedProvider');
  const asked: string[] = [];
  const executed: string[] = [];
  c.conn.handle(Methods.ApprovalRequest.method, (params) => {
    asked.push(String((params as JsonObject).toolCallId));
    return { decision: 'deny' };
  });
  c.conn.handle(Methods.ToolExecute.method, (params) => {
    executed.push(String((params as JsonObject).toolCallId));
    return { content: 'conformance: ran' };
  });
  return { ...c, asked, executed };
}

/** Runs one turn to its end; the final view of its tree. */
async function turn(
  ctx: DaemonContext,
  c: Gated,
  sessionId: string,
  text: string,
): Promise<Map<string, JsonObject>> {
  const turnId = await send(ctx, c.conn, sessionId, text);
  await waitTurnEnd(ctx, c.conn, sessionId, turnId, 20_000);
  return finalView(notes(c.conn, sessionId), turnId);
}

/** The tool node whose arguments name `marker` (argsPreview), if the daemon shows it. */
const nodeNaming = (view: Map<string, JsonObject>, marker: string): JsonObject | undefined =>
  [...view.values()].find((n) => n.kind === 'tool' && String(n.argsPreview ?? '').includes(marker));

const brief = (node: JsonObject | undefined): string =>
  node ? show({ status: node.status, approval: node.approval, depth: node.depth }) : 'no node';

// ---- approvals-one-gate: a subtask's calls pass the gate with the session's mode -------------

const SUB_ROOT = 'cgate-root-spawns';
const SUB_LOOP = 'cgate-subtask-calls-the-write-tool';

export const subtaskGate: Scenario<DaemonContext> = {
  id: 'daemon-approval-subtask-gate',
  role: 'daemon',
  title:
    "a subtask's write call passes the same gate as the session's: blocked in plan mode, asked in default mode",
  checks: ['daemon.approvals.one-gate'],
  async run(ctx) {
    const c = await denier(ctx, 'controller');
    requireDaemonCapability(c.init, 'clientTools');
    const seen: Record<string, { asked: boolean; ran: boolean; node?: JsonObject }> = {};
    let spawned = false;
    for (const mode of ['plan', 'default']) {
      const callId = `cgate-sub-${mode}`;
      const sessionId = await scriptedSession(
        ctx,
        c,
        {
          [SUB_ROOT]: [
            {
              toolCalls: [
                {
                  id: `cgate-spawn-${mode}`,
                  name: 'run_subtask',
                  arguments: { title: 'Gated', instructions: `${SUB_LOOP}: ${mode}` },
                },
              ],
            },
            { text: 'conformance: the caller is done.' },
          ],
          [SUB_LOOP]: [
            {
              toolCalls: [{ id: callId, name: WRITE_TOOL.name, arguments: { marker: callId } }],
            },
            { text: 'conformance: the subtask is done.' },
          ],
        },
        mode,
        'editor',
      );
      if (c.init.capabilities.tools !== undefined) {
        const listed = await c.conn.request(Methods.ToolsList.method, { sessionId });
        const tools = (listed?.result as JsonObject | undefined)?.tools;
        if (Array.isArray(tools) && !tools.some((t) => (t as JsonObject).name === 'run_subtask'))
          throw new Skip('the daemon offers no run_subtask tool (tools/list)');
      }
      const view = await turn(ctx, c, sessionId, `${SUB_ROOT}: ${mode}`);
      if ([...view.values()].some((n) => n.kind === 'subtask')) spawned = true;
      seen[mode] = {
        asked: c.asked.includes(callId),
        ran: c.executed.includes(callId),
        node: nodeNaming(view, callId),
      };
    }
    if (!spawned)
      throw new Skip('a run_subtask call made no subtask node: the daemon offers no run_subtask');
    const plan = seen.plan!;
    const dflt = seen.default!;
    const problems = [
      (plan.ran || plan.asked || (plan.node && plan.node.status !== 'blocked')) &&
        `in plan mode the subtask's write call was ${plan.ran ? 'run' : plan.asked ? 'asked' : 'not run'}, node ${brief(plan.node)} (expected blocked, not asked, not run)`,
      (!dflt.asked || dflt.ran) &&
        `in default mode the subtask's write call was ${dflt.asked ? 'asked' : 'not asked'} and ${dflt.ran ? 'run although denied' : 'not run'}, node ${brief(dflt.node)} (expected asked, and not run once denied)`,
    ].filter(Boolean);
    ctx.recorder.expect('daemon.approvals.one-gate', problems.length === 0, problems.join('; '));
  },
};

// ---- always-ask tools and protected paths: daemon tools, found by tools/list -----------------

/** Arguments that satisfy `schema`'s required properties, as far as their declared types go. */
function argsFor(schema: JsonObject | undefined, given: JsonObject = {}): JsonObject {
  const props = (schema?.properties ?? {}) as Record<string, JsonObject>;
  const args: JsonObject = { ...given };
  for (const name of (schema?.required ?? []) as string[]) {
    if (name in args) continue;
    const p = props[name] ?? {};
    const type = [p.type ?? 'string'].flat()[0];
    if (Array.isArray(p.enum) && p.enum.length > 0) args[name] = p.enum[0];
    else if (type === 'integer' || type === 'number')
      args[name] = typeof p.minimum === 'number' ? p.minimum : 1;
    else if (type === 'boolean') args[name] = false;
    else if (type === 'array') args[name] = [];
    else if (type === 'object') args[name] = {};
    else args[name] = 'conformance'.padEnd(Number(p.minLength ?? 0), '-');
  }
  return args;
}

/** The session's tools/list, or a skip when the daemon has none. */
async function toolsOf(c: Initialized, sessionId: string): Promise<JsonObject[]> {
  requireDaemonCapability(c.init, 'tools');
  const listed = await c.conn.request(Methods.ToolsList.method, { sessionId });
  const tools = (listed?.result as JsonObject | undefined)?.tools;
  if (!Array.isArray(tools)) throw new Skip(`tools/list for a session got no tools`);
  return tools as JsonObject[];
}

export const alwaysAsk: Scenario<DaemonContext> = {
  id: 'daemon-approval-always-ask',
  role: 'daemon',
  title:
    'a daemon tool tools/list says asks in auto mode (always-ask) is asked on every call in auto and default mode, and in plan mode blocked unless it reads',
  checks: ['daemon.approvals.always-ask'],
  async run(ctx) {
    const c = await denier(ctx, 'controller');
    const probe = await scriptedSession(ctx, c, {}, 'auto', 'thread');
    const tool = (await toolsOf(c, probe)).find(
      (t) => t.origin !== 'client' && t.permission === 'ask',
    );
    if (!tool)
      throw new Skip(
        "no daemon tool of an auto session's tools/list has permission ask: the daemon has no always-ask tool configured",
      );
    const name = String(tool.name);
    const args = argsFor(tool.inputSchema as JsonObject | undefined);
    const read = tool.category === 'read';
    const problems: string[] = [];
    for (const mode of ['auto', 'default', 'plan']) {
      const ids = mode === 'auto' ? ['calways-auto-1', 'calways-auto-2'] : [`calways-${mode}`];
      const sessionId = await scriptedSession(
        ctx,
        c,
        script(...ids.map((id) => ({ toolCalls: [{ id, name, arguments: args }] })), {
          text: `conformance: after the ${mode} calls.`,
        }),
        mode,
        'thread',
      );
      const view = await turn(ctx, c, sessionId, `conformance: call ${name} in ${mode} mode`);
      const nodes = [...view.values()].filter((n) => n.kind === 'tool' && n.name === name);
      const blocked = nodes.length > 0 && nodes.every((n) => n.status === 'blocked');
      for (const id of ids) {
        const asked = c.asked.includes(id);
        if (mode === 'plan' && !read && (asked || !blocked))
          problems.push(
            `in plan mode a call of ${name} (${String(tool.category)}) was ${asked ? 'asked' : 'not asked'}, nodes ${show(nodes.map((n) => n.status))} (expected blocked)`,
          );
        else if ((mode !== 'plan' || read) && !asked)
          problems.push(`in ${mode} mode call ${id} of ${name} was not asked`);
      }
    }
    ctx.recorder.expect(
      'daemon.approvals.always-ask',
      problems.length === 0,
      `${name} (${String(tool.category)}), which tools/list gives permission ask in auto mode: ${problems.join('; ')}`,
    );
  },
};

const PROTECTED = '.git/conformance-protected.txt';

export const protectedPathWrite: Scenario<DaemonContext> = {
  id: 'daemon-approval-protected-path',
  role: 'daemon',
  title: "a daemon write tool's call into the workspace's .git/ is asked in auto mode",
  checks: ['daemon.approvals.protected-paths'],
  async run(ctx) {
    const c = await denier(ctx, 'controller');
    mkdirSync(path.join(ctx.workspace, '.git'), { recursive: true });
    const probe = await scriptedSession(ctx, c, {}, 'auto', 'thread');
    const writers = (await toolsOf(c, probe)).filter(
      (t) =>
        t.origin !== 'client' &&
        t.category === 'write' &&
        (((t.inputSchema as JsonObject | undefined)?.properties ?? {}) as JsonObject).path !==
          undefined,
    );
    const tool = writers.find((t) => t.name === 'write_file') ?? writers[0];
    if (!tool) throw new Skip("the session's tools/list has no daemon write tool taking a path");
    const name = String(tool.name);
    const args = argsFor(tool.inputSchema as JsonObject | undefined, {
      path: PROTECTED,
      content: 'conformance: this must not be written unasked.\n',
    });
    const sessionId = await scriptedSession(
      ctx,
      c,
      script(
        { toolCalls: [{ id: 'cprotected-auto', name, arguments: args }] },
        { text: 'conformance: after the protected write.' },
      ),
      'auto',
      'thread',
    );
    const view = await turn(ctx, c, sessionId, `conformance: ${name} into .git/`);
    const node = [...view.values()].find((n) => n.kind === 'tool' && n.name === name);
    const asked = c.asked.includes('cprotected-auto');
    const written = existsSync(path.join(ctx.workspace, PROTECTED));
    // A deny rule of the user's refuses the call before any question (approvals.md#rules-deny-wins).
    if (!asked && !written && (node?.rule as JsonObject | undefined)?.effect === 'deny')
      throw new Skip(`a deny rule of the daemon's decided ${name}'s call: ${show(node?.rule)}`);
    ctx.recorder.expect(
      'daemon.approvals.protected-paths',
      asked && !written,
      `in auto mode ${name} ${show(args)} was ${asked ? 'asked' : 'not asked'}${written ? ` and ${PROTECTED} was written` : ''}, node ${brief(node)} (expected asked, and not written once denied)`,
    );
  },
};
