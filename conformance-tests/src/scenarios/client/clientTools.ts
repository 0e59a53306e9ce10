/**
 * The client side of client tools (client-tools.md): a `tool/execute` for a
 * tool the client never declared, and one cancelled while it runs.
 */
import { Methods } from '@arbor/protocol';
import { declaredClientTools, type Connection, type JsonObject } from '../../harness/connection.js';
import { Skip, type Scenario } from '../scenario.js';
import type { ClientContext } from './context.js';
import { describe, judgeArborRange, ready, requireClientCapability, sleep } from './scenarios.js';

function executeParams(ctx: ClientContext, toolCallId: string, name: string): JsonObject {
  return {
    sessionId: ctx.sessionId,
    turnId: 'turn-1',
    nodeId: `node-${toolCallId}`,
    toolCallId,
    name,
    args: {},
  };
}

function startToolCall(
  ctx: ClientContext,
  conn: Connection,
  toolCallId: string,
  name: string,
): void {
  ctx.emit(conn, Methods.SessionState.method, { state: 'running', turnId: 'turn-1' });
  ctx.emit(conn, Methods.TreeUpdate.method, {
    turnId: 'turn-1',
    nodes: [
      { id: 'turn-node', parentId: null, kind: 'turn', name: 'turn', status: 'running', depth: 0 },
      {
        id: `node-${toolCallId}`,
        parentId: 'turn-node',
        kind: 'tool',
        name,
        status: 'running',
        depth: 0,
      },
    ],
  });
}

/** The tools the client declared in its initialize. */
function declaredTools(conn: Connection): JsonObject[] {
  const init = conn.messages.find(
    (m) => m.kind === 'request' && (m.message as JsonObject).method === Methods.Initialize.method,
  );
  return declaredClientTools((init?.message as JsonObject | undefined)?.params);
}

export const undeclaredTool: Scenario<ClientContext> = {
  id: 'client-tool-undeclared',
  role: 'client',
  title: 'tool/execute for a tool the client never declared gets -33010',
  checks: ['client.client-tools.unknown-tool', 'client.errors.arbor-range'],
  async run(ctx) {
    const check = 'client.client-tools.unknown-tool';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.clientTools');
    const names = new Set(declaredTools(conn).map((t) => t.name));
    let name = 'conformance_never_declared';
    while (names.has(name)) name += '_';
    startToolCall(ctx, conn, 'call-u', name);
    const answer = await conn.request(
      Methods.ToolExecute.method,
      executeParams(ctx, 'call-u', name),
      {
        noResponseCheck: check,
      },
    );
    if (answer)
      ctx.recorder.expect(
        check,
        answer.error?.code === -33010,
        `tool/execute of the undeclared ${name} got ${describe(answer)}, expected -33010`,
      );
    judgeArborRange(ctx, conn);
  },
};

export const toolCancel: Scenario<ClientContext> = {
  id: 'client-tool-cancel',
  role: 'client',
  title: 'a tool/execute cancelled at once is still answered (its result, or -32800)',
  checks: ['client.client-tools.cancel-answer', 'client.errors.arbor-range'],
  async run(ctx) {
    const check = 'client.client-tools.cancel-answer';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.clientTools');
    // Only a read tool: calling it cannot change the user's workspace.
    const tool = declaredTools(conn).find((t) => t.category === 'read');
    if (!tool) throw new Skip('the client declares no read tool to call and cancel');
    const name = String(tool.name);
    startToolCall(ctx, conn, 'call-c', name);
    const answer = conn.request(Methods.ToolExecute.method, executeParams(ctx, 'call-c', name), {
      id: 'execute-c',
      noResponseCheck: check,
    });
    await sleep(20);
    conn.notify(Methods.CancelRequest.method, { id: 'execute-c' });
    if (await answer) ctx.recorder.pass(check);
    judgeArborRange(ctx, conn);
  },
};
