import assert from 'node:assert/strict';
import {
  HostMessage,
  WebviewMessage,
  parseHostMessage,
  parseWebviewMessage,
} from '../../src/shared/messages.js';
import { msg, nestedTurn, node } from '../fixtures/builders.js';

describe('host <-> webview message schemas', () => {
  it('accept every message the builders make', () => {
    for (const m of [
      ...nestedTurn('t', 2, 2),
      msg.session(),
      msg.approval({ turnId: 't', toolCallId: 'c', nodeId: 'n' }),
      msg.question({ turnId: 't', toolCallId: 'q', nodeId: 'n' }),
      msg.questionResolved('t', 'q', { kind: 'resolved', outcome: 'timed_out' }),
      msg.budget('t', 'depth', 3, 4),
      msg.restored('t'),
      msg.tree(
        't',
        node('t', null, {
          status: 'done',
          changes: {
            files: [{ path: 'a.txt', status: 'added', added: 1, removed: 0 }],
            restorable: true,
          },
        }),
      ),
    ]) {
      assert.equal(parseHostMessage(m).ok, true, JSON.stringify(m));
    }
  });

  it('reject an unknown type and a tree update without nodes', () => {
    assert.equal(parseHostMessage({ type: 'nope' }).ok, false);
    assert.equal(parseHostMessage({ type: 'tree', turnId: 't', nodes: [] }).ok, false);
  });

  it('reject a tree node the protocol would reject', () => {
    const bad = { type: 'tree', turnId: 't', nodes: [{ ...node('a', null), status: 'exploded' }] };
    const parsed = parseHostMessage(bad);
    assert.equal(parsed.ok, false);
    if (!parsed.ok) assert.match(parsed.error, /status/);
  });

  it('strip unknown fields (the protocol ignores them too)', () => {
    const parsed = HostMessage.parse({ type: 'mode', mode: 'plan', extra: 1 });
    assert.deepEqual(parsed, { type: 'mode', mode: 'plan' });
  });

  it('validate what the webview sends', () => {
    assert.equal(parseWebviewMessage({ type: 'send', text: 'hi' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'send', text: '' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'setMode', mode: 'yolo' }).ok, false);
    assert.equal(
      parseWebviewMessage({
        type: 'approve',
        turnId: 't',
        toolCallId: 'c',
        decision: 'allowForSession',
      }).ok,
      true,
    );
    assert.equal(
      parseWebviewMessage({ type: 'approve', turnId: 't', toolCallId: 'c', decision: 'maybe' }).ok,
      false,
    );
    assert.equal(parseWebviewMessage('ready').ok, false);
    assert.equal(
      parseWebviewMessage({
        type: 'answerQuestion',
        turnId: 't',
        toolCallId: 'q',
        answer: 'Vitest',
      }).ok,
      true,
    );
    assert.equal(
      parseWebviewMessage({ type: 'answerQuestion', turnId: 't', toolCallId: 'q', answer: '' }).ok,
      false,
      'an answer has at least one character',
    );
    // Checkpoints: a turn's diff (one file or all) and a restore, by turn id.
    assert.equal(parseWebviewMessage({ type: 'showChangeDiff', turnId: 't' }).ok, true);
    assert.equal(
      parseWebviewMessage({ type: 'showChangeDiff', turnId: 't', path: 'src/a.ts' }).ok,
      true,
    );
    assert.equal(parseWebviewMessage({ type: 'showChangeDiff', turnId: 't', path: '' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', turnId: 't' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint' }).ok, false);
    // Retry of an interrupted turn: the same prompt again.
    assert.equal(parseWebviewMessage({ type: 'retry', turnId: 't', text: 'again' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'retry', turnId: 't', text: '' }).ok, false);
    // The agent picker: a profile for a new chat, or none; names as agents/list gives them.
    assert.equal(parseWebviewMessage({ type: 'setAgent', agent: 'reviewer' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'setAgent', agent: null }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'setAgent', agent: 'Code Reviewer' }).ok, false);
    assert.deepEqual(WebviewMessage.options.map((o) => o.shape.type.value).sort(), [
      'answerQuestion',
      'approve',
      'cancel',
      'copy',
      'deleteSession',
      'newChat',
      'ready',
      'restoreCheckpoint',
      'retry',
      'send',
      'setAgent',
      'setMode',
      'setModel',
      'showChangeDiff',
      'showDiff',
      'switchSession',
    ]);
  });
});
