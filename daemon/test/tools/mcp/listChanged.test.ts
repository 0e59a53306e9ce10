/** notifications/tools/list_changed: the next turn gets the server's new tool list. */
import assert from 'node:assert/strict';
import { script } from '../../agent/harness.js';
import { toolResults, until } from '../../permissions/helpers.js';
import {
  fixtureServer,
  mcpDaemon,
  newSession,
  send,
  tempDir,
  turnEnd,
  type McpDaemon,
} from './mcpHarness.js';

describe('MCP: a changing tool list', function () {
  this.timeout(30_000);
  let daemon: McpDaemon | undefined;
  after(async () => {
    await daemon?.close();
  });

  it('a tool the server adds during a session is offered from the next turn on', async () => {
    daemon = mcpDaemon(
      script({
        grow: [
          { toolCalls: [{ id: 'c1', name: 'mcp__fragile__grow', arguments: {} }] },
          { text: 'grew' },
        ],
        'use it': [
          { toolCalls: [{ id: 'c2', name: 'mcp__fragile__grown', arguments: {} }] },
          { text: 'used' },
        ],
      }),
      { fragile: fixtureServer('fragileServer.mjs') },
    );
    const client = await daemon.connect();
    const root = tempDir();
    const sessionId = await newSession(client, root);
    await turnEnd(client, await send(client, sessionId, 'grow'));
    const firstOffer = daemon.provider.requests[0]!.tools!.map((tool) => tool.name);
    assert.ok(!firstOffer.includes('mcp__fragile__grown'));
    // The SDK refetches the list shortly after the notification (debounced).
    let tools: string[] = [];
    await until(() => {
      void daemon!.hub
        .statusOf(root)
        .then(({ servers }) => (tools = servers[0]!.tools.map((tool) => tool.name)));
      return tools.includes('mcp__fragile__grown');
    }, 5000);
    await turnEnd(client, await send(client, sessionId, 'use it'));
    const last = toolResults(daemon.provider).pop()!;
    assert.deepEqual(
      [last.name, last.content, last.isError],
      ['mcp__fragile__grown', 'grown here', false],
    );
    // No annotations: an external tool, so default mode asked first.
    assert.deepEqual(
      client.approvals.map((ask) => ask['name']),
      ['mcp__fragile__grown'],
    );
  });
});
