/**
 * MCP tools from @modelcontextprotocol/server-everything, the reference
 * server, run through the real agent loop: offered as mcp__everything__*,
 * called, their progress shown in the tree, cancelled with the turn; and
 * the same server over Streamable HTTP on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Methods, type ToolInfo, type ToolsListResult } from '@arbor/protocol';
import Database from 'better-sqlite3';
import type { Script } from '@arbor/protocol';
import { script } from '../../agent/harness.js';
import { assertValid } from '../../helpers/schemas.js';
import { toolResults, until } from '../../permissions/helpers.js';
import {
  mcpDaemon,
  newSession,
  send,
  serverBin,
  tempDir,
  toolNodes,
  toolNodeUpdates,
  turnEnd,
  type McpDaemon,
} from './mcpHarness.js';

const EVERYTHING = { everything: { command: serverBin('mcp-server-everything') } };
const call = (name: string, args: unknown) => ({
  toolCalls: [{ id: 'call_1', name: `mcp__everything__${name}`, arguments: args }],
});

describe('MCP: server-everything over stdio', function () {
  this.timeout(30_000);
  let daemon: McpDaemon | undefined;
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
  });

  it('tools/list shows its tools with origin mcp:everything, schema and category from annotations', async () => {
    daemon = mcpDaemon(script({}), EVERYTHING);
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir(), 'default');
    const result: unknown = await client.request(Methods.ToolsList, { sessionId });
    assertValid(Methods.ToolsList.result, result, 'tools/list result');
    const tools = (result as { tools: ToolInfo[] }).tools;
    const echo = tools.find((tool) => tool.name === 'mcp__everything__echo');
    assert.ok(echo, 'echo is listed');
    assert.equal(echo.origin, 'mcp:everything');
    assert.equal(echo.category, 'read');
    assert.equal(echo.permission, 'run');
    assert.deepEqual((echo.inputSchema['properties'] as Record<string, unknown>)['message'], {
      type: 'string',
      description: 'Message to echo',
    });
    // No readOnlyHint, no destructiveHint: it may reach outside, so it asks.
    const gzip = tools.find((tool) => tool.name === 'mcp__everything__gzip-file-as-resource');
    assert.equal(gzip?.category, 'external');
    assert.equal(gzip?.permission, 'ask');
    assert.ok(tools.some((tool) => tool.name === 'read_file' && tool.origin === 'daemon'));
    const mcpTools = tools.filter((tool) => tool.origin === 'mcp:everything').length;
    assert.deepEqual((result as ToolsListResult).servers, [
      { origin: 'mcp:everything', status: 'ready', toolCount: mcpTools },
    ]);
    // Without a session: the built-in tools, no servers (tools-list-servers-session).
    const builtins = await client.request(Methods.ToolsList, {});
    assert.equal(builtins.servers, undefined);
  });

  it('echo and get-sum run through the agent loop; the model gets their text', async () => {
    daemon = mcpDaemon(
      script({
        'echo and add': [
          {
            toolCalls: [
              { id: 'c1', name: 'mcp__everything__echo', arguments: { message: 'hello' } },
              { id: 'c2', name: 'mcp__everything__get-sum', arguments: { a: 2, b: 3 } },
            ],
          },
          { text: 'done' },
        ],
      }),
      EVERYTHING,
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir(), 'default');
    const end = await turnEnd(client, await send(client, sessionId, 'echo and add'), 20_000);
    assert.equal(end['stopReason'], 'end_turn');
    const offered = daemon.provider.requests[0]!.tools!.map((tool) => tool.name);
    assert.ok(
      offered.includes('mcp__everything__echo') && offered.includes('mcp__everything__get-sum'),
    );
    const results = toolResults(daemon.provider);
    assert.deepEqual(
      results.map((r) => [r.name, r.content, r.isError ?? false]),
      [
        ['mcp__everything__echo', 'Echo: hello', false],
        ['mcp__everything__get-sum', 'The sum of 2 and 3 is 5.', false],
      ],
    );
    // Read tools: no approval was asked in default mode.
    assert.equal(client.approvals.length, 0);
    assert.equal(toolNodes(client, 'mcp__everything__echo')[0]!['status'], 'done');
  });

  it('a long-running call shows its progress in its tree node while it runs', async () => {
    daemon = mcpDaemon(
      script({
        'take your time': [
          call('trigger-long-running-operation', { duration: 1.2, steps: 3 }),
          { text: 'done' },
        ],
      }),
      EVERYTHING,
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir(), 'default');
    await turnEnd(client, await send(client, sessionId, 'take your time'), 20_000);
    const updates = toolNodeUpdates(client, 'mcp__everything__trigger-long-running-operation');
    const progress = updates
      .filter((node) => node['status'] === 'running' && node['progress'])
      .map((node) => node['progress'] as { progress: number; total?: number });
    // The last step's notification may arrive after the result: the result wins then.
    assert.deepEqual(
      progress.map((p) => `${p.progress}/${p.total}`),
      ['1/3', '2/3', '3/3'].slice(0, progress.length),
    );
    assert.ok(progress.length >= 2, `progress seen while running: ${JSON.stringify(progress)}`);
    const final = updates[updates.length - 1]!;
    assert.equal(final['status'], 'done');
    assert.equal(final['progress'], null, 'the final upsert clears the progress');
    assert.match(String(final['resultPreview']), /Long running operation completed/);
  });

  it('with emitProgress off the node shows no progress, and the call still completes', async () => {
    daemon = mcpDaemon(
      script({
        quietly: [
          call('trigger-long-running-operation', { duration: 0.6, steps: 3 }),
          { text: 'done' },
        ],
      }),
      EVERYTHING,
      { emitProgress: false },
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir(), 'default');
    await turnEnd(client, await send(client, sessionId, 'quietly'));
    const updates = toolNodeUpdates(client, 'mcp__everything__trigger-long-running-operation');
    assert.deepEqual(
      updates.filter((node) => node['progress'] !== undefined),
      [],
    );
    assert.equal(updates[updates.length - 1]!['status'], 'done');
  });

  it('cancelling the turn mid-call ends the node cancelled, promptly', async () => {
    daemon = mcpDaemon(
      script({
        'run long': [
          call('trigger-long-running-operation', { duration: 30, steps: 60 }),
          { text: 'never' },
        ],
      }),
      EVERYTHING,
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir(), 'default');
    const turnId = await send(client, sessionId, 'run long');
    const name = 'mcp__everything__trigger-long-running-operation';
    // Cancel once the server is visibly working on it.
    await until(
      () =>
        toolNodeUpdates(client, name).some(
          (n) => (n['progress'] as { progress?: number } | null | undefined)?.progress === 1,
        ),
      15_000,
    );
    const cancelledAt = Date.now();
    await client.request(Methods.ChatCancel, { sessionId });
    const end = await turnEnd(client, turnId, 10_000);
    assert.equal(end['stopReason'], 'cancelled');
    assert.ok(Date.now() - cancelledAt < 5000, 'the call did not run on to its end');
    assert.equal(toolNodes(client, name)[0]!['status'], 'cancelled');
  });

  it('an isError result reaches the model as an error result and the node ends in error', async () => {
    daemon = mcpDaemon(
      script({
        compress: [
          call('gzip-file-as-resource', { name: 'x.gz', data: 'ftp://127.0.0.1/x' }),
          { text: 'it failed' },
        ],
      }),
      EVERYTHING,
    );
    const client = await daemon.connect('allow');
    const sessionId = await newSession(client, tempDir(), 'default');
    const end = await turnEnd(client, await send(client, sessionId, 'compress'), 20_000);
    assert.equal(end['stopReason'], 'end_turn');
    const [result] = toolResults(daemon.provider);
    assert.equal(result!.isError, true);
    assert.match(result!.content, /Unsupported URL protocol/);
    assert.equal(
      toolNodes(client, 'mcp__everything__gzip-file-as-resource')[0]!['status'],
      'error',
    );
  });

  const showMe = (): Script =>
    script({
      'show me': [
        {
          toolCalls: [
            { id: 'c1', name: 'mcp__everything__get-tiny-image', arguments: {} },
            {
              id: 'c2',
              name: 'mcp__everything__gzip-file-as-resource',
              arguments: {
                name: 'hello.gz',
                data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=',
                outputType: 'resource',
              },
            },
          ],
        },
        { text: 'seen' },
      ],
      'and now?': [{ text: 'still seen' }],
    });
  type SentResult = { content: string; isError?: boolean; images?: { mimeType: string }[] };

  it('an image goes to a model that reads images, named in the text; a binary resource is a note', async () => {
    daemon = mcpDaemon(showMe(), EVERYTHING);
    const client = await daemon.connect('allow');
    const sessionId = await newSession(client, tempDir(), 'default');
    await turnEnd(client, await send(client, sessionId, 'show me'), 20_000);
    const [image, resource] = toolResults(daemon.provider) as SentResult[];
    assert.equal(image!.isError, false);
    assert.match(
      image!.content,
      /^Here's the image you requested:\n\[image image\/png, \d+ bytes, attached\]/,
    );
    assert.match(image!.content, /The image above is the MCP logo\.$/);
    assert.ok(!image!.content.includes('iVBORw0KGgo'), 'no base64 in the text');
    assert.deepEqual(
      image!.images?.map((i) => i.mimeType),
      ['image/png'],
    );
    assert.match(resource!.content, /\[resource \S*hello\.gz.*bytes of binary data: not shown\]/);

    // The next turn sends the earlier result as text: images go only with the turn that got them.
    await turnEnd(client, await send(client, sessionId, 'and now?'), 20_000);
    const later = daemon.provider.requests
      .at(-1)!
      .messages.find((m) => m.role === 'tool' && m.name === 'mcp__everything__get-tiny-image') as
      SentResult | undefined;
    assert.ok(later, 'the earlier tool result is in the next request');
    assert.equal(later.images, undefined);
    assert.match(
      later.content,
      /\[an image left out: images go to the model only in the turn that got them\]$/,
    );
    const db = new Database(daemon.store.path, { readonly: true });
    const stored = JSON.stringify(db.prepare('SELECT messages FROM turn_contexts').all());
    db.close();
    assert.match(stored, /get-tiny-image/);
    assert.ok(!stored.includes('iVBORw0KGgo'), 'no image data in the store');
  });

  it('a model that reads no images gets the result text and a note instead', async () => {
    daemon = mcpDaemon(showMe(), EVERYTHING, {}, { images: false });
    const client = await daemon.connect('allow');
    const sessionId = await newSession(client, tempDir(), 'default');
    await turnEnd(client, await send(client, sessionId, 'show me'), 20_000);
    const [image] = toolResults(daemon.provider) as SentResult[];
    assert.equal(image!.images, undefined);
    assert.match(image!.content, /\[an image left out: this model reads text only\]$/);
  });
});

describe('MCP: server-everything over Streamable HTTP', function () {
  this.timeout(30_000);
  let server: ChildProcess | undefined;
  let daemon: McpDaemon | undefined;
  after(async () => {
    await daemon?.close();
    server?.kill();
  });

  it('echo runs against the server on 127.0.0.1', async () => {
    const port = await freePort();
    server = spawn(process.execPath, [serverBin('mcp-server-everything'), 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    server.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await until(() => stderr.includes(`listening on port ${port}`), 15_000);
    daemon = mcpDaemon(
      script({
        echo: [
          {
            toolCalls: [{ id: 'c1', name: 'mcp__web__echo', arguments: { message: 'over http' } }],
          },
          { text: 'ok' },
        ],
      }),
      { web: { url: `http://127.0.0.1:${port}/mcp` } },
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir(), 'default');
    await turnEnd(client, await send(client, sessionId, 'echo'), 20_000);
    const [result] = toolResults(daemon.provider);
    assert.equal(result!.content, 'Echo: over http');
    assert.equal(result!.isError, false);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
