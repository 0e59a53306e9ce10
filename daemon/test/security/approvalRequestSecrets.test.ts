/**
 * A daemon-to-client request carries no secret the daemon knows of
 * (security.md#security-no-secrets-on-wire): the arguments of a call that asks
 * for approval reach the controllers with credentials redacted, like events.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { script } from '../agent/harness.js';
import {
  mcpDaemon,
  newSession,
  send,
  tempDir,
  turnEnd,
  type McpDaemon,
} from '../tools/mcp/mcpHarness.js';

const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;

describe('secrets: tool/approvalRequest', function () {
  this.timeout(20_000);
  let daemon: McpDaemon | undefined;
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
  });

  it('a web_fetch URL with credentials is asked with the password redacted', async () => {
    const url = `http://me:${PASSWORD}@127.0.0.1:9/private`;
    daemon = mcpDaemon(
      script({
        fetch: [
          { toolCalls: [{ id: 'c1', name: 'web_fetch', arguments: { url } }] },
          { text: 'done' },
        ],
      }),
      {},
    );
    const client = await daemon.connect('deny');
    const sessionId = await newSession(client, tempDir(), 'default');
    await turnEnd(client, await send(client, sessionId, 'fetch'));
    assert.equal(client.approvals.length, 1, 'web_fetch (external) asks in default mode');
    const asked = JSON.stringify(client.approvals[0]);
    assert.ok(!asked.includes(PASSWORD), asked);
    assert.match(asked, /me:\[redacted\]@127\.0\.0\.1/);
  });
});
