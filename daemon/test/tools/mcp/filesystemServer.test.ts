/**
 * @modelcontextprotocol/server-filesystem on a temp dir, through the real
 * permission gate: its annotations make read_text_file a read tool and
 * write_file a write tool, so default mode asks before a write only, and
 * plan mode blocks the write before the server ever sees it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { script } from '../../agent/harness.js';
import { toolResults } from '../../permissions/helpers.js';
import {
  mcpDaemon,
  newSession,
  send,
  serverBin,
  tempDir,
  toolNodes,
  turnEnd,
  type McpDaemon,
} from './mcpHarness.js';

const READ = 'mcp__fs__read_text_file';
const WRITE = 'mcp__fs__write_file';

describe('MCP: server-filesystem through the permission gate', function () {
  this.timeout(30_000);
  let daemon: McpDaemon | undefined;
  let root: string;
  beforeEach(() => {
    root = tempDir();
    writeFileSync(join(root, 'notes.txt'), 'kept notes');
  });
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
  });

  const readThenWrite = () =>
    script({
      'read then write': [
        {
          toolCalls: [{ id: 'r1', name: READ, arguments: { path: join(root, 'notes.txt') } }],
        },
        {
          toolCalls: [
            {
              id: 'w1',
              name: WRITE,
              arguments: { path: join(root, 'out.txt'), content: 'written by the model' },
            },
          ],
        },
        { text: 'done' },
      ],
    });

  it('default mode: the read runs without asking, the write asks and then runs', async () => {
    daemon = mcpDaemon(readThenWrite(), {
      fs: { command: serverBin('mcp-server-filesystem'), args: [root] },
    });
    const client = await daemon.connect('allow');
    const sessionId = await newSession(client, root, 'default');
    await turnEnd(client, await send(client, sessionId, 'read then write'));
    assert.deepEqual(
      client.approvals.map((ask) => [ask['name'], ask['category']]),
      [[WRITE, 'write']],
      'exactly one approval, for the write',
    );
    const [read, write] = toolResults(daemon.provider);
    assert.equal(read!.content, 'kept notes');
    assert.equal(write!.isError, false);
    assert.equal(readFileSync(join(root, 'out.txt'), 'utf8'), 'written by the model');
  });

  it('default mode: a denied write never reaches the server', async () => {
    daemon = mcpDaemon(readThenWrite(), {
      fs: { command: serverBin('mcp-server-filesystem'), args: [root] },
    });
    const client = await daemon.connect('deny');
    const sessionId = await newSession(client, root, 'default');
    await turnEnd(client, await send(client, sessionId, 'read then write'));
    assert.equal(client.approvals.length, 1);
    assert.equal(toolNodes(client, WRITE)[0]!['status'], 'denied');
    assert.equal(existsSync(join(root, 'out.txt')), false);
  });

  it('plan mode: the read runs, the write is blocked without asking', async () => {
    daemon = mcpDaemon(readThenWrite(), {
      fs: { command: serverBin('mcp-server-filesystem'), args: [root] },
    });
    const client = await daemon.connect('allow');
    const sessionId = await newSession(client, root, 'plan');
    await turnEnd(client, await send(client, sessionId, 'read then write'));
    assert.equal(client.approvals.length, 0);
    assert.equal(toolNodes(client, READ)[0]!['status'], 'done');
    assert.equal(toolNodes(client, WRITE)[0]!['status'], 'blocked');
    assert.equal(existsSync(join(root, 'out.txt')), false);
  });

  it('a category override in the config makes the write a read tool: it runs in plan mode', async () => {
    daemon = mcpDaemon(readThenWrite(), {
      fs: {
        command: serverBin('mcp-server-filesystem'),
        args: [root],
        toolCategories: { write_file: 'read' },
      },
    });
    const client = await daemon.connect('allow');
    const sessionId = await newSession(client, root, 'plan');
    await turnEnd(client, await send(client, sessionId, 'read then write'));
    assert.equal(toolNodes(client, WRITE)[0]!['status'], 'done');
    assert.equal(readFileSync(join(root, 'out.txt'), 'utf8'), 'written by the model');
  });
});
