/**
 * A daemon that dies mid-turn, while the user is asked to allow a tool: the
 * view must end the turn as interrupted with the reason and close the
 * approval, not stay "running" with an Allow button nothing can answer.
 * The real daemon (scripted provider) is killed with SIGKILL; what the host
 * posts (SessionBridge) is applied to the webview's own model.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Methods, type ScriptInput } from '@arbor/protocol';
import { SessionTracker } from '@arbor/protocol/client';
import { connectArbor } from '@arbor/protocol/client/node';
import { bridgeSessionView, interruptionMessages } from '../../src/chat/sessionBridge.js';
import { parseHostMessage, type HostMessage } from '../../src/shared/messages.js';
import { ChatModel } from '../../webview/model/chatModel.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');

const SCRIPT: ScriptInput = {
  version: 1,
  conversations: {
    '*': [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'hi' } }] },
      { text: 'written' },
    ],
  },
};

describe('a daemon lost during a turn', function () {
  this.timeout(30_000);
  const scratch: string[] = [];
  after(() => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('ends the turn as interrupted with the reason and closes the pending approval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-lost-'));
    scratch.push(dir);
    const script = join(dir, 'script.json');
    writeFileSync(script, JSON.stringify(SCRIPT));
    const conn = await connectArbor({
      spawn: {
        command: process.execPath,
        args: [
          ...[join(repo, 'daemon', 'bin', 'arbor.js'), 'daemon', '--stdio'],
          ...['--provider', 'scripted', '--script', script, '--data-dir', join(dir, 'data')],
        ],
      },
    });
    const tracker = new SessionTracker(conn.client);
    await conn.client.initialize();
    const { view, session } = await tracker.create({
      workspaceRoot: dir,
      permissionMode: 'default',
      chatContext: { kind: 'editor' },
    });
    const model = new ChatModel();
    const posted: HostMessage[] = [];
    const post = (m: HostMessage) => {
      posted.push(m);
      model.apply(m);
    };
    post({
      type: 'session',
      sessionId: session.sessionId,
      title: '',
      permissionMode: 'default',
      state: 'idle',
      turns: [],
      approvals: [],
      questions: [],
      plan: [],
      budget: [],
      checkpoints: { diff: false, restore: false },
      restoredTurns: [],
    });
    bridgeSessionView(view, post, new Set());
    const asked = new Promise((r) => view.approvals.on('added', r));
    const { turnId } = await conn.client.request(Methods.ChatSend, {
      sessionId: session.sessionId,
      text: 'write the notes',
    });
    post({ type: 'turnStarted', turnId, userText: 'write the notes' });
    await asked;
    assert.equal(model.approvals.size, 1, 'the Allow card is open');
    assert.equal(model.state, 'requires_action');

    const closed = new Promise((r) => conn.client.on('close', r));
    conn.process!.child.kill('SIGKILL');
    await closed;
    const reason = 'The Arbor daemon stopped unexpectedly (killed by SIGKILL).';
    for (const m of interruptionMessages(view, reason)) post(m);

    for (const m of posted) assert.equal(parseHostMessage(m).ok, true, JSON.stringify(m));
    const turn = model.turns.get(turnId)!;
    assert.equal(turn.status, 'interrupted');
    assert.equal(turn.error, 'The Arbor daemon stopped unexpectedly (killed by SIGKILL)');
    assert.equal(model.state, 'idle', 'not running any more: nothing to cancel');
    assert.equal(model.approvals.size, 0, 'no Allow card waits for a daemon that is gone');
    tracker.dispose();
  });
});
