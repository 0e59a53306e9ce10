/**
 * Agent profiles (agents.md, protocol 1.1), judged from outside: the suite
 * writes profile files into the scenario's workspace (`.arbor/agents/`, the
 * place agents.md#agents-workspace-files fixes), lists them, creates sessions
 * with them, and runs a turn whose scripted model calls a read-category
 * client tool the profile's `hitlTools` names, in an `auto` session, where
 * that call would otherwise run unasked.
 */
import { join } from 'node:path';
import { ErrorCodes, Methods } from '@arbor/protocol';
import type { JsonObject, ResponseMessage } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import { describe, requireDaemonCapability, type Initialized } from './context.js';
import type { DaemonContext } from './context.js';
import { writeAgentProfiles } from './agentSessions.js';
import { send, waitTurnEnd } from './turns.js';

const CAPABILITY = 'daemon.agents.capability';
const LIST = 'daemon.agents.list';
const INVALID = 'daemon.agents.list-invalid';
const ROOT = 'daemon.agents.list-workspace-root';
const NEW = 'daemon.agents.new';
const NEW_INVALID = 'daemon.agents.new-invalid';
const HITL = 'daemon.agents.hitl';

const READ_TOOL = {
  name: 'conformance_agent_peek',
  description: 'A read-category client tool of the conformance suite; it reads nothing.',
  inputSchema: { type: 'object', properties: {} },
  category: 'read',
};

/** The profile files the scenario writes (name → content). */
const FILES: Record<string, string> = {
  'conformance-careful': JSON.stringify({
    description: 'Conformance: asks before peeking',
    hitlTools: [READ_TOOL.name],
  }),
  'conformance-briefly': JSON.stringify({ description: 'Conformance: short answers' }),
  'conformance-broken': JSON.stringify({ hitlTools: READ_TOOL.name }),
};

const resultOf = (response: ResponseMessage | undefined): JsonObject | undefined =>
  response?.result as JsonObject | undefined;

/** agents.md#agents-list-unique: sorted by name, no name twice. */
const sortedUnique = (names: string[]): boolean =>
  names.every((name, i) => i === 0 || names[i - 1]! < name);

async function newSession(
  c: Initialized,
  ctx: DaemonContext,
  agent: string,
): Promise<ResponseMessage | undefined> {
  return c.conn.request(Methods.SessionNew.method, {
    workspaceRoot: ctx.workspace,
    permissionMode: 'auto',
    chatContext: { kind: 'editor' },
    agent,
  });
}

export const agents: Scenario<DaemonContext> = {
  id: 'daemon-agents',
  role: 'daemon',
  title:
    'agent profiles: listed from .arbor/agents, taken by session/new and kept in SessionInfo, hitlTools asking in auto mode',
  checks: [CAPABILITY, LIST, INVALID, ROOT, NEW, NEW_INVALID, HITL],
  async run(ctx) {
    const c = await ctx.connect('controller', {
      capabilities: { approvals: {}, clientTools: {} },
      tools: [READ_TOOL],
    });
    // Served exactly when advertised (a daemon without the method answers -32601).
    const advertised = c.init.capabilities.agents !== undefined;
    const unasked = await c.conn.request(Methods.AgentsList.method, {});
    const served = unasked?.error?.code !== -32601;
    ctx.recorder.expect(
      CAPABILITY,
      advertised === served,
      advertised
        ? `the daemon advertises capabilities.agents, but agents/list got ${describe(unasked)}`
        : `the daemon serves agents/list (${describe(unasked)}) without advertising capabilities.agents`,
    );
    requireDaemonCapability(c.init, 'agents');
    writeAgentProfiles(ctx, FILES);

    const listed = resultOf(
      await c.conn.request(Methods.AgentsList.method, { workspaceRoot: ctx.workspace }),
    );
    const entries = Array.isArray(listed?.agents) ? (listed.agents as JsonObject[]) : undefined;
    const named = (name: string) => entries?.find((entry) => entry.name === name);
    const careful = named('conformance-careful');
    const briefly = named('conformance-briefly');
    ctx.recorder.expect(
      LIST,
      entries !== undefined &&
        sortedUnique(entries.map((entry) => String(entry.name))) &&
        careful?.source === 'workspace' &&
        careful.description === 'Conformance: asks before peeking' &&
        briefly?.source === 'workspace' &&
        briefly.description === 'Conformance: short answers',
      `agents/list gave ${entries ? JSON.stringify(entries).slice(0, 300) : describe(undefined)}; expected conformance-careful and conformance-briefly (workspace, their descriptions), sorted by name`,
    );

    const errors = Array.isArray(listed?.errors) ? (listed.errors as JsonObject[]) : [];
    const brokenNew = await newSession(c, ctx, 'conformance-broken');
    ctx.recorder.expect(
      INVALID,
      named('conformance-broken') === undefined &&
        errors.some((entry) => entry.file === '.arbor/agents/conformance-broken.json') &&
        brokenNew?.error?.code === ErrorCodes.InvalidParams,
      `an invalid profile file: agents ${named('conformance-broken') ? 'lists it' : 'leaves it out'}, errors ${JSON.stringify(errors).slice(0, 200)}, session/new naming it got ${describe(brokenNew)}; expected it only in errors (file .arbor/agents/conformance-broken.json) and -32602`,
    );

    const badRoot = await c.conn.request(Methods.AgentsList.method, {
      workspaceRoot: join(ctx.workspace, 'conformance-no-such-dir'),
    });
    ctx.recorder.expect(
      ROOT,
      badRoot?.error?.code === ErrorCodes.InvalidWorkspaceRoot,
      `agents/list with a workspaceRoot that does not exist got ${describe(badRoot)}, expected -33009`,
    );

    const unknown = await newSession(c, ctx, 'conformance-nobody');
    ctx.recorder.expect(
      NEW_INVALID,
      unknown?.error?.code === ErrorCodes.InvalidParams &&
        String(unknown.error.message).includes('conformance-nobody'),
      `session/new naming the unknown agent conformance-nobody got ${describe(unknown)}, expected -32602 with a message naming it`,
    );

    const created = await newSession(c, ctx, 'conformance-careful');
    const sessionId = resultOf(created)?.sessionId;
    if (typeof sessionId !== 'string') {
      ctx.recorder.fail(NEW, `session/new naming conformance-careful got ${describe(created)}`);
      throw new Abort('no session');
    }
    const listedSessions = resultOf(
      await c.conn.request(Methods.SessionList.method, { workspaceRoot: ctx.workspace }),
    );
    const inList = ((listedSessions?.sessions ?? []) as JsonObject[]).find(
      (session) => session.sessionId === sessionId,
    );
    const loaded = resultOf(await c.conn.request(Methods.SessionLoad.method, { sessionId }));
    // Attaching again on the same connection: a stdio daemon has one client.
    const attached = resultOf(
      await c.conn.request(Methods.SessionAttach.method, { sessionId, role: 'controller' }),
    );
    const agentIn = (info: unknown) => (info as JsonObject | undefined)?.agent;
    const seen = {
      new: agentIn(resultOf(created)),
      list: agentIn(inList),
      load: agentIn(loaded?.session),
      attach: agentIn(attached?.session),
    };
    ctx.recorder.expect(
      NEW,
      Object.values(seen).every((agent) => agent === 'conformance-careful'),
      `SessionInfo.agent of a session created with conformance-careful: ${JSON.stringify(seen)}`,
    );

    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    const asked: string[] = [];
    const ran: string[] = [];
    c.conn.handle(Methods.ApprovalRequest.method, (params) => {
      asked.push(String((params as JsonObject).toolCallId));
      return { decision: 'allow' };
    });
    c.conn.handle(Methods.ToolExecute.method, (params) => {
      ran.push(String((params as JsonObject).toolCallId));
      return { content: 'conformance: peeked' };
    });
    const set = await c.conn.request(Methods.SetScript.method, {
      sessionId,
      script: {
        version: 1,
        conversations: {
          '*': [
            { toolCalls: [{ id: 'cagent-peek', name: READ_TOOL.name, arguments: {} }] },
            { text: 'conformance: done.' },
          ],
        },
      },
    });
    if (!set || set.error) {
      ctx.recorder.fail(HITL, `_arbor/testing/setScript failed: ${describe(set)}`);
      return;
    }
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: peek');
    await waitTurnEnd(ctx, c.conn, sessionId, turnId, 20_000);
    ctx.recorder.expect(
      HITL,
      asked.includes('cagent-peek') && ran.includes('cagent-peek'),
      `in an auto session whose profile's hitlTools names ${READ_TOOL.name}: asked ${JSON.stringify(asked)}, ran ${JSON.stringify(ran)}; expected a tool/approvalRequest for cagent-peek, then the call`,
    );
  },
};
