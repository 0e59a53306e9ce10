/**
 * Which client runs a client tool (client-tools.md#which-client,
 * #client-tools-disconnect, #declaration): the tools of a turn are those of
 * the client that sent its chat/send, a client that leaves takes its tools
 * with it, and a declared tool never takes a built-in tool's place.
 *
 * "The call ran on that client" is observed exactly, as the `tool/execute`
 * each of the suite's connections receives. Every scenario runs in `auto`
 * mode with `read`-category tools, so no approval is involved; the
 * two-client ones need a socket.
 */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort, Skip } from '../scenario.js';
import { attach, finalView, script, show } from './approvals.js';
import {
  type DaemonContext,
  type Initialized,
  notes,
  requireDaemonCapability,
  requireSocket,
  sleep,
} from './context.js';
import { scriptedSession, send, waitTurnEnd } from './turns.js';

const CAPS = { approvals: {}, clientTools: {} };
const SCHEMA = { type: 'object', properties: { marker: { type: 'string' } } };

const readTool = (name: string, what: string): JsonObject => ({
  name,
  description: `A read-category client tool of the conformance suite: ${what}.`,
  inputSchema: SCHEMA,
  category: 'read',
});

const call = (id: string, name: string): JsonObject => ({
  id,
  name,
  arguments: { marker: id },
});

interface Owner extends Initialized {
  /** The tool/execute params this connection received. */
  executed: JsonObject[];
}

/** Connects with client.clientTools and `tools`; records every tool/execute and answers it. */
async function owner(
  ctx: DaemonContext,
  label: string,
  tools: JsonObject[],
  answer: (params: JsonObject) => unknown = (params) => ({
    content: `conformance: ${label} ran ${String(params.toolCallId)}`,
  }),
): Promise<Owner> {
  const c = await ctx.connect(label, { capabilities: CAPS, tools });
  requireDaemonCapability(c.init, 'testing.scriptedProvider');
  requireDaemonCapability(c.init, 'clientTools');
  const executed: JsonObject[] = [];
  c.conn.handle(Methods.ToolExecute.method, (params) => {
    executed.push(params as JsonObject);
    return answer(params as JsonObject);
  });
  return { ...c, executed };
}

const ids = (executed: JsonObject[], turnId: string): string[] =>
  executed.filter((e) => e.turnId === turnId).map((e) => String(e.toolCallId));

const SHARED = readTool('conformance_sender_read', 'both clients declare it');
const FIRST_ONLY = readTool('conformance_first_only', 'only the first client declares it');

export const clientToolSender: Scenario<DaemonContext> = {
  id: 'daemon-client-tool-sender',
  role: 'daemon',
  title:
    'two controllers declaring tools: each turn offers and runs the tools of the client that sent its chat/send, on that client',
  checks: ['daemon.client-tools.sender-tools'],
  async run(ctx) {
    requireSocket(ctx.target, 'two clients of one session need a socket');
    const first = await owner(ctx, 'first', [SHARED, FIRST_ONLY]);
    const sessionId = await scriptedSession(
      ctx,
      first,
      {
        'csender-by-second': [
          {
            toolCalls: [
              call('csender-second-shared', SHARED.name as string),
              call('csender-second-first-only', FIRST_ONLY.name as string),
            ],
          },
          { text: "conformance: the second client's turn is done." },
        ],
        'csender-by-first': [
          { toolCalls: [call('csender-first-shared', SHARED.name as string)] },
          { text: "conformance: the first client's turn is done." },
        ],
      },
      'auto',
      'editor',
    );
    const second = await owner(ctx, 'second', [SHARED]);
    await attach(ctx, second, sessionId, 'controller');

    const bySecond = await send(ctx, second.conn, sessionId, 'csender-by-second: call the tools');
    await waitTurnEnd(ctx, second.conn, sessionId, bySecond);
    const byFirst = await send(ctx, first.conn, sessionId, 'csender-by-first: call the tool');
    await waitTurnEnd(ctx, first.conn, sessionId, byFirst);

    const problems = [
      ids(first.executed, bySecond).length > 0 &&
        `in the turn the second client sent, the first client got tool/execute for ${ids(first.executed, bySecond).join(', ')}`,
      !ids(second.executed, bySecond).includes('csender-second-shared') &&
        `in the turn the second client sent, its declared ${String(SHARED.name)} did not run on it (tool/execute to it: ${ids(second.executed, bySecond).join(', ') || 'none'})`,
      [...first.executed, ...second.executed].some(
        (e) => e.toolCallId === 'csender-second-first-only',
      ) &&
        `in the turn the second client sent, ${String(FIRST_ONLY.name)}, which only the first client declared, ran`,
      ids(second.executed, byFirst).length > 0 &&
        `in the turn the first client sent, the second client got tool/execute for ${ids(second.executed, byFirst).join(', ')}`,
      !ids(first.executed, byFirst).includes('csender-first-shared') &&
        `in the turn the first client sent, its declared ${String(SHARED.name)} did not run on it`,
    ].filter(Boolean);
    ctx.recorder.expect(
      'daemon.client-tools.sender-tools',
      problems.length === 0,
      problems.join('; '),
    );
  },
};

const GONE = readTool('conformance_gone_read', 'its client disconnects while it runs');
const WENT_ON = 'conformance: the turn went on after the client left.';

export const clientToolDisconnect: Scenario<DaemonContext> = {
  id: 'daemon-client-tool-disconnect',
  role: 'daemon',
  title:
    'the client running a tool/execute disconnects: the call ends error and the turn goes on; a later call of its tools fails without a request, even to another client that declared the tool',
  checks: ['daemon.client-tools.disconnect-error', 'daemon.client-tools.unavailable'],
  async run(ctx) {
    requireSocket(ctx.target, 'a client that leaves while another watches needs a socket');
    const r = ctx.recorder;
    // Never answers: it closes its connection while the request is outstanding.
    const provider = await owner(ctx, 'provider', [GONE], () => {
      setTimeout(() => provider.conn.close(), 100);
      return new Promise(() => undefined);
    });
    const sessionId = await scriptedSession(
      ctx,
      provider,
      script(
        { toolCalls: [call('cgone-first', GONE.name as string)] },
        { toolCalls: [call('cgone-later', GONE.name as string)] },
        { text: WENT_ON },
      ),
      'auto',
      'editor',
    );
    // Declares the same tool: a daemon that sends the gone client's calls elsewhere is seen.
    const witness = await owner(ctx, 'witness', [GONE]);
    await attach(ctx, witness, sessionId, 'observer');
    const turnId = await send(
      ctx,
      provider.conn,
      sessionId,
      'conformance: call a tool, then leave',
    );
    const idle = await waitTurnEnd(ctx, witness.conn, sessionId, turnId, 20_000);
    await sleep(100);
    const first = provider.executed.find((e) => e.toolCallId === 'cgone-first');
    if (!first) {
      r.fail(
        'daemon.client-tools.disconnect-error',
        `the client that sent the turn got no tool/execute for its declared ${String(GONE.name)} (got ${show(provider.executed)})`,
      );
      throw new Abort('the tool never ran');
    }
    const events = notes(witness.conn, sessionId);
    const view = finalView(events, turnId);
    const firstNode = view.get(String(first.nodeId));
    const streamed = events
      .filter((e) => e.method === Methods.ChatChunk.method && e.params.turnId === turnId)
      .map((e) => String(e.params.text))
      .join('');
    const wentOn = streamed.includes(WENT_ON) && idle.stopReason === 'end_turn';
    r.expect(
      'daemon.client-tools.disconnect-error',
      firstNode?.status === 'error' && wentOn,
      `the call outstanding when its client disconnected: node ${show(firstNode)} (expected status error); the turn ${wentOn ? 'went on' : `ended ${String(idle.stopReason)}${streamed.includes(WENT_ON) ? '' : ' without the next replies'}`}`,
    );
    const others = [...view.values()].filter(
      (n) => n.kind === 'tool' && n.name === GONE.name && n.id !== first.nodeId,
    );
    const later =
      others.find((n) => String(n.argsPreview ?? '').includes('cgone-later')) ??
      (others.length === 1 ? others[0] : undefined);
    const rerouted = ids(witness.executed, turnId);
    if (!later && rerouted.length === 0) {
      r.skip(
        'daemon.client-tools.unavailable',
        `the later call of the gone client's tool made no node (${others.length} candidates): the turn did not go on to it`,
      );
      return;
    }
    r.expect(
      'daemon.client-tools.unavailable',
      rerouted.length === 0 && later?.status === 'error',
      `a call of the gone client's tool after it left: ${rerouted.length ? `tool/execute sent to another client that declared it (${rerouted.join(', ')}); ` : ''}node ${show(later)} (expected status error, no request)`,
    );
  },
};

/** Whether a tool's inputSchema requires no argument, so a call with `{}` is valid. */
const noArgsNeeded = (tool: JsonObject): boolean => {
  const required = ((tool.inputSchema as JsonObject | undefined)?.required ?? []) as unknown[];
  return required.length === 0;
};

/** Tools whose call starts more than a tool call: a subtask, a question. */
const SPECIAL = new Set(['run_subtask', 'finish_subtask', 'ask_user']);

export const clientToolBuiltinName: Scenario<DaemonContext> = {
  id: 'daemon-client-tool-builtin-name',
  role: 'daemon',
  title:
    "a client declares a tool under a built-in tool's name: tools/list gives only the daemon's, and a call of the name never reaches the client",
  checks: ['daemon.client-tools.builtin-wins'],
  async run(ctx) {
    const check = 'daemon.client-tools.builtin-wins';
    const lister = await ctx.connect('lister');
    requireDaemonCapability(lister.init, 'tools');
    const builtins = await lister.conn.request(Methods.ToolsList.method, {});
    const tools = ((builtins?.result as JsonObject | undefined)?.tools ?? []) as JsonObject[];
    const daemonTools = tools.filter((t) => t.origin !== 'client' && !SPECIAL.has(String(t.name)));
    // A read tool without required arguments runs in auto mode on a call with none.
    const candidates = daemonTools.filter((t) => t.category === 'read' && noArgsNeeded(t));
    const builtin = candidates.find((t) => t.name === 'memory_list') ?? candidates[0];
    if (!builtin)
      throw new Skip(
        "tools/list without a session gives no read-category daemon tool without required arguments to declare a client tool's name after",
      );
    const name = String(builtin.name);
    const c = await owner(ctx, 'shadowing', [
      {
        name,
        description: "A client tool of the conformance suite under a built-in tool's name.",
        inputSchema: { type: 'object' },
        category: 'read',
      },
      SHARED,
    ]);
    const sessionId = await scriptedSession(
      ctx,
      c,
      script(
        { toolCalls: [{ id: 'cshadow-call', name, arguments: {} }] },
        { text: 'conformance: the built-in answered.' },
      ),
      'auto',
      'editor',
    );
    const listed = await c.conn.request(Methods.ToolsList.method, { sessionId });
    const inSession = (((listed?.result as JsonObject | undefined)?.tools ?? []) as JsonObject[])
      .filter((t) => t.name === name)
      .map((t) => ({ origin: t.origin, category: t.category, description: t.description }));
    const turnId = await send(ctx, c.conn, sessionId, `conformance: call ${name}`);
    await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    const ran = c.executed.filter((e) => e.name === name);
    const problems = [
      ran.length > 0 &&
        `a call of ${name} was sent to the client (tool/execute) instead of running the daemon's ${name}`,
      listed?.result !== undefined &&
        (inSession.length !== 1 || inSession[0]!.origin === 'client') &&
        `the editor session's tools/list gives ${name} as ${show(inSession)} (expected only the daemon's)`,
    ].filter(Boolean);
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};
