/**
 * Tool-result metadata on tree nodes and the runtime controls of agent
 * profiles that reach the wire (protocol 1.1), judged from outside: the
 * suite writes an AGENTS.md and two profiles into the scenario's workspace,
 * runs a turn whose scripted model calls an execute-category client tool
 * with an injected `reason` (asked about in default mode), and a turn under
 * a profile that keeps no tool results, then loads and replays it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import {
  describe,
  requireDaemonCapability,
  type DaemonContext,
  type Initialized,
} from './context.js';
import { profileSession, writeAgentProfiles } from './agentSessions.js';
import { isTurnEnd, send, sessionEvents, waitTurnEnd } from './turns.js';
import { FINAL_STATUSES } from './turnEnd.js';

const COMPLETED_AT = 'daemon.tree.completed-at';
const APPROVAL_ID = 'daemon.tree.approval-id';
const INSTRUCTIONS = 'daemon.tree.turn-instructions';
const INJECTED = 'daemon.agents.injected-args';
const OMITTED = 'daemon.agents.omitted-listed';
const NOT_KEPT = 'daemon.agents.results-not-kept';

/** Non-ASCII on purpose: its characters and its UTF-8 bytes differ in number. */
const AGENTS_MD = 'Conformance: écrivez des réponses brèves — ✓\n';
const REASON = 'conformance: the suite wants to see it';
/** What the private turn's tool returns: never in what the daemon keeps. */
const MARKER = 'conformance-kept-out-5821';

const POKE = {
  name: 'conformance_rc_poke',
  description: 'An execute-category client tool of the conformance suite; it runs nothing.',
  inputSchema: { type: 'object', properties: { target: { type: 'string' } } },
  category: 'execute',
};
const PEEK = {
  name: 'conformance_rc_peek',
  description: 'A read-category client tool of the conformance suite; it reads nothing.',
  inputSchema: { type: 'object', properties: {} },
  category: 'read',
};

const PROFILES: Record<string, object> = {
  'conformance-reasoned': { injectedToolArgs: { reason: 'Why this call is needed' } },
  'conformance-private': { dataPolicy: { toolResults: false } },
};

function writeWorkspace(ctx: DaemonContext): void {
  writeFileSync(join(ctx.workspace, 'AGENTS.md'), AGENTS_MD);
  writeAgentProfiles(ctx, PROFILES);
}

type Node = JsonObject & { id: string; status?: string };

/** The session's tree/update upserts, in order. */
function upserts(c: Initialized, sessionId: string, from = 0): Node[] {
  return sessionEvents(c.conn, sessionId)
    .slice(from)
    .filter((e) => e.method === Methods.TreeUpdate.method)
    .flatMap((e) => (Array.isArray(e.params.nodes) ? (e.params.nodes as Node[]) : []));
}

function merged(nodes: readonly Node[]): Map<string, Node> {
  const tree = new Map<string, Node>();
  for (const node of nodes) tree.set(node.id, { ...tree.get(node.id), ...node });
  return tree;
}

/** A scripted session of one conversation, with `agent` when given. */
const newSession = (
  c: Initialized,
  ctx: DaemonContext,
  mode: string,
  agent: string | undefined,
  conversation: object[],
): Promise<string> => profileSession(c, ctx, { mode, agent, conversations: { '*': conversation } });

export const runtimeControls: Scenario<DaemonContext> = {
  id: 'daemon-runtime-controls',
  role: 'daemon',
  title:
    'tool-result metadata (completedAt, approvalId), workspace instructions on the turn node, injected tool arguments, a data policy that keeps no tool results',
  checks: [COMPLETED_AT, APPROVAL_ID, INSTRUCTIONS, INJECTED, OMITTED, NOT_KEPT],
  async run(ctx) {
    const c = await ctx.connect('controller', {
      capabilities: { approvals: {}, clientTools: {} },
      tools: [POKE, PEEK],
    });
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    writeWorkspace(ctx);
    const agents = c.init.capabilities.agents !== undefined;

    const asked: JsonObject[] = [];
    const executed: JsonObject[] = [];
    c.conn.handle(Methods.ApprovalRequest.method, (params) => {
      asked.push(params as JsonObject);
      return { decision: 'allow' };
    });
    c.conn.handle(Methods.ToolExecute.method, (params) => {
      executed.push(params as JsonObject);
      const p = params as JsonObject;
      return { content: p.name === PEEK.name ? `conformance: ${MARKER}` : 'conformance: poked' };
    });

    // 1. An asked call (default mode, execute category), with the injected reason when profiles exist.
    const sessionId = await newSession(
      c,
      ctx,
      'default',
      agents ? 'conformance-reasoned' : undefined,
      [
        {
          toolCalls: [
            {
              id: 'crc-poke',
              name: POKE.name,
              arguments: { target: 'x', ...(agents && { reason: REASON }) },
            },
            { id: 'crc-peek', name: PEEK.name, arguments: {} },
          ],
        },
        { text: 'conformance: done.' },
      ],
    );
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: poke');
    await waitTurnEnd(ctx, c.conn, sessionId, turnId, 20_000);
    const all = upserts(c, sessionId);
    const tree = merged(all);

    // tree.md#tree-completed-at: judged once the daemon sends it at all.
    if (!all.some((node) => node.completedAt !== undefined)) {
      ctx.recorder.skip(COMPLETED_AT, 'the daemon sends no completedAt (a 1.0 daemon)');
    } else {
      const finals = all.filter((node) => FINAL_STATUSES.has(String(node.status)));
      const bad = finals.filter((node) => {
        const started = merged(all.slice(0, all.indexOf(node) + 1)).get(node.id)?.startedAt;
        return (
          typeof node.completedAt !== 'string' ||
          Number.isNaN(Date.parse(node.completedAt)) ||
          (typeof started === 'string' && Date.parse(node.completedAt) < Date.parse(started))
        );
      });
      ctx.recorder.expect(
        COMPLETED_AT,
        bad.length === 0,
        `final upserts without a completedAt (or one before startedAt): ${JSON.stringify(bad).slice(0, 400)}`,
      );
    }

    // tree.md#tree-approval-id
    const request = asked.find((p) => p.toolCallId === 'crc-poke');
    const pokeNode = [...tree.values()].find((node) => node.name === POKE.name);
    const awaiting = all.filter(
      (node) => node.id === pokeNode?.id && node.status === 'awaiting_approval',
    );
    const strays = [...tree.values()].filter(
      (node) => node.id !== pokeNode?.id && node.approvalId !== undefined,
    );
    if (request === undefined || pokeNode === undefined) {
      ctx.recorder.fail(
        APPROVAL_ID,
        `no tool/approvalRequest for crc-poke (asked ${JSON.stringify(asked).slice(0, 200)}) or no node for it`,
      );
    } else {
      ctx.recorder.expect(
        APPROVAL_ID,
        pokeNode.approvalId === request.toolCallId &&
          awaiting.length > 0 &&
          awaiting.every((node) => node.approvalId === request.toolCallId) &&
          strays.length === 0,
        `the node asked about has approvalId ${JSON.stringify(pokeNode.approvalId)} (awaiting_approval upserts: ${JSON.stringify(awaiting.map((n) => n.approvalId))}); the request's toolCallId is ${String(request.toolCallId)}; other nodes with approvalId: ${JSON.stringify(strays.map((n) => n.id))}`,
      );
    }

    // tree.md#tree-turn-instructions: judged when the daemon lists the AGENTS.md it gave.
    const turnNode = [...tree.values()].find((node) => node.parentId === null);
    const listed = Array.isArray(turnNode?.instructions)
      ? (turnNode.instructions as JsonObject[]).find((file) => file.path === 'AGENTS.md')
      : undefined;
    if (listed === undefined) {
      ctx.recorder.skip(
        INSTRUCTIONS,
        'the turn node lists no AGENTS.md (the daemon need not read it)',
      );
    } else {
      ctx.recorder.expect(
        INSTRUCTIONS,
        listed.chars === [...AGENTS_MD].length && listed.truncated !== true,
        `the turn node lists AGENTS.md as ${JSON.stringify(listed)}; the file has ${[...AGENTS_MD].length} characters (${Buffer.byteLength(AGENTS_MD)} bytes) and was not cut`,
      );
    }

    if (!agents) {
      for (const id of [INJECTED, OMITTED, NOT_KEPT])
        ctx.recorder.skip(id, 'the daemon does not advertise capabilities.agents');
      return;
    }

    // tree.md#tree-injected-args, approvals.md#approvals-injected-args
    const ran = executed.find((p) => p.toolCallId === 'crc-poke');
    const ranArgs = ran?.args as JsonObject | undefined;
    const requestArgs = request?.args as JsonObject | undefined;
    const reasonOf = (value: unknown) => (value as JsonObject | undefined)?.reason;
    ctx.recorder.expect(
      INJECTED,
      ran !== undefined &&
        ranArgs?.target === 'x' &&
        reasonOf(ranArgs) === undefined &&
        reasonOf(request?.injectedArgs) === REASON &&
        reasonOf(requestArgs) === undefined &&
        reasonOf(pokeNode?.injectedArgs) === REASON,
      `with the profile's injected reason: tool/execute args ${JSON.stringify(ranArgs)}, approval args ${JSON.stringify(requestArgs)} and injectedArgs ${JSON.stringify(request?.injectedArgs)}, node injectedArgs ${JSON.stringify(pokeNode?.injectedArgs)}; expected the reason in the approval's and the node's injectedArgs only`,
    );

    // sessions.md#sessions-load-omitted, #sessions-omitted-results
    const privateId = await newSession(c, ctx, 'auto', 'conformance-private', [
      { toolCalls: [{ id: 'crc-private', name: PEEK.name, arguments: {} }] },
      { text: 'conformance: peeked.' },
    ]);
    const privateTurn = await send(ctx, c.conn, privateId, 'conformance: peek privately');
    await waitTurnEnd(ctx, c.conn, privateId, privateTurn, 20_000);
    const liveSaw = JSON.stringify(upserts(c, privateId)).includes(MARKER);
    const loaded = await c.conn.request(Methods.SessionLoad.method, { sessionId: privateId });
    const messages = ((loaded?.result as JsonObject | undefined)?.messages ?? []) as JsonObject[];
    const answer = messages.find((m) => m.turnId === privateTurn && m.role === 'assistant');
    // A replay on the same connection (a stdio daemon has one): detach, attach from seq 0.
    await c.conn.request(Methods.SessionDetach.method, { sessionId: privateId });
    const before = sessionEvents(c.conn, privateId).length;
    const seen = c.conn.messages.length;
    const attached = await c.conn.request(Methods.SessionAttach.method, {
      sessionId: privateId,
      sinceSeq: 0,
    });
    // The replay ends with the turn's idle event.
    await c.conn.waitFor(isTurnEnd(privateId, privateTurn), 5000, seen);
    const replayed = upserts(c, privateId, before);
    if (!liveSaw) {
      ctx.recorder.fail(
        NOT_KEPT,
        `the live turn never showed the tool's result (${MARKER}); nothing to judge`,
      );
      ctx.recorder.skip(OMITTED, 'the live turn showed no tool result');
      return;
    }
    const omitted = Array.isArray(answer?.omitted) ? (answer.omitted as unknown[]) : [];
    ctx.recorder.expect(
      OMITTED,
      answer !== undefined && omitted.includes('toolResults'),
      `the assistant message of a turn whose profile keeps no tool results has omitted ${JSON.stringify(answer?.omitted)}; expected it to list toolResults`,
    );
    ctx.recorder.expect(
      NOT_KEPT,
      answer !== undefined &&
        !JSON.stringify(answer).includes(MARKER) &&
        attached?.error === undefined &&
        replayed.length > 0 &&
        !JSON.stringify(replayed).includes(MARKER),
      `under dataPolicy toolResults: false the tool's result ${MARKER} is ${JSON.stringify(answer ?? {}).includes(MARKER) ? 'in' : 'not in'} session/load and ${JSON.stringify(replayed).includes(MARKER) ? 'in' : 'not in'} the ${replayed.length} replayed tree/update nodes (attach: ${describe(attached)})`,
    );
  },
};
