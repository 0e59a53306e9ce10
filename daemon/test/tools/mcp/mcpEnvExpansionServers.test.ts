/**
 * `${VAR}` in server definitions with real servers: server-everything started
 * from a command, an argument and an env value that all come from the
 * daemon's environment; a Streamable HTTP server that requires the bearer
 * token of a `${VAR}` header and echoes it back (redacted before the model
 * sees it); and an unset variable reported on the wire as the server's error.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Methods, type ToolsListResult } from '@arbor/protocol';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { script } from '../../agent/harness.js';
import { toolResults } from '../../permissions/helpers.js';
import {
  mcpDaemon,
  newSession,
  send,
  serverBin,
  tempDir,
  turnEnd,
  type McpDaemon,
} from './mcpHarness.js';

const TOKEN = 'bearer-8d3f6a1c9e2b7d4f';

/** A stateless MCP server over HTTP with one tool, `whoami`, behind a bearer token. */
async function tokenServer(): Promise<{ port: number; close(): Promise<void> }> {
  const http: Server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end('unauthorized');
      return;
    }
    const server = new McpServer({ name: 'tracker', version: '1.0.0' });
    server.registerTool(
      'whoami',
      {
        description: 'Shows the credentials it was called with',
        annotations: { readOnlyHint: true },
      },
      (extra) => ({
        content: [
          {
            type: 'text',
            text: `authorization: ${String(extra.requestInfo?.headers.authorization)}`,
          },
        ],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void server.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        http.close(() => resolve());
        // The client's open GET stream would keep it up.
        http.closeAllConnections();
      }),
  };
}

describe('MCP: ${VAR} in server definitions, with real servers', function () {
  this.timeout(30_000);
  const VARS = [
    'ARBOR_TEST_EVERYTHING_BIN',
    'ARBOR_TEST_GREETING',
    'ARBOR_TEST_TRACKER_PORT',
    'MCP_TEST_BEARER',
  ];
  let daemon: McpDaemon | undefined;
  afterEach(async () => {
    for (const name of VARS) delete process.env[name];
    await daemon?.close();
    daemon = undefined;
  });

  it('server-everything runs from a command, an argument and an env value given by variables', async () => {
    process.env['ARBOR_TEST_EVERYTHING_BIN'] = serverBin('mcp-server-everything');
    process.env['ARBOR_TEST_GREETING'] = 'hello from the daemon env';
    daemon = mcpDaemon(
      script({
        'show env': [
          { toolCalls: [{ id: 'c1', name: 'mcp__everything__get-env', arguments: {} }] },
          { text: 'seen' },
        ],
      }),
      {
        everything: {
          command: '${ARBOR_TEST_EVERYTHING_BIN}',
          args: ['${ARBOR_TEST_TRANSPORT:-stdio}'],
          env: { GREETING: '${ARBOR_TEST_GREETING}', LITERAL: '$ARBOR_TEST_GREETING' },
        },
      },
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir());
    const end = await turnEnd(client, await send(client, sessionId, 'show env'));
    assert.equal(end['stopReason'], 'end_turn');
    const [result] = toolResults(daemon.provider);
    const env = JSON.parse(result!.content) as Record<string, string>;
    assert.equal(env['GREETING'], 'hello from the daemon env');
    assert.equal(env['LITERAL'], '$ARBOR_TEST_GREETING', 'the unbraced form is passed as written');
  });

  it('a bearer token from ${VAR} in a header authenticates, and what the server echoes of it is redacted', async () => {
    const tracker = await tokenServer();
    try {
      process.env['ARBOR_TEST_TRACKER_PORT'] = String(tracker.port);
      // A name without "TOKEN" or "KEY": only the Authorization header says it is a credential.
      process.env['MCP_TEST_BEARER'] = TOKEN;
      daemon = mcpDaemon(
        script({
          'who am i': [
            { toolCalls: [{ id: 'c1', name: 'mcp__tracker__whoami', arguments: {} }] },
            { text: 'known' },
          ],
        }),
        {
          tracker: {
            url: 'http://127.0.0.1:${ARBOR_TEST_TRACKER_PORT}/mcp',
            headers: { Authorization: 'Bearer ${MCP_TEST_BEARER}' },
          },
        },
      );
      const client = await daemon.connect();
      const sessionId = await newSession(client, tempDir());
      const end = await turnEnd(client, await send(client, sessionId, 'who am i'));
      assert.equal(end['stopReason'], 'end_turn');
      const [result] = toolResults(daemon.provider);
      // It answered, so it got the token; what it said of it is redacted.
      assert.equal(result!.content, 'authorization: [redacted]');
      const listed: unknown = await client.request(Methods.ToolsList, { sessionId });
      const wire = JSON.stringify([client.events, listed]);
      assert.ok(!wire.includes(TOKEN), 'not on the wire');
      assert.ok(!JSON.stringify(daemon.provider.requests).includes(TOKEN), 'not to the model');
      assert.ok(!daemon.logs.join('\n').includes(TOKEN), 'not in the logs');
    } finally {
      await tracker.close();
    }
  });

  it('a server whose variable is unset is reported in error by tools/list, naming it', async () => {
    process.env['ARBOR_TEST_EVERYTHING_BIN'] = serverBin('mcp-server-everything');
    daemon = mcpDaemon(script({}), {
      everything: { command: '${ARBOR_TEST_EVERYTHING_BIN}' },
      tracker: { url: 'http://127.0.0.1:${ARBOR_TEST_TRACKER_PORT}/mcp' },
    });
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir());
    const result = (await client.request(Methods.ToolsList, {
      sessionId,
    })) as ToolsListResult;
    const [everything, tracker] = result.servers!;
    assert.equal(everything!.status, 'ready');
    assert.deepEqual(tracker, {
      origin: 'mcp:tracker',
      status: 'error',
      message:
        "environment variable ARBOR_TEST_TRACKER_PORT is not set in the daemon's environment " +
        '(write ${ARBOR_TEST_TRACKER_PORT:-default} for a default)',
    });
  });
});
