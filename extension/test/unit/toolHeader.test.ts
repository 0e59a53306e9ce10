import assert from 'node:assert/strict';
import type { ToolInfo } from '@arbor/protocol';
import { ToolCatalogue } from '@arbor/protocol/client';
import { editOf } from '../../webview/model/editDiff.js';
import { toolHeader } from '../../webview/model/toolHeader.js';
import { node } from '../fixtures/builders.js';

const tools = new ToolCatalogue([
  {
    name: 'lookup',
    description: 'x',
    category: 'read',
    inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
    parallelSafe: true,
    origin: 'mcp:docs',
  } as ToolInfo,
]);
const line = (over: Parameters<typeof node>[2]): string => {
  const { verb, target, outcome } = toolHeader(node('a', 't', over), tools);
  return [verb, target, outcome].filter(Boolean).join(' · ');
};

describe('tool call headers', () => {
  it('read: the path and how many lines came back', () => {
    assert.equal(
      line({
        name: 'read_file',
        status: 'done',
        argsPreview: '{"path":"src/convert.js"}',
        resultPreview: 'a\nb\nc\n',
      }),
      'Read · src/convert.js · 3 lines',
    );
    assert.equal(
      line({
        name: 'read_file',
        status: 'done',
        argsPreview: '{"path":"big.ts","offset":1,"limit":40}',
        resultPreview: 'x\n[lines 1-40 of 900; pass offset and limit for other lines]',
      }),
      'Read · big.ts · lines 1–40 of 900',
    );
  });
  it('edits and writes: the path and the lines added and removed', () => {
    assert.equal(
      line({
        name: 'apply_edit',
        status: 'done',
        argsPreview: JSON.stringify({ path: 'REVIEW.md', oldText: 'a\nb', newText: 'a\nb\nc\nd' }),
      }),
      'Edit · REVIEW.md · +2 −0',
    );
    assert.equal(
      line({
        name: 'write_file',
        status: 'done',
        argsPreview: JSON.stringify({ path: 'notes.md', content: '1\n2\n3\n4\n5\n' }),
      }),
      'Write · notes.md · +5 −0',
    );
  });
  it('commands: the command line and its exit code', () => {
    assert.equal(
      line({
        name: 'run_command',
        status: 'error',
        isError: true,
        argsPreview: '{"command":"npm test"}',
        resultPreview: 'exit code 1\nFAIL',
      }),
      'Run · npm test · exit 1',
    );
  });
  it('a denial says who decided, not the message meant for the model', () => {
    assert.equal(
      line({
        name: 'write_file',
        status: 'denied',
        approval: 'rejected',
        isError: true,
        argsPreview: '{"path":"x.md","content":"x"}',
        resultPreview: 'denied: the user rejected write_file',
      }),
      'Write · x.md · Denied by you',
    );
    assert.match(line({ status: 'denied', approval: 'timed_out' }), /Not answered in time$/);
  });
  it('an unknown tool keeps its name; a catalogued one gets its subject from the schema', () => {
    assert.equal(line({ name: 'lookup', argsPreview: '{"topic":"zod"}' }), 'lookup · zod');
    assert.equal(line({ name: 'mystery', argsPreview: '{"q":1' }), 'mystery');
  });
});

describe('proposed edits from arguments', () => {
  it('a replacement keeps shared lines as context around what changed', () => {
    const edit = editOf({ path: 'a.ts', old: 'one\ntwo\nthree', new: 'one\nTWO\nthree' })!;
    assert.deepEqual(
      edit.lines.map((l) => `${l.kind}:${l.text}`),
      ['context:one', 'removed:two', 'added:TWO', 'context:three'],
    );
    assert.equal(edit.added, 1);
    assert.equal(edit.removed, 1);
  });
  it('a patch counts its + and − lines', () => {
    const edit = editOf({ patch: '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n' })!;
    assert.equal(edit.added, 1);
    assert.equal(edit.removed, 1);
    assert.equal(edit.lines[0]!.kind, 'hunk');
  });
});
