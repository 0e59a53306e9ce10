/** The host's SessionBridge against a real daemon on the scripted provider. */
import assert from 'node:assert/strict';
import { ChatModel } from '../../webview/model/chatModel.js';
import { parseHostMessage } from '../../src/shared/messages.js';
import { recordDemoTurn } from '../fixtures/record.js';

describe('SessionBridge with a real daemon', function () {
  this.timeout(30_000);
  it('forwards a nested turn as valid webview messages that rebuild the stored tree', async () => {
    const { live, reload } = await recordDemoTurn();
    for (const m of [...live, reload])
      assert.equal(parseHostMessage(m).ok, true, JSON.stringify(m));
    const a = new ChatModel();
    for (const m of live) a.apply(m);
    const b = new ChatModel();
    b.apply(reload);
    const turnId = a.turnOrder[0]!;
    const ta = a.turns.get(turnId)!;
    const tb = b.turns.get(turnId)!;
    assert.deepEqual(
      tb.tree.toSnapshot().nodes.map((n) => [n.id, n.parentId, n.status]),
      ta.tree.toSnapshot().nodes.map((n) => [n.id, n.parentId, n.status]),
    );
    assert.equal(a.answerOf(ta), b.answerOf(tb));
    // session/load keeps what the user saw: text and cards in stream order, subtask text, cost.
    assert.deepEqual(tb.transcript.parts, ta.transcript.parts);
    assert.ok(ta.transcript.parts.some((p) => p.type === 'text' && p.nodeId !== turnId));
    assert.equal(tb.cost, ta.cost);
    assert.deepEqual(tb.usage, ta.usage);
    assert.equal(ta.tree.children(turnId).filter((n) => n.kind === 'subtask').length, 3);
  });
});
