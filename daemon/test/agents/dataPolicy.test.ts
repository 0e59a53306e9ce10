/**
 * What each data policy setting keeps of a turn (agents/dataPolicy.ts):
 * the stored tree, parts, answer, event log and transcript, and the
 * `omitted` list that says so — only what was really left out.
 */
import assert from 'node:assert/strict';
import { Methods, type ExecutionTreeNode, type ExecutionTreeSnapshot } from '@arbor/protocol';
import { z } from 'zod';
import { AgentProfile } from '../../src/agents/agentProfile.js';
import { NOT_KEPT_RESULT, NOT_KEPT_TEXT, TurnDataPolicy } from '../../src/agents/dataPolicy.js';

function policy(
  dataPolicy: z.input<typeof AgentProfile>['dataPolicy'],
): TurnDataPolicy | undefined {
  return TurnDataPolicy.of({
    name: 'p',
    source: 'config',
    profile: AgentProfile.parse({ dataPolicy }),
  });
}

const TREE: ExecutionTreeSnapshot = {
  version: 1,
  nodes: [
    {
      id: 't',
      parentId: null,
      kind: 'turn',
      name: 'turn',
      status: 'done',
      depth: 0,
      resultPreview: 'The answer.',
    },
    {
      id: 'n1',
      parentId: 't',
      kind: 'tool',
      name: 'read_file',
      status: 'done',
      depth: 0,
      argsPreview: '{"path":"a"}',
      injectedArgs: { reason: 'look' },
      resultPreview: 'file text',
      durationMs: 3,
    },
    {
      id: 'n2',
      parentId: 't',
      kind: 'tool',
      name: 'web_fetch',
      status: 'done',
      depth: 0,
      argsPreview: '{"url":"https://x"}',
      resultPreview: 'page',
      output: 'fetched',
      artifactId: 'art_1',
    },
  ],
};
const node = (tree: ExecutionTreeSnapshot, id: string): ExecutionTreeNode =>
  tree.nodes.find((n) => n.id === id)!;

describe('data policy', () => {
  it('keeps everything by default: no policy object at all', () => {
    assert.equal(policy(undefined), undefined);
    assert.equal(policy({}), undefined);
    assert.equal(policy({ text: true, toolCalls: true, toolResults: true }), undefined);
  });

  it('dropResultsOf drops only the named tools’ results, and says toolResults', () => {
    const p = policy({ dropResultsOf: ['web_*'] })!;
    const stored = p.tree(TREE);
    assert.equal(node(stored, 'n1').resultPreview, 'file text');
    assert.deepEqual(node(stored, 'n2'), {
      id: 'n2',
      parentId: 't',
      kind: 'tool',
      name: 'web_fetch',
      status: 'done',
      depth: 0,
      argsPreview: '{"url":"https://x"}',
    });
    assert.equal(node(TREE, 'n2').resultPreview, 'page', 'the live tree is untouched');
    assert.deepEqual(p.omitted(), ['toolResults']);
    assert.ok(p.dropsResults);
  });

  it('toolCalls: false keeps the calls’ names and timing, not their arguments', () => {
    const p = policy({ toolCalls: false })!;
    const n1 = node(p.tree(TREE), 'n1');
    assert.equal(n1.argsPreview, undefined);
    assert.equal(n1.injectedArgs, undefined);
    assert.equal(n1.resultPreview, 'file text');
    assert.equal(n1.durationMs, 3);
    const transcript = p.transcript([
      {
        role: 'assistant',
        content: 'calling',
        toolCalls: [{ id: 'c', name: 'read_file', arguments: { path: 'a' } }],
      },
      { role: 'tool', toolCallId: 'c', name: 'read_file', content: 'file text' },
    ]);
    assert.deepEqual(transcript[0], {
      role: 'assistant',
      content: 'calling',
      toolCalls: [{ id: 'c', name: 'read_file', arguments: {} }],
    });
    assert.equal((transcript[1] as { content: string }).content, 'file text');
    assert.deepEqual(p.omitted(), ['toolCalls']);
  });

  it('text: false stores no answer, no text parts, chunks as …; a turn without text omits nothing', () => {
    const p = policy({ text: false })!;
    assert.deepEqual(p.omitted(), []);
    assert.equal(p.text(''), '');
    assert.deepEqual(p.omitted(), [], 'nothing to leave out yet');
    assert.equal(p.text('The answer.'), '');
    assert.equal(node(p.tree(TREE), 't').resultPreview, undefined);
    assert.deepEqual(
      p.parts([
        { type: 'text', nodeId: 't', text: 'The answer.' },
        { type: 'node', nodeId: 'n1' },
      ]),
      [{ type: 'node', nodeId: 'n1' }],
    );
    const chunk = p.event(Methods.ChatChunk.method, {
      sessionId: 's',
      seq: 3,
      turnId: 't',
      nodeId: 't',
      text: 'secret',
    });
    assert.equal(chunk['text'], NOT_KEPT_TEXT);
    assert.deepEqual(p.omitted(), ['text']);
  });

  it('toolResults: false: stored tree/update events and the transcript lose the results', () => {
    const p = policy({ toolResults: false })!;
    const event = p.event(Methods.TreeUpdate.method, {
      sessionId: 's',
      seq: 4,
      turnId: 't',
      nodes: TREE.nodes,
    });
    assert.equal(JSON.stringify(event).includes('file text'), false);
    assert.equal(JSON.stringify(event).includes('The answer.'), true, 'the answer is text, kept');
    const [result] = p.transcript([
      { role: 'tool', toolCallId: 'c', name: 'read_file', content: 'file text' },
    ]);
    assert.equal((result as { content: string }).content, NOT_KEPT_RESULT);
    assert.deepEqual(p.omitted(), ['toolResults']);
  });
});
