import { strict as assert } from 'node:assert';
import { StoredPart } from '../../src/index.js';
import { TurnTranscript } from '../../src/client/index.js';
import { node } from './builders.js';

describe('TurnTranscript (sessions.md#stored-parts)', () => {
  it('folds text runs and first appearances of nodes in stream order', () => {
    const t = new TurnTranscript();
    t.nodes([node('turn', null)]);
    t.text('turn', 'Let me ');
    t.text('turn', 'look. ');
    t.nodes([node('a', 'turn'), node('s', 'turn', { kind: 'subtask', name: 'run_subtask' })]);
    t.nodes([node('a', 'turn')]); // a later upsert of the same node adds nothing
    t.text('s', 'inside');
    t.text('s', '');
    t.nodes([node('b', 's')]);
    t.text('s', ' the subtask');
    t.text('turn', 'Done.');
    assert.deepEqual(t.parts, [
      { type: 'text', nodeId: 'turn', text: 'Let me look. ' },
      { type: 'node', nodeId: 'a' },
      { type: 'node', nodeId: 's' },
      { type: 'text', nodeId: 's', text: 'inside' },
      { type: 'node', nodeId: 'b' },
      { type: 'text', nodeId: 's', text: ' the subtask' },
      { type: 'text', nodeId: 'turn', text: 'Done.' },
    ]);
    for (const part of t.parts) StoredPart.parse(part);
    // A node's body: its own text and its children; text with nothing of that body between is one block.
    assert.deepEqual(t.flowOf('turn'), [
      { type: 'text', text: 'Let me look. ' },
      { type: 'node', nodeId: 'a' },
      { type: 'node', nodeId: 's' },
      { type: 'text', text: 'Done.' },
    ]);
    assert.deepEqual(t.flowOf('s'), [
      { type: 'text', text: 'inside' },
      { type: 'node', nodeId: 'b' },
      { type: 'text', text: ' the subtask' },
    ]);
    assert.equal(t.textOf('s'), 'inside the subtask');
  });

  it('a stored turn rebuilds the same flows; parts naming no node of the tree are left out', () => {
    const live = new TurnTranscript();
    live.nodes([node('turn', null)]);
    live.text('turn', 'a');
    live.nodes([node('x', 'turn')]);
    live.text('turn', 'b');
    const tree = { version: 1 as const, nodes: [node('turn', null), node('x', 'turn')] };
    const stored = TurnTranscript.fromParts(
      [...live.parts, { type: 'node', nodeId: 'ghost' }],
      tree,
    );
    assert.deepEqual(stored.parts, live.parts);
    assert.deepEqual(stored.flowOf('turn'), live.flowOf('turn'));
  });

  it('without parts (a 1.0 daemon): cards first, then the text', () => {
    const tree = { version: 1 as const, nodes: [node('turn', null), node('x', 'turn')] };
    const t = TurnTranscript.fromTree(tree, [{ nodeId: 'turn', text: 'answer' }]);
    assert.deepEqual(t.flowOf('turn'), [
      { type: 'node', nodeId: 'x' },
      { type: 'text', text: 'answer' },
    ]);
  });

  it('keeps the cost/summary without the fields that place it in a session', () => {
    const t = new TurnTranscript();
    const usage = { inputTokens: 1, outputTokens: 2 };
    t.cost({
      sessionId: 's',
      seq: 9,
      turnId: 't',
      usage,
      cost: null,
      currency: 'USD',
      byModel: [],
    });
    assert.deepEqual(t.costSummary, { usage, cost: null, currency: 'USD', byModel: [] });
  });
});
