/**
 * Undo through the protocol (checkpoints.md): a turn that edits, creates and
 * deletes files — whichever tool does it — lists them on its turn node, its
 * diff can be read, and checkpoint/restore puts the workspace back exactly,
 * refusing to overwrite what someone else changed since unless forced.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ArborErrorCodes,
  Methods,
  StoredMessage,
  TurnChanges,
  type ExecutionTreeNode,
} from '@arbor/protocol';
import { script } from '../agent/harness.js';
import {
  newSession,
  permDaemon,
  send,
  tempDir,
  treeNodes,
  turnEnd,
  until,
  type PermClient,
  type PermDaemon,
} from '../permissions/helpers.js';

const write = (id: string, path: string, content: string) => ({
  id,
  name: 'write_file',
  arguments: { path, content },
});
const command = (id: string, cmd: string) => ({
  id,
  name: 'run_command',
  arguments: { command: cmd },
});

const edits = script({
  'change things': [
    {
      toolCalls: [
        write('w1', 'a.txt', 'alpha\nBETA\ngamma\n'),
        write('w2', 'new/b.txt', 'fresh\n'),
        command('c1', 'rm c.txt'),
      ],
    },
    { text: 'changed' },
  ],
  'change a again': [{ toolCalls: [write('w3', 'a.txt', 'second\n')] }, { text: 'again' }],
  'just look': [
    { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }] },
    { text: 'looked' },
  ],
  'ask first': [{ toolCalls: [write('w4', 'a.txt', 'asked\n')] }, { text: 'asked' }],
});

function turnNode(client: PermClient, turnId: string): ExecutionTreeNode {
  return treeNodes(client).get(turnId) as unknown as ExecutionTreeNode;
}

async function rpcError(promise: Promise<unknown>): Promise<{ code: number; data?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; data?: unknown };
  }
  assert.fail('the request succeeded');
}

describe('checkpoints: what a turn changed, and undo', function () {
  this.timeout(30_000);
  let daemon: PermDaemon | undefined;
  let ws: string;
  const read = (path: string) => readFileSync(join(ws, path), 'utf8');

  beforeEach(() => {
    ws = tempDir();
    writeFileSync(join(ws, 'a.txt'), 'alpha\nbeta\ngamma\n');
    writeFileSync(join(ws, 'c.txt'), 'doomed\n');
    writeFileSync(join(ws, '.gitignore'), 'ignored.log\n');
    writeFileSync(join(ws, 'ignored.log'), 'user log\n');
  });
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
  });

  async function started(): Promise<{ client: PermClient; sessionId: string }> {
    daemon = permDaemon(edits, { checkpoints: true });
    const client = await daemon.connect();
    const sessionId = await newSession(client, ws, 'auto');
    return { client, sessionId };
  }

  it('the turn node lists every file the turn changed, from any tool, and load keeps it', async () => {
    const { client, sessionId } = await started();
    assert.deepEqual(client.daemonCapabilities['checkpoints'], {});
    const turnId = await send(client, sessionId, 'change things');
    await turnEnd(client, turnId);
    const changes = TurnChanges.parse(turnNode(client, turnId).changes);
    assert.equal(changes.restorable, true);
    assert.deepEqual(
      [...changes.files].sort((x, y) => x.path.localeCompare(y.path)),
      [
        { path: 'a.txt', status: 'modified', added: 1, removed: 1 },
        { path: 'c.txt', status: 'deleted', added: 0, removed: 1 },
        { path: 'new/b.txt', status: 'added', added: 1, removed: 0 },
      ],
    );
    for (const node of treeNodes(client).values()) {
      if (node['id'] !== turnId) assert.equal(node['changes'], undefined, 'only the turn node');
    }
    const loaded = (await client.request(Methods.SessionLoad, { sessionId })) as {
      messages: unknown[];
    };
    const stored = loaded.messages
      .map((m) => StoredMessage.parse(m))
      .find((m) => m.turnId === turnId && m.tree !== undefined);
    const storedTurn = stored?.tree?.nodes.find((n) => n.id === turnId);
    assert.deepEqual(storedTurn?.changes, turnNode(client, turnId).changes);
  });

  it('checkpoint/diff shows the turn’s changes, for one file or all', async () => {
    const { client, sessionId } = await started();
    const turnId = await send(client, sessionId, 'change things');
    await turnEnd(client, turnId);
    const all = (await client.request(Methods.CheckpointDiff, { sessionId, turnId })) as {
      diff: string;
      truncated: boolean;
    };
    assert.equal(all.truncated, false);
    assert.match(all.diff, /-beta\n\+BETA/);
    assert.match(all.diff, /new\/b\.txt/);
    assert.match(all.diff, /c\.txt/);
    const one = (await client.request(Methods.CheckpointDiff, {
      sessionId,
      turnId,
      path: 'a.txt',
    })) as { diff: string };
    assert.match(one.diff, /a\.txt/);
    assert.doesNotMatch(one.diff, /b\.txt|c\.txt/);
  });

  it('restore puts every file back exactly, and touches nothing else', async () => {
    const { client, sessionId } = await started();
    const turnId = await send(client, sessionId, 'change things');
    await turnEnd(client, turnId);
    writeFileSync(join(ws, 'ignored.log'), 'user log, later\n');
    writeFileSync(join(ws, 'unrelated.txt'), 'the user’s own file\n');
    const result = (await client.request(Methods.CheckpointRestore, { sessionId, turnId })) as {
      restored: string[];
    };
    assert.deepEqual([...result.restored].sort(), ['a.txt', 'c.txt', 'new/b.txt']);
    assert.equal(read('a.txt'), 'alpha\nbeta\ngamma\n');
    assert.equal(read('c.txt'), 'doomed\n');
    assert.equal(existsSync(join(ws, 'new/b.txt')), false);
    assert.equal(read('ignored.log'), 'user log, later\n');
    assert.equal(read('unrelated.txt'), 'the user’s own file\n');
  });

  it('a file changed outside since is reported, not overwritten, unless forced', async () => {
    const { client, sessionId } = await started();
    const first = await send(client, sessionId, 'change things');
    await turnEnd(client, first);
    const second = await send(client, sessionId, 'change a again');
    await turnEnd(client, second);
    assert.equal(read('a.txt'), 'second\n');
    writeFileSync(join(ws, 'a.txt'), 'the user edited this\n');

    const refused = await rpcError(
      client.request(Methods.CheckpointRestore, { sessionId, turnId: first }),
    );
    assert.equal(refused.code, ArborErrorCodes.CheckpointConflict);
    assert.deepEqual(refused.data, { files: ['a.txt'] });
    assert.equal(read('a.txt'), 'the user edited this\n', 'nothing changed');
    assert.equal(existsSync(join(ws, 'new/b.txt')), true, 'nothing changed');

    const forced = (await client.request(Methods.CheckpointRestore, {
      sessionId,
      turnId: first,
      force: true,
    })) as { restored: string[]; overwritten?: string[] };
    assert.deepEqual(forced.overwritten, ['a.txt']);
    assert.equal(read('a.txt'), 'alpha\nbeta\ngamma\n');
    assert.equal(existsSync(join(ws, 'new/b.txt')), false);
  });

  it('restoring the later turn first, then the earlier one, works from the restored state', async () => {
    const { client, sessionId } = await started();
    const first = await send(client, sessionId, 'change things');
    await turnEnd(client, first);
    const second = await send(client, sessionId, 'change a again');
    await turnEnd(client, second);
    await client.request(Methods.CheckpointRestore, { sessionId, turnId: second });
    assert.equal(read('a.txt'), 'alpha\nBETA\ngamma\n');
    await client.request(Methods.CheckpointRestore, { sessionId, turnId: first });
    assert.equal(read('a.txt'), 'alpha\nbeta\ngamma\n');
    assert.equal(read('c.txt'), 'doomed\n');
  });

  it('a turn that changed nothing has no changes and no checkpoint', async () => {
    const { client, sessionId } = await started();
    const turnId = await send(client, sessionId, 'just look');
    await turnEnd(client, turnId);
    assert.equal(turnNode(client, turnId).changes, undefined);
    const refused = await rpcError(
      client.request(Methods.CheckpointRestore, { sessionId, turnId }),
    );
    assert.equal(refused.code, ArborErrorCodes.CheckpointUnavailable);
    const unknown = await rpcError(
      client.request(Methods.CheckpointDiff, { sessionId, turnId: 'turn_nope' }),
    );
    assert.equal(unknown.code, ArborErrorCodes.CheckpointUnavailable);
  });

  it('observers may not restore, and nobody may while a turn runs', async () => {
    const { client, sessionId } = await started();
    const first = await send(client, sessionId, 'change things');
    await turnEnd(client, first);
    const observer = await daemon!.connect();
    await observer.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    const notController = await rpcError(
      observer.request(Methods.CheckpointRestore, { sessionId, turnId: first }),
    );
    assert.equal(notController.code, ArborErrorCodes.NotController);

    await client.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'default' });
    const running = await send(client, sessionId, 'ask first');
    await until(() => client.asks.length === 1);
    const busy = await rpcError(
      client.request(Methods.CheckpointRestore, { sessionId, turnId: first }),
    );
    assert.equal(busy.code, ArborErrorCodes.TurnInProgress);
    assert.equal(existsSync(join(ws, 'new/b.txt')), true, 'nothing changed');
    client.asks[0]!.answer({ decision: 'deny' });
    await turnEnd(client, running);
  });
});
