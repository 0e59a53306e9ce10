/**
 * Broken MCP servers cost only their own tools: a command that does not
 * exist, a server that never answers initialize, one that dies in the middle
 * of a call (the fixture) — each gets an error status with the reason, the
 * turn goes on, and a crashed server is started again after its backoff.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods, type ToolsListResult } from '@arbor/protocol';
import { script } from '../../agent/harness.js';
import { toolResults, until } from '../../permissions/helpers.js';
import {
  fixtureServer,
  mcpDaemon,
  newSession,
  send,
  serverBin,
  tempDir,
  toolNodeUpdates,
  toolNodes,
  turnEnd,
  type McpDaemon,
} from './mcpHarness.js';

describe('MCP: broken servers', function () {
  this.timeout(30_000);
  let daemon: McpDaemon | undefined;
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
  });

  it('a command that does not exist: error status, the other server works, the turn goes on', async () => {
    daemon = mcpDaemon(
      script({
        echo: [
          {
            toolCalls: [
              { id: 'c1', name: 'mcp__missing__anything', arguments: {} },
              { id: 'c2', name: 'mcp__everything__echo', arguments: { message: 'still here' } },
            ],
          },
          { text: 'done' },
        ],
      }),
      {
        missing: { command: 'arbor-test-no-such-mcp-server' },
        everything: { command: serverBin('mcp-server-everything') },
      },
    );
    const client = await daemon.connect();
    const root = tempDir();
    const sessionId = await newSession(client, root);
    const end = await turnEnd(client, await send(client, sessionId, 'echo'));
    assert.equal(end['stopReason'], 'end_turn');
    const [missing, echo] = toolResults(daemon.provider);
    assert.equal(missing!.isError, true);
    assert.match(missing!.content, /^Unknown tool "mcp__missing__anything"/);
    assert.equal(echo!.content, 'Echo: still here');
    const { servers } = await daemon.hub.statusOf(root);
    const status = servers.find((server) => server.name === 'missing')!;
    assert.equal(status.state, 'error');
    assert.match(status.message!, /command not found/);
    assert.deepEqual(status.tools, []);
    // What a client sees (tools.md#tools-list-servers): why mcp__missing__* is not there.
    const listed = (await client.request(Methods.ToolsList, { sessionId })) as ToolsListResult;
    const everything = listed.tools.filter((tool) => tool.origin === 'mcp:everything').length;
    assert.ok(everything > 0);
    assert.ok(!listed.tools.some((tool) => tool.origin === 'mcp:missing'));
    assert.deepEqual(
      listed.servers?.map(({ origin, status: state, toolCount }) => ({ origin, state, toolCount })),
      [
        { origin: 'mcp:missing', state: 'error', toolCount: undefined },
        { origin: 'mcp:everything', state: 'ready', toolCount: everything },
      ],
    );
    assert.match(listed.servers![0]!.message!, /command not found/);
  });

  it("an untrusted workspace's .arbor/mcp.json: its servers are listed disabled, with why, and never start", async () => {
    daemon = mcpDaemon(script({}), {});
    const client = await daemon.connect();
    const root = tempDir();
    const marker = join(root, 'started');
    mkdirSync(join(root, '.arbor'));
    writeFileSync(
      join(root, '.arbor', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          repo: {
            command: process.execPath,
            args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`],
          },
        },
      }),
    );
    const sessionId = await newSession(client, root);
    const listed = await client.request(Methods.ToolsList, { sessionId });
    assert.equal(listed.servers.length, 1);
    assert.equal(listed.servers[0].origin, 'mcp:repo');
    assert.equal(listed.servers[0].status, 'disabled');
    assert.match(
      listed.servers[0].message,
      /mcp\.json is not trusted: a workspace's file could run any command as you/,
    );
    assert.ok(!listed.tools.some((tool: { origin: string }) => tool.origin === 'mcp:repo'));
    assert.equal(existsSync(marker), false, 'the command never ran');
  });

  it('a server that never answers initialize times out with a clear status', async () => {
    daemon = mcpDaemon(
      script({}),
      { silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
      { initializeTimeoutMs: 500 },
    );
    const started = Date.now();
    const { servers } = await daemon.hub.statusOf(tempDir());
    assert.ok(Date.now() - started < 5000);
    assert.equal(servers[0]!.state, 'error');
    assert.match(servers[0]!.message!, /^did not start within 500 ms/);
  });

  it('cancelling a turn that waits for a server still starting ends it at once', async () => {
    daemon = mcpDaemon(
      script({ hi: [{ text: 'never' }] }),
      { silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
      { initializeTimeoutMs: 20_000 },
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir());
    const turnId = await send(client, sessionId, 'hi');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelledAt = Date.now();
    await client.request(Methods.ChatCancel, { sessionId });
    const end = await turnEnd(client, turnId, 10_000);
    assert.equal(end['stopReason'], 'cancelled');
    assert.ok(Date.now() - cancelledAt < 3000, 'not held by the initialize timeout');
    assert.equal(daemon.provider.requests.length, 0, 'the model was never called');
  });

  it('a server that crashes mid-call: an error result with its stderr, the turn goes on, it restarts', async () => {
    daemon = mcpDaemon(
      script({
        'crash it': [
          { toolCalls: [{ id: 'c1', name: 'mcp__fragile__crash', arguments: {} }] },
          { text: 'carried on' },
        ],
      }),
      { fragile: fixtureServer('fragileServer.mjs') },
    );
    const client = await daemon.connect();
    const root = tempDir();
    const sessionId = await newSession(client, root);
    const turnId = await send(client, sessionId, 'crash it');
    const end = await turnEnd(client, turnId);
    assert.equal(end['stopReason'], 'end_turn');
    const [result] = toolResults(daemon.provider);
    assert.equal(result!.isError, true);
    assert.match(result!.content, /^MCP server fragile could not run crash: .*closed/i);
    assert.match(result!.content, /crashing on purpose/);
    assert.equal(toolNodes(client, 'mcp__fragile__crash')[0]!['status'], 'error');
    const text = client
      .eventsOf(Methods.ChatChunk)
      .map((chunk) => chunk['text'])
      .join('');
    assert.equal(text, 'carried on');
    // Its status said why, and after a backoff of 1 s it came back by itself, no turn needed.
    assert.ok(
      daemon.logs.some((line) =>
        /^warn: fragile: the server closed the connection \(stderr: .*crashing on purpose/.test(
          line,
        ),
      ),
      daemon.logs.join('\n'),
    );
    assert.ok(daemon.logs.includes('info: fragile: restarting in 1000 ms'));
    await until(
      () => daemon!.logs.filter((line) => /fragile: ready with/.test(line)).length === 2,
      10_000,
    );
    const { servers } = await daemon.hub.statusOf(root);
    assert.equal(servers[0]!.state, 'ready');
  });

  it('cancelling the turn sends notifications/cancelled: the server sees its call aborted', async () => {
    const marker = join(tempDir(), 'cancelled');
    daemon = mcpDaemon(
      script({
        wait: [
          { toolCalls: [{ id: 'c1', name: 'mcp__fragile__wait', arguments: {} }] },
          { text: 'never' },
        ],
      }),
      { fragile: { ...fixtureServer('fragileServer.mjs'), env: { CANCEL_MARKER: marker } } },
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir());
    const turnId = await send(client, sessionId, 'wait');
    await until(
      () => toolNodeUpdates(client, 'mcp__fragile__wait').some((n) => n['status'] === 'running'),
      15_000,
    );
    assert.equal(existsSync(marker), false);
    await client.request(Methods.ChatCancel, { sessionId });
    assert.equal((await turnEnd(client, turnId))['stopReason'], 'cancelled');
    assert.equal(toolNodes(client, 'mcp__fragile__wait')[0]!['status'], 'cancelled');
    // The server creates the file, then writes it: wait for the content, not the name.
    await until(() => existsSync(marker) && readFileSync(marker, 'utf8') === 'cancelled', 5000);
  });
});
