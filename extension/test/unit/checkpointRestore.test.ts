/**
 * "Restore to before this turn" as the host runs it, minus VS Code's dialogs:
 * against a real daemon on the scripted provider, a turn that writes a file
 * shows its changes in the webview messages, and restoring it asks first,
 * offers to overwrite files changed since, and puts the workspace back.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArborErrorCodes, Methods, type ScriptInput } from '@arbor/protocol';
import { SessionTracker, type SessionView } from '@arbor/protocol/client';
import { connectArbor, type ArborConnection } from '@arbor/protocol/client/node';
import {
  conflictFiles,
  restorePlan,
  restoreTurn,
  type RestoreDialogs,
  type RestorePlan,
} from '../../src/chat/checkpointRestore.js';
import { bridgeSessionView, sessionMessage } from '../../src/chat/sessionBridge.js';
import type { HostMessage } from '../../src/shared/messages.js';
import { ChatModel } from '../../webview/model/chatModel.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const SCRIPT: ScriptInput = {
  version: 1,
  conversations: {
    'Write the notes': [
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'notes/new.txt', content: 'one\ntwo\n' } },
          { name: 'write_file', arguments: { path: 'hello.txt', content: 'hello there\n' } },
        ],
      },
      { text: 'Wrote them.' },
    ],
    '*': [{ text: 'Nothing to do.' }],
  },
};

/** Records the answers the dialogs gave and what they were shown. */
function dialogs(confirm: boolean, overwrite: boolean) {
  const shown: { plan?: RestorePlan; conflict?: readonly string[] } = {};
  const d: RestoreDialogs = {
    confirm: (plan) => {
      shown.plan = plan;
      return Promise.resolve(confirm);
    },
    confirmOverwrite: (files) => {
      shown.conflict = files;
      return Promise.resolve(overwrite);
    },
  };
  return { d, shown };
}

describe('restoring a turn (checkpoints) with a real daemon', function () {
  this.timeout(30_000);
  let dir: string;
  let conn: ArborConnection;
  let view: SessionView;
  let sessionId: string;
  const live: HostMessage[] = [];

  async function turn(text: string): Promise<string> {
    const ended = new Promise((r) => view.on('turnEnded', r));
    const { turnId } = await conn.client.request(Methods.ChatSend, { sessionId, text });
    await ended;
    return turnId;
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'arbor-restore-'));
    const workspace = join(dir, 'ws');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'hello.txt'), 'hello\n');
    writeFileSync(join(dir, 'script.json'), JSON.stringify(SCRIPT));
    conn = await connectArbor({
      spawn: {
        command: process.execPath,
        args: [
          join(repo, 'daemon', 'bin', 'arbor.js'),
          'daemon',
          '--stdio',
          '--provider',
          'scripted',
          '--script',
          join(dir, 'script.json'),
          '--data-dir',
          join(dir, 'data'),
        ],
      },
    });
    const tracker = new SessionTracker(conn.client);
    await conn.client.initialize();
    assert.ok(conn.client.hasCapability('daemon.checkpoints'), 'the daemon advertises checkpoints');
    const created = await tracker.create({
      workspaceRoot: workspace,
      permissionMode: 'auto',
      chatContext: { kind: 'editor' },
    });
    view = created.view;
    sessionId = created.session.sessionId;
    live.length = 0;
    bridgeSessionView(view, (m) => live.push(m), new Set());
  });
  afterEach(async () => {
    await conn?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the webview gets the turn’s changes live and from the store', async () => {
    const turnId = await turn('Write the notes');
    const expected = [
      { path: 'hello.txt', status: 'modified', added: 1, removed: 1 },
      { path: 'notes/new.txt', status: 'added', added: 2, removed: 0 },
    ];
    const a = new ChatModel();
    a.apply({ type: 'turnStarted', turnId, userText: 'Write the notes' });
    for (const m of live) a.apply(m);
    const byPath = (files: { path: string }[] = []) =>
      [...files].sort((x, y) => x.path.localeCompare(y.path));
    const liveChanges = a.changesOf(a.turns.get(turnId)!);
    assert.deepEqual(byPath(liveChanges?.files), expected);
    assert.equal(liveChanges?.restorable, true);

    const loaded = await conn.client.request(Methods.SessionLoad, { sessionId });
    const b = new ChatModel();
    b.apply(
      sessionMessage(loaded.session, loaded.messages, undefined, new Map(), {
        access: { diff: true, restore: true },
      }),
    );
    assert.deepEqual(b.changesOf(b.turns.get(turnId)!), liveChanges);
    assert.deepEqual(b.checkpoints, { diff: true, restore: true });
  });

  it('asks with the files, then puts them back; declining changes nothing', async () => {
    const workspace = join(dir, 'ws');
    const turnId = await turn('Write the notes');
    await turn('Say hello');
    const no = dialogs(false, false);
    assert.deepEqual(await restoreTurn(conn.client, sessionId, turnId, no.d), {
      kind: 'declined',
    });
    assert.deepEqual([...no.shown.plan!.files].sort(), ['hello.txt', 'notes/new.txt']);
    assert.equal(no.shown.plan!.turnIds.length, 2, 'the turn and the later one');
    assert.ok(existsSync(join(workspace, 'notes', 'new.txt')), 'declined: nothing restored');

    const yes = dialogs(true, false);
    const outcome = await restoreTurn(conn.client, sessionId, turnId, yes.d);
    assert.equal(outcome.kind, 'restored');
    if (outcome.kind === 'restored')
      assert.deepEqual([...outcome.result.restored].sort(), ['hello.txt', 'notes/new.txt']);
    assert.equal(yes.shown.conflict, undefined, 'no conflict to ask about');
    assert.ok(!existsSync(join(workspace, 'notes', 'new.txt')));
    assert.equal(readFileSync(join(workspace, 'hello.txt'), 'utf8'), 'hello\n');
  });

  it('on a conflict names the files and overwrites them only when asked to', async () => {
    const workspace = join(dir, 'ws');
    const turnId = await turn('Write the notes');
    writeFileSync(join(workspace, 'hello.txt'), 'edited by the user\n');

    const keep = dialogs(true, false);
    assert.deepEqual(await restoreTurn(conn.client, sessionId, turnId, keep.d), {
      kind: 'declined',
    });
    assert.deepEqual(keep.shown.conflict, ['hello.txt']);
    assert.equal(readFileSync(join(workspace, 'hello.txt'), 'utf8'), 'edited by the user\n');
    assert.ok(existsSync(join(workspace, 'notes', 'new.txt')), 'a conflict changes nothing');

    const force = dialogs(true, true);
    const outcome = await restoreTurn(conn.client, sessionId, turnId, force.d);
    assert.equal(outcome.kind, 'restored');
    if (outcome.kind === 'restored') assert.deepEqual(outcome.result.overwritten, ['hello.txt']);
    assert.equal(readFileSync(join(workspace, 'hello.txt'), 'utf8'), 'hello\n');
    assert.ok(!existsSync(join(workspace, 'notes', 'new.txt')));
  });
});

describe('restore plan and conflict data', () => {
  it('collects the files of the turn and every later one, once each', () => {
    const turn = (turnId: string, files: string[], omitted?: number) => ({
      turnId,
      role: 'assistant' as const,
      content: '',
      createdAt: '2026-01-01T00:00:00Z',
      tree: {
        version: 1 as const,
        nodes: [
          {
            id: turnId,
            parentId: null,
            kind: 'turn' as const,
            name: 'turn',
            status: 'done' as const,
            depth: 0,
            changes: {
              files: files.map((path) => ({
                path,
                status: 'modified' as const,
                added: 1,
                removed: 0,
              })),
              restorable: true,
              ...(omitted !== undefined && { omitted }),
            },
          },
        ],
      },
    });
    const messages = [turn('t1', ['a']), turn('t2', ['b', 'c'], 3), turn('t3', ['c', 'd'])];
    assert.deepEqual(restorePlan(messages as never, 't2'), {
      turnIds: ['t2', 't3'],
      files: ['b', 'c', 'd'],
      omitted: 3,
    });
    assert.equal(restorePlan(messages as never, 'nope'), undefined);
  });

  it('reads the files of -33012 only', () => {
    assert.deepEqual(
      conflictFiles({ code: ArborErrorCodes.CheckpointConflict, data: { files: ['x.txt'] } }),
      ['x.txt'],
    );
    assert.equal(conflictFiles({ code: ArborErrorCodes.TurnInProgress, data: {} }), undefined);
    assert.equal(conflictFiles(new Error('boom')), undefined);
  });
});
