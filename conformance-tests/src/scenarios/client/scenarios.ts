/** Client scenarios: the suite plays the daemon (see README, "conformance driver"). */
import { ArborErrorCodes, ArborErrorRange, Methods } from '@arbor/protocol';
import type {
  Connection,
  Incoming,
  JsonObject,
  ResponseMessage,
} from '../../harness/connection.js';
import {
  declaredClientCapabilities,
  declaredClientTools,
  hasCapability,
  timeouts,
} from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import { requestedVersion, type ClientContext } from './context.js';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const describe = (r: ResponseMessage | undefined): string =>
  !r
    ? 'no response'
    : r.error
      ? `error ${r.error.code} (${r.error.message})`
      : `result ${JSON.stringify(r.result)?.slice(0, 200)}`;

export function requireClientCapability(conn: Connection, path: string): void {
  if (!hasCapability(conn.negotiated, path))
    throw new Skip(`the client does not declare capabilities.${path.replace(/^client\./, '')}`);
}

const SPEC_ARBOR_CODES: ReadonlySet<number> = new Set(Object.values(ArborErrorCodes));

/**
 * errors.md#errors-arbor-range: every error the client answered with on `conn`
 * uses no code of Arbor's reserved range that the spec does not define.
 */
export function judgeArborRange(ctx: ClientContext, conn: Connection): void {
  const own = conn.messages
    .filter((m) => m.kind === 'response')
    .map((m) => (m.message as ResponseMessage).error?.code)
    .filter(
      (code): code is number =>
        typeof code === 'number' &&
        code <= ArborErrorRange.start &&
        code >= ArborErrorRange.end &&
        !SPEC_ARBOR_CODES.has(code),
    );
  ctx.recorder.expect(
    'client.errors.arbor-range',
    own.length === 0,
    `the client answered with ${own.join(', ')}: codes of the range reserved for the spec that it does not define`,
  );
}

export async function ready(ctx: ClientContext): Promise<Connection> {
  const conn = await ctx.accept();
  await ctx.handshake(conn);
  return conn;
}

export const initialize: Scenario<ClientContext> = {
  id: 'client-initialize',
  role: 'client',
  title: 'the client opens with initialize (protocolVersion 1) and confirms with initialized',
  checks: [
    'client.lifecycle.initialize-first',
    'client.lifecycle.protocol-version',
    'client.lifecycle.initialized',
    'client.lifecycle.token',
    'client.client-tools.declared-capability',
    'client.driver.connect',
    'client.driver.session',
    'client.driver.exit-on-close',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const conn = await ctx.accept().catch((error: unknown) => {
      r.fail('client.driver.connect', error instanceof Error ? error.message : String(error));
      throw error;
    });
    // Each transport sets only its own variable, so the way in shows which one the client used.
    const via = ctx.target.transport === 'socket' ? 'client(socket)' : 'client(stdio)';
    r.expect(
      'client.driver.connect',
      conn.label === via,
      `the client came in as ${conn.label}, expected ${via}`,
    );
    const handshake = ctx.handshake(conn).catch(() => undefined);
    const first = await conn.waitFor(() => true, timeouts.requestMs);
    const msg = first?.message as JsonObject | undefined;
    if (
      !r.expect(
        'client.lifecycle.initialize-first',
        first?.kind === 'request' && msg?.method === Methods.Initialize.method,
        `the first message was ${JSON.stringify(msg)?.slice(0, 200) ?? 'never sent'}`,
      )
    )
      return;
    const params = (msg!.params ?? {}) as JsonObject;
    // Typed LSP clients can send it only under initializationOptions; absent means 1.
    const version = requestedVersion(params);
    r.expect(
      'client.lifecycle.protocol-version',
      version === ctx.protocolVersion,
      `initialize asked for protocolVersion ${JSON.stringify(version)}, expected ${ctx.protocolVersion}`,
    );
    judgeToken(ctx, params);
    judgeToolDeclaration(ctx, params);
    const initialized = await conn.waitFor(
      (m) =>
        m.kind === 'notification' &&
        (m.message as JsonObject).method === Methods.Initialized.method,
      timeouts.requestMs,
    );
    r.expect(
      'client.lifecycle.initialized',
      initialized !== undefined && initialized.index > first!.index,
      'the client never sent initialized after the initialize result',
    );
    await handshake;
    const attach = conn.messages.find(
      (m) =>
        m.kind === 'request' && (m.message as JsonObject).method === Methods.SessionAttach.method,
    );
    const attachParams = ((attach?.message as JsonObject | undefined)?.params ?? {}) as JsonObject;
    r.expect(
      'client.driver.session',
      attachParams.sessionId === ctx.sessionId &&
        (attachParams.role ?? 'controller') === 'controller',
      attach
        ? `the client attached with ${JSON.stringify(attachParams)}, expected session ${ctx.sessionId} as controller`
        : `the client never attached to ${ctx.sessionId}`,
    );
    // The daemon goes away: a driver-mode client exits with code 0.
    conn.finish();
    const code = await Promise.race([ctx.clientExit, sleep(3000).then(() => 'timeout' as const)]);
    r.expect(
      'client.driver.exit-on-close',
      code === 0,
      code === 'timeout'
        ? 'the client did not exit within 3 s of the daemon closing the connection'
        : `the client exited with code ${code}`,
    );
  },
};

/** lifecycle.md#token: on a socket the token comes at the top level or under initializationOptions. */
function judgeToken(ctx: ClientContext, params: JsonObject): void {
  if (ctx.target.transport !== 'socket') {
    ctx.recorder.skip('client.lifecycle.token', 'a token is presented only on a socket');
    return;
  }
  const top = params.token;
  const nested = ((params.initializationOptions ?? {}) as JsonObject).token;
  const presented = [top, nested].filter((t) => t !== undefined);
  ctx.recorder.expect(
    'client.lifecycle.token',
    presented.length > 0 && presented.every((t) => t === ctx.token),
    presented.length === 0
      ? 'initialize carried no token (neither token nor initializationOptions.token)'
      : `initialize carried token ${JSON.stringify(top)} / initializationOptions.token ${JSON.stringify(nested)}, not the one in ARBOR_CONFORMANCE_TOKEN_FILE`,
  );
}

/** client-tools.md#client-tools-capabilities: declared tools come with client.clientTools. */
function judgeToolDeclaration(ctx: ClientContext, params: JsonObject): void {
  const declared = declaredClientTools(params).length;
  const capabilities = declaredClientCapabilities(params);
  ctx.recorder.expect(
    'client.client-tools.declared-capability',
    declared === 0 || capabilities.clientTools !== undefined,
    `the client declared ${declared} tool(s) without capabilities.clientTools`,
  );
}

export const unknownMessages: Scenario<ClientContext> = {
  id: 'client-unknown-messages',
  role: 'client',
  title: 'unknown requests get -32601; unknown and `_` notifications are ignored',
  checks: ['client.jsonrpc.unknown-request', 'client.jsonrpc.unknown-notification-ignored'],
  async run(ctx) {
    const conn = await ready(ctx);
    for (const method of [
      'conformance/unknownRequest',
      '_conformance/unknownExtension',
      '$/conformanceUnknownRequest',
    ]) {
      const answer = await conn.request(
        method,
        {},
        { noResponseCheck: 'client.jsonrpc.unknown-request' },
      );
      if (answer)
        ctx.recorder.expect(
          'client.jsonrpc.unknown-request',
          answer.error?.code === -32601,
          `${method} got ${describe(answer)}, expected -32601`,
        );
    }
    conn.notify('conformance/unknownNotification', { x: 1 });
    conn.notify('_conformance/extensionNotification', { x: 1 });
    conn.notify('$/conformanceUnknown', { x: 1 });
    await sleep(50);
    const probe = await conn.request(
      'conformance/stillThere',
      {},
      { noResponseCheck: 'client.jsonrpc.unknown-notification-ignored' },
    );
    if (probe) ctx.recorder.pass('client.jsonrpc.unknown-notification-ignored');
  },
};

export const malformed: Scenario<ClientContext> = {
  id: 'client-malformed-frame',
  role: 'client',
  title: 'a malformed or invalid frame from the daemon does not crash the client',
  checks: ['client.transport.robust'],
  async run(ctx) {
    const conn = await ready(ctx);
    conn.sendRaw('{"jsonrpc":"2.0","method":');
    conn.sendRaw('{"jsonrpc":"2.0","id":{"bad":true}}');
    await sleep(50);
    const probe = await conn.request(
      'conformance/stillThere',
      {},
      { noResponseCheck: 'client.transport.robust' },
    );
    if (probe) ctx.recorder.pass('client.transport.robust');
  },
};

export function approvalParams(ctx: ClientContext, toolCallId: string): JsonObject {
  return {
    sessionId: ctx.sessionId,
    turnId: 'turn-1',
    nodeId: `node-${toolCallId}`,
    toolCallId,
    name: 'write_file',
    args: { path: 'a.txt' },
    category: 'write',
    reason: 'write_file changes the workspace',
  };
}

export function startTurnWithToolAwaitingApproval(
  ctx: ClientContext,
  conn: Connection,
  toolCallId: string,
): void {
  ctx.emit(conn, Methods.SessionState.method, { state: 'running', turnId: 'turn-1' });
  ctx.emit(conn, Methods.TreeUpdate.method, {
    turnId: 'turn-1',
    nodes: [
      { id: 'turn-node', parentId: null, kind: 'turn', name: 'turn', status: 'running', depth: 0 },
    ],
  });
  ctx.emit(conn, Methods.TreeUpdate.method, {
    turnId: 'turn-1',
    nodes: [
      {
        id: `node-${toolCallId}`,
        parentId: 'turn-node',
        kind: 'tool',
        name: 'write_file',
        status: 'awaiting_approval',
        depth: 0,
      },
    ],
  });
  ctx.emit(conn, Methods.SessionState.method, { state: 'requires_action', turnId: 'turn-1' });
}

export const approval: Scenario<ClientContext> = {
  id: 'client-approval',
  role: 'client',
  title: 'tool/approvalRequest is answered with the decision the driver policy asks for',
  checks: ['client.approvals.valid-decision'],
  async run(ctx) {
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.approvals');
    startTurnWithToolAwaitingApproval(ctx, conn, 'call-1');
    const answer = await conn.request(
      Methods.ApprovalRequest.method,
      approvalParams(ctx, 'call-1'),
      {
        noResponseCheck: 'client.approvals.valid-decision',
      },
    );
    if (!answer) return;
    const decision = (answer.result as JsonObject | undefined)?.decision;
    ctx.recorder.expect(
      'client.approvals.valid-decision',
      decision === ctx.policy,
      `the driver policy was ${ctx.policy}; the client answered ${describe(answer)}`,
    );
  },
};

export const approvalAlways: Scenario<ClientContext> = {
  id: 'client-approval-always',
  role: 'client',
  title:
    'with the driver policy allowAlways: a request without suggestedRule is not answered allowAlways, one with it is',
  checks: ['client.approvals.always-only-offered', 'client.approvals.valid-decision'],
  async run(ctx) {
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.approvals');
    startTurnWithToolAwaitingApproval(ctx, conn, 'call-a1');
    const unoffered = await conn.request(
      Methods.ApprovalRequest.method,
      approvalParams(ctx, 'call-a1'),
      { noResponseCheck: 'client.approvals.always-only-offered' },
    );
    if (!unoffered) return;
    ctx.recorder.expect(
      'client.approvals.always-only-offered',
      unoffered.result !== undefined && (unoffered.result as JsonObject).decision !== 'allowAlways',
      `a request without suggestedRule (driver policy allowAlways) got ${describe(unoffered)}; allowAlways is not offered there`,
    );
    ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId: 'turn-1',
      nodes: [
        {
          id: 'node-call-a2',
          parentId: 'turn-node',
          kind: 'tool',
          name: 'write_file',
          status: 'awaiting_approval',
          depth: 0,
        },
      ],
    });
    const offered = await conn.request(
      Methods.ApprovalRequest.method,
      { ...approvalParams(ctx, 'call-a2'), suggestedRule: 'write_file(a.txt)' },
      { noResponseCheck: 'client.approvals.valid-decision' },
    );
    if (!offered) return;
    ctx.recorder.expect(
      'client.approvals.valid-decision',
      (offered.result as JsonObject | undefined)?.decision === 'allowAlways',
      `the driver policy was allowAlways and the request offered suggestedRule; the client answered ${describe(offered)}`,
    );
  },
};

export const approvalCancel: Scenario<ClientContext> = {
  id: 'client-approval-cancel',
  role: 'client',
  title: 'an approval request cancelled with $/cancelRequest is answered -32800',
  checks: ['client.approvals.cancelled'],
  async run(ctx) {
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.approvals');
    startTurnWithToolAwaitingApproval(ctx, conn, 'call-2');
    const pending = conn.request(Methods.ApprovalRequest.method, approvalParams(ctx, 'call-2'), {
      id: 'approval-2',
      noResponseCheck: 'client.approvals.cancelled',
    });
    await sleep(100);
    conn.notify(Methods.CancelRequest.method, { id: 'approval-2' });
    const answer = await pending;
    if (answer)
      ctx.recorder.expect(
        'client.approvals.cancelled',
        answer.error?.code === -32800,
        `the cancelled approval request got ${describe(answer)}, expected -32800`,
      );
  },
};

export async function clientState(
  ctx: ClientContext,
  conn: Connection,
  check: string,
): Promise<JsonObject | undefined> {
  const answer = await conn.request(
    Methods.ConformanceState.method,
    { sessionId: ctx.sessionId },
    { noResponseCheck: check },
  );
  if (!answer) return undefined;
  if (!answer.result) {
    ctx.recorder.fail(check, `_arbor/conformance/state got ${describe(answer)}`);
    return undefined;
  }
  return answer.result as JsonObject;
}

/**
 * The client's state once `done` holds, asking again every 50 ms until the
 * answer timeout: for events whose arrival the suite cannot time (a replay
 * after a re-attach). The last answer when `done` never holds.
 */
export async function settledState(
  ctx: ClientContext,
  conn: Connection,
  check: string,
  done: (state: JsonObject) => boolean,
): Promise<JsonObject | undefined> {
  const deadline = Date.now() + timeouts.requestMs;
  for (;;) {
    const state = await clientState(ctx, conn, check);
    if (!state || done(state) || Date.now() > deadline) return state;
    await sleep(50);
  }
}

export const unknownOutcome: Scenario<ClientContext> = {
  id: 'client-unknown-outcome',
  role: 'client',
  title: 'an approval outcome the client does not know is never taken for an approval',
  checks: ['client.approvals.unknown-outcome'],
  async run(ctx) {
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.approvals');
    requireClientCapability(conn, 'client.conformance');
    startTurnWithToolAwaitingApproval(ctx, conn, 'call-3');
    // The daemon cancels the resolved request; a missing -32800 is the cancel check's business.
    const pending = conn.request(Methods.ApprovalRequest.method, approvalParams(ctx, 'call-3'), {
      id: 'approval-3',
      noResponseCheck: 'client.approvals.cancelled',
    });
    await sleep(50);
    // A future outcome value: deliberately outside v1's enum.
    conn.notify(
      Methods.ApprovalResolved.method,
      {
        sessionId: ctx.sessionId,
        seq: ++ctx.lastSeq,
        turnId: 'turn-1',
        toolCallId: 'call-3',
        outcome: 'conformance_future_outcome',
      },
      true,
    );
    conn.notify(Methods.CancelRequest.method, { id: 'approval-3' });
    await pending;
    const state = await clientState(ctx, conn, 'client.approvals.unknown-outcome');
    if (!state) return;
    const node = ((state.tree as JsonObject | undefined)?.nodes as JsonObject[] | undefined)?.find(
      (n) => n.id === 'node-call-3',
    );
    ctx.recorder.expect(
      'client.approvals.unknown-outcome',
      node?.approval !== 'approved' && node?.status !== 'running',
      `after an unknown outcome the client shows the call as ${JSON.stringify(node)}`,
    );
  },
};

/** Upserts with late fields and four levels of nesting; the expected merged view follows. */
const TREE_STREAM: JsonObject[][] = [
  [{ id: 't', parentId: null, kind: 'turn', name: 'turn', status: 'running', depth: 0 }],
  [
    {
      id: 'a',
      parentId: 't',
      kind: 'tool',
      name: 'read_file',
      status: 'running',
      depth: 0,
      argsPreview: '{"path":"a.ts"}',
    },
  ],
  [
    {
      id: 's1',
      parentId: 't',
      kind: 'subtask',
      name: 'run_subtask',
      title: 'outer',
      status: 'running',
      depth: 0,
    },
    {
      id: 's2',
      parentId: 's1',
      kind: 'subtask',
      name: 'run_subtask',
      title: 'inner',
      status: 'running',
      depth: 1,
    },
  ],
  [
    {
      id: 's3',
      parentId: 's2',
      kind: 'subtask',
      name: 'run_subtask',
      title: 'innermost',
      status: 'running',
      depth: 2,
    },
  ],
  [{ id: 'b', parentId: 's3', kind: 'tool', name: 'grep', status: 'running', depth: 3 }],
  // Late fields: absent optional fields keep their earlier value.
  [
    {
      id: 'a',
      parentId: 't',
      kind: 'tool',
      name: 'read_file',
      status: 'done',
      depth: 0,
      resultPreview: 'export {}',
      durationMs: 4,
    },
  ],
  [
    {
      id: 'b',
      parentId: 's3',
      kind: 'tool',
      name: 'grep',
      status: 'error',
      depth: 3,
      isError: true,
      resultPreview: 'no match',
    },
    { id: 's3', parentId: 's2', kind: 'subtask', name: 'run_subtask', status: 'done', depth: 2 },
    { id: 's2', parentId: 's1', kind: 'subtask', name: 'run_subtask', status: 'done', depth: 1 },
    { id: 's1', parentId: 't', kind: 'subtask', name: 'run_subtask', status: 'done', depth: 0 },
  ],
  [{ id: 't', parentId: null, kind: 'turn', name: 'turn', status: 'done', depth: 0 }],
];

function expectedTree(): Map<string, JsonObject> {
  const nodes = new Map<string, JsonObject>();
  for (const update of TREE_STREAM)
    for (const node of update)
      nodes.set(String(node.id), { ...(nodes.get(String(node.id)) ?? {}), ...node });
  return nodes;
}

export const tree: Scenario<ClientContext> = {
  id: 'client-tree',
  role: 'client',
  title: 'the client rebuilds the tree, text and state from a spec-valid update stream',
  checks: ['client.tree.rebuild'],
  async run(ctx) {
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    ctx.emit(conn, Methods.SessionState.method, { state: 'running', turnId: 'turn-1' });
    for (const [i, nodes] of TREE_STREAM.entries()) {
      ctx.emit(conn, Methods.TreeUpdate.method, { turnId: 'turn-1', nodes });
      if (i === 2)
        ctx.emit(conn, Methods.ChatChunk.method, {
          turnId: 'turn-1',
          nodeId: 't',
          text: 'Hello, ',
        });
    }
    ctx.emit(conn, Methods.ChatChunk.method, { turnId: 'turn-1', nodeId: 't', text: 'tree.' });
    ctx.emit(conn, Methods.SessionState.method, {
      state: 'idle',
      turnId: 'turn-1',
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    await sleep(50);
    const state = await clientState(ctx, conn, 'client.tree.rebuild');
    if (!state) return;
    const problems: string[] = [];
    if (state.lastSeq !== ctx.lastSeq)
      problems.push(`lastSeq ${String(state.lastSeq)}, expected ${ctx.lastSeq}`);
    if (state.state !== 'idle') problems.push(`state ${String(state.state)}, expected idle`);
    if (state.text !== 'Hello, tree.')
      problems.push(`text ${JSON.stringify(state.text)}, expected "Hello, tree."`);
    const got = ((state.tree as JsonObject | undefined)?.nodes ?? []) as JsonObject[];
    const seen = new Set<string>();
    for (const node of got) {
      if (node.parentId !== null && !seen.has(String(node.parentId)))
        problems.push(`node ${String(node.id)} is listed before its parent`);
      seen.add(String(node.id));
    }
    for (const [id, want] of expectedTree()) {
      const have = got.find((n) => n.id === id);
      if (!have) {
        problems.push(`node ${id} is missing`);
        continue;
      }
      for (const [key, value] of Object.entries(want)) {
        if (JSON.stringify(have[key]) !== JSON.stringify(value))
          problems.push(
            `node ${id}.${key} is ${JSON.stringify(have[key])}, expected ${JSON.stringify(value)}`,
          );
      }
    }
    if (got.length !== expectedTree().size)
      problems.push(`${got.length} nodes, expected ${expectedTree().size}`);
    ctx.recorder.expect(
      'client.tree.rebuild',
      problems.length === 0,
      problems.slice(0, 5).join('; '),
    );
  },
};

function sameProgress(a: JsonObject, b: JsonObject): boolean {
  return (['progress', 'total', 'message'] as const).every((key) => a[key] === b[key]);
}

/** Progress on two tool nodes: one ends (progress cleared with null), one still runs. */
export const treeProgress: Scenario<ClientContext> = {
  id: 'client-tree-progress',
  role: 'client',
  title: "the client drops a node's progress cleared with null and keeps a running node's latest",
  checks: ['client.tree.progress-cleared'],
  async run(ctx) {
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    const tool = (id: string, fields: JsonObject): JsonObject => ({
      id,
      parentId: 't',
      kind: 'tool',
      name: 'mcp__indexer__build',
      depth: 0,
      ...fields,
    });
    ctx.emit(conn, Methods.SessionState.method, { state: 'running', turnId: 'turn-1' });
    const updates: JsonObject[][] = [
      [
        { id: 't', parentId: null, kind: 'turn', name: 'turn', status: 'running', depth: 0 },
        tool('p', { status: 'running', progress: { progress: 1, total: 4, message: 'src/' } }),
      ],
      [tool('q', { status: 'running', progress: { progress: 10 } })],
      [tool('p', { status: 'running', progress: { progress: 3, total: 4 } })],
      [tool('p', { status: 'done', resultPreview: 'indexed', progress: null })],
      [tool('q', { status: 'running', progress: { progress: 20, message: 'still going' } })],
    ];
    for (const nodes of updates)
      ctx.emit(conn, Methods.TreeUpdate.method, { turnId: 'turn-1', nodes });
    await sleep(50);
    const state = await clientState(ctx, conn, 'client.tree.progress-cleared');
    if (!state) return;
    const nodes = ((state.tree as JsonObject | undefined)?.nodes ?? []) as JsonObject[];
    const byId = (id: string): JsonObject | undefined => nodes.find((n) => n.id === id);
    const problems: string[] = [];
    const ended = byId('p');
    if (!ended) problems.push('node p is missing');
    else if (ended.progress !== undefined && ended.progress !== null)
      problems.push(
        `node p ended with progress: null but the client shows ${JSON.stringify(ended.progress)}`,
      );
    const running = byId('q');
    if (!running) problems.push('node q is missing');
    // A client may show no progress at all; when it shows some, it is the latest (`_meta` aside).
    else if (
      running.progress !== undefined &&
      running.progress !== null &&
      !sameProgress(running.progress as JsonObject, { progress: 20, message: 'still going' })
    )
      problems.push(`running node q shows ${JSON.stringify(running.progress)}, not its latest`);
    ctx.recorder.expect('client.tree.progress-cleared', problems.length === 0, problems.join('; '));
    ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId: 'turn-1',
      nodes: [
        tool('q', { status: 'done', progress: null }),
        { id: 't', parentId: null, kind: 'turn', name: 'turn', status: 'done', depth: 0 },
      ],
    });
    ctx.emit(conn, Methods.SessionState.method, {
      state: 'idle',
      turnId: 'turn-1',
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
  },
};

export const seqGap: Scenario<ClientContext> = {
  id: 'client-seq-gap',
  role: 'client',
  title: 'a seq gap makes the client re-attach with sinceSeq = the last seq it applied',
  checks: ['client.events.seq-gap-reattach'],
  async run(ctx) {
    const conn = await ready(ctx);
    const events: [string, JsonObject][] = [
      [Methods.SessionState.method, { state: 'running', turnId: 'turn-1' }],
      [
        Methods.TreeUpdate.method,
        {
          turnId: 'turn-1',
          nodes: [
            { id: 't', parentId: null, kind: 'turn', name: 'turn', status: 'running', depth: 0 },
          ],
        },
      ],
      [Methods.ChatChunk.method, { turnId: 'turn-1', nodeId: 't', text: 'one ' }],
      [Methods.ChatChunk.method, { turnId: 'turn-1', nodeId: 't', text: 'two ' }],
      [Methods.ChatChunk.method, { turnId: 'turn-1', nodeId: 't', text: 'three' }],
    ];
    const base = ctx.lastSeq;
    const from = conn.messages.length;
    let replayed = false;
    conn.handle(Methods.SessionAttach.method, (params) => {
      const p = params as JsonObject;
      if (typeof p.sinceSeq === 'number' && !replayed) {
        replayed = true;
        setTimeout(() => {
          for (const [i, [method, body]] of events.entries())
            if (base + i + 1 > (p.sinceSeq as number)) ctx.emit(conn, method, body, base + i + 1);
        }, 10);
      }
      return {
        session: ctx.sessionInfo(),
        role: p.role ?? 'controller',
        lastSeq: base + events.length,
        replay: p.sinceSeq === undefined ? 'none' : 'events',
      };
    });
    // seq base+1..base+3 arrive, base+4 is lost, base+5 arrives.
    for (const [i, [method, body]] of events.entries())
      if (i !== 3) ctx.emit(conn, method, body, base + i + 1);
    const isReattach = (m: Incoming): boolean =>
      m.kind === 'request' && (m.message as JsonObject).method === Methods.SessionAttach.method;
    const reattach = await conn.waitFor(isReattach, timeouts.requestMs, from);
    const sinceSeq = (
      (reattach?.message as JsonObject | undefined)?.params as JsonObject | undefined
    )?.sinceSeq;
    ctx.recorder.expect(
      'client.events.seq-gap-reattach',
      sinceSeq === base + 3,
      reattach
        ? `the client re-attached with sinceSeq ${JSON.stringify(sinceSeq)}, expected ${base + 3}`
        : `the client did not re-attach after seq jumped from ${base + 3} to ${base + 5}`,
    );
    await sleep(50);
  },
};

export const versionUnsupported: Scenario<ClientContext> = {
  id: 'client-version-unsupported',
  role: 'client',
  title: 'a protocolVersion the client does not speak: nothing but shutdown / exit, then it leaves',
  checks: ['client.version.unsupported-stops', 'client.lifecycle.after-shutdown'],
  async run(ctx) {
    const conn = await ctx.accept();
    // A v1 client has no older version to be downgraded to within the schema (versions are
    // positive), so the fake daemon answers one above the newest the client sent: equally
    // a version it does not speak (versioning.md#versioning-downgrade).
    let answeredAt: number | undefined;
    conn.handle(Methods.Initialize.method, (params) => {
      const requested = requestedVersion(params);
      answeredAt = conn.messages.length;
      return {
        protocolVersion: (typeof requested === 'number' ? requested : ctx.protocolVersion) + 1,
        serverInfo: { name: 'arbor-conformance-fake-daemon', version: '0.1.0' },
        capabilities: ctx.daemonCapabilities,
        clientId: 'conformance-client',
      };
    });
    conn.handle(Methods.SessionAttach.method, (params) => ({
      session: ctx.sessionInfo(),
      role: (params as JsonObject).role ?? 'controller',
      lastSeq: 0,
      replay: 'none',
    }));
    conn.handle(Methods.Shutdown.method, () => null);
    const isInitialize = (m: Incoming): boolean =>
      m.kind === 'request' && (m.message as JsonObject).method === Methods.Initialize.method;
    if (!(await conn.waitFor(isInitialize, timeouts.requestMs))) return; // initialize-first judges it
    const isExit = (m: Incoming): boolean =>
      m.kind === 'notification' && (m.message as JsonObject).method === Methods.Exit.method;
    const exit = await conn.waitFor(isExit, Math.max(2000, 2 * timeouts.requestMs));
    await sleep(200); // anything sent right after exit is still a violation
    const forbidden = conn.messages
      .slice(answeredAt ?? 0)
      .filter(
        (m) => m.kind === 'request' && (m.message as JsonObject).method !== Methods.Shutdown.method,
      )
      .map((m) => String((m.message as JsonObject).method));
    ctx.recorder.expect(
      'client.version.unsupported-stops',
      forbidden.length === 0 && (exit !== undefined || conn.closedFlag),
      forbidden.length > 0
        ? `after a protocolVersion it does not speak the client sent ${forbidden.join(', ')}`
        : 'the client neither sent exit nor closed the connection in time',
    );
    // Leaving without shutdown is allowed here; after a shutdown only exit may follow.
    const shutdownAt = conn.messages.findIndex(
      (m) => m.kind === 'request' && (m.message as JsonObject).method === Methods.Shutdown.method,
    );
    const after = shutdownAt < 0 ? [] : conn.messages.slice(shutdownAt + 1);
    const extra = after
      .filter(
        (m) =>
          !(m.kind === 'notification' && (m.message as JsonObject).method === Methods.Exit.method),
      )
      .map((m) => String((m.message as JsonObject | undefined)?.method ?? m.kind));
    ctx.recorder.expect(
      'client.lifecycle.after-shutdown',
      extra.length === 0,
      `after shutdown the client sent ${extra.join(', ')}`,
    );
  },
};

export const budget: Scenario<ClientContext> = {
  id: 'client-budget',
  role: 'client',
  title:
    'budget/exceeded and cost/summary do not end the turn, session/state idle does; duplicates are ignored',
  checks: ['client.budget.not-turn-end', 'client.events.duplicate-ignored'],
  async run(ctx) {
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    const turnId = 'turn-budget';
    const usage = { inputTokens: 30, outputTokens: 12 };
    const turnNode = { id: 't', parentId: null, kind: 'turn', name: 'turn', depth: 0 };
    ctx.emit(conn, Methods.SessionState.method, { state: 'running', turnId });
    ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId,
      nodes: [{ ...turnNode, status: 'running' }],
    });
    const chunk = { turnId, nodeId: 't', text: 'Partial answer.' };
    const chunkSeq = ctx.emit(conn, Methods.ChatChunk.method, chunk);
    ctx.emit(conn, Methods.BudgetExceeded.method, {
      turnId,
      nodeId: 't',
      kind: 'llm_calls',
      limit: 2,
      observed: 3,
    });
    ctx.emit(conn, Methods.CostSummary.method, {
      turnId,
      usage,
      cost: 0,
      currency: 'USD',
      byModel: [{ provider: 'scripted', model: 'scripted', calls: 3, usage, cost: 0 }],
    });
    await sleep(50);
    const during = await clientState(ctx, conn, 'client.budget.not-turn-end');
    if (!during) return;
    ctx.recorder.expect(
      'client.budget.not-turn-end',
      during.state === 'running',
      `after budget/exceeded and cost/summary (no idle yet) the client shows state ${String(during.state)}`,
    );
    // The same chunk again, with its old seq: a duplicate to ignore.
    ctx.emit(conn, Methods.ChatChunk.method, chunk, chunkSeq);
    ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId,
      nodes: [{ ...turnNode, status: 'error' }],
    });
    ctx.emit(conn, Methods.SessionState.method, {
      state: 'idle',
      turnId,
      stopReason: 'budget_exceeded',
      usage,
    });
    await sleep(50);
    const after = await clientState(ctx, conn, 'client.events.duplicate-ignored');
    if (!after) return;
    ctx.recorder.expect(
      'client.budget.not-turn-end',
      after.state === 'idle',
      `after session/state idle (budget_exceeded) the client shows state ${String(after.state)}`,
    );
    ctx.recorder.expect(
      'client.events.duplicate-ignored',
      after.text === chunk.text && after.lastSeq === ctx.lastSeq,
      `after a duplicate of seq ${chunkSeq} the client shows text ${JSON.stringify(after.text)} and lastSeq ${String(after.lastSeq)} (expected ${JSON.stringify(chunk.text)}, ${ctx.lastSeq})`,
    );
  },
};
