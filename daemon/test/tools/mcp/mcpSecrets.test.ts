/**
 * Secrets in an MCP server's configured env reach the server and nothing
 * else: not the model, the wire, the logs or the store — even when the
 * server prints them (server-everything's get-env prints its whole
 * environment; the fixture's `leak` prints its token). And the daemon's own
 * keys never reach the server.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import { script } from '../../agent/harness.js';
import { toolResults } from '../../permissions/helpers.js';
import {
  fixtureServer,
  mcpDaemon,
  newSession,
  send,
  serverBin,
  tempDir,
  turnEnd,
  type McpDaemon,
} from './mcpHarness.js';

const CANARY = 'canary-4f1d9a7e3c2b8d6f';
const DAEMON_KEY = 'sk-daemon-own-key-7b3e9f1a2c4d';

describe('MCP: secrets in a server env', function () {
  this.timeout(30_000);
  let daemon: McpDaemon | undefined;
  const saved = process.env['OPENAI_API_KEY'];
  before(() => (process.env['OPENAI_API_KEY'] = DAEMON_KEY));
  after(async () => {
    if (saved === undefined) delete process.env['OPENAI_API_KEY'];
    else process.env['OPENAI_API_KEY'] = saved;
    await daemon?.close();
  });

  it('a canary in env never appears on the wire, to the model, in the logs or the store', async () => {
    const env = { CANARY_API_TOKEN: CANARY };
    daemon = mcpDaemon(
      script({
        'show env': [
          {
            toolCalls: [
              { id: 'c1', name: 'mcp__everything__get-env', arguments: {} },
              { id: 'c2', name: 'mcp__fragile__leak', arguments: {} },
            ],
          },
          { text: 'seen' },
        ],
      }),
      {
        everything: { command: serverBin('mcp-server-everything'), env },
        fragile: { ...fixtureServer('fragileServer.mjs'), env },
      },
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, tempDir());
    await turnEnd(client, await send(client, sessionId, 'show env'));
    const listed: unknown = await client.request(Methods.ToolsList, { sessionId });

    const [everything, leak] = toolResults(daemon.provider);
    const serverEnv = JSON.parse(everything!.content) as Record<string, string>;
    // The server had it (it printed the variable), and what it printed was redacted.
    assert.equal(serverEnv['CANARY_API_TOKEN'], '[redacted]');
    // The daemon's own key was never in the server's environment.
    assert.equal(serverEnv['OPENAI_API_KEY'], undefined);
    assert.equal(leak!.content, 'token=[redacted]');

    const wire = JSON.stringify([client.events, listed]);
    assert.ok(wire.includes('token=[redacted]'), 'the leaking result went out, redacted');
    assert.ok(!wire.includes(CANARY), 'not on the wire');
    assert.ok(!JSON.stringify(daemon.provider.requests).includes(CANARY), 'not to the model');
    assert.ok(
      daemon.logs.some((line) => line.includes('leaking [redacted]')),
      'stderr is logged',
    );
    assert.ok(!daemon.logs.join('\n').includes(CANARY), 'not in the logs');
    const stored = readdirSync(daemon.dataDir)
      .filter((name) => name.startsWith('arbor.db'))
      .map((name) => readFileSync(join(daemon!.dataDir, name)).toString('latin1'))
      .join('');
    assert.ok(stored.includes('token=[redacted]'), 'the store holds the result preview');
    assert.ok(!stored.includes(CANARY), 'not in the store');
  });
});
