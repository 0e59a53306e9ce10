/** The pure parts of the bridge (daemon/docs/acp.md), without a process. */
import assert from 'node:assert/strict';
import type { ExecutionTreeNode } from '@arbor/protocol';
import { ToolCatalogue } from '@arbor/protocol/client';
import { RequestError, type AgentContext, type SessionUpdate } from '@agentclientprotocol/sdk';
import { promptText } from '../../src/acp/promptText.js';
import { SessionUpdates } from '../../src/acp/sessionUpdates.js';
import { promptEndFor } from '../../src/acp/stopReasons.js';
import { ToolCallLedger } from '../../src/acp/toolCallLedger.js';
import { toolCallOf } from '../../src/acp/toolCalls.js';

const node = (fields: Partial<ExecutionTreeNode>): ExecutionTreeNode => ({
  id: 'n1',
  parentId: 't',
  kind: 'tool',
  name: 'read_file',
  status: 'running',
  depth: 0,
  ...fields,
});
const context = { turnId: 't', workspaceRoot: '/ws', catalogue: new ToolCatalogue(), text: '' };

describe('acp mapping', () => {
  describe('stop reasons', () => {
    for (const [arbor, acp] of [
      ['end_turn', 'end_turn'],
      ['cancelled', 'cancelled'],
      ['max_tokens', 'max_tokens'],
      ['budget_exceeded', 'max_turn_requests'],
      ['max_iterations', 'max_turn_requests'],
    ] as const) {
      it(`${arbor} -> ${acp}`, () =>
        assert.deepEqual(promptEndFor(arbor, false), { stopReason: acp }));
    }
    it('error and interrupted fail the prompt with the turn’s message', () => {
      assert.deepEqual(promptEndFor('error', false, 'model down'), { failure: 'model down' });
      assert.ok('failure' in promptEndFor('interrupted', false));
    });
    it('after session/cancel anything but end_turn is cancelled', () => {
      assert.deepEqual(promptEndFor('error', true, 'x'), { stopReason: 'cancelled' });
      assert.deepEqual(promptEndFor('end_turn', true), { stopReason: 'end_turn' });
    });
  });

  describe('tool calls', () => {
    it('a write whose preview was cut still names its file; the whole arguments give the diff', () => {
      const cut = `{"path":"src/big.ts","content":"${'x'.repeat(480)}…`;
      const bare = toolCallOf(node({ name: 'write_file', argsPreview: cut }), context);
      assert.equal(bare.title, 'Write src/big.ts');
      assert.deepEqual(bare.locations, [{ path: '/ws/src/big.ts' }]);
      assert.deepEqual(bare.content, []);
      const full = toolCallOf(node({ name: 'write_file', argsPreview: cut }), {
        ...context,
        fullArgs: { path: 'src/big.ts', content: 'y' },
      });
      assert.deepEqual(full.content, [{ type: 'diff', path: '/ws/src/big.ts', newText: 'y' }]);
    });

    it('edit_file is a diff of the replaced text; a failed edit also shows why', () => {
      const call = toolCallOf(
        node({
          name: 'edit_file',
          argsPreview: '{"path":"a.ts","old":"foo","new":"bar"}',
          status: 'error',
          isError: true,
          resultPreview: 'no match',
        }),
        context,
      );
      assert.equal(call.kind, 'edit');
      assert.equal(call.status, 'failed');
      assert.deepEqual(call.content, [
        { type: 'diff', path: '/ws/a.ts', oldText: 'foo', newText: 'bar' },
        { type: 'content', content: { type: 'text', text: 'no match' } },
      ]);
    });

    it('a command title is its first line', () => {
      const title = (command: string) =>
        toolCallOf(node({ name: 'run_command', argsPreview: JSON.stringify({ command }) }), context)
          .title;
      assert.equal(title('npm test'), 'Run npm test');
      assert.equal(title('set -e\nnpm ci\nnpm test'), 'Run set -e …');
    });

    it('statuses: waiting and running are pending / in_progress, every final one but done is failed', () => {
      const status = (s: ExecutionTreeNode['status']) =>
        toolCallOf(node({ status: s }), context).status;
      assert.deepEqual(
        (
          [
            'pending',
            'awaiting_approval',
            'running',
            'done',
            'error',
            'cancelled',
            'denied',
            'blocked',
          ] as const
        ).map(status),
        ['pending', 'pending', 'in_progress', 'completed', 'failed', 'failed', 'failed', 'failed'],
      );
    });

    it('kinds: by tool name, else by the catalogue’s category', () => {
      const catalogue = new ToolCatalogue([
        {
          name: 'mcp__web__get',
          description: '',
          category: 'external',
          inputSchema: {},
          parallelSafe: true,
          origin: 'mcp',
        },
      ]);
      const kind = (name: string) => toolCallOf(node({ name }), { ...context, catalogue }).kind;
      assert.deepEqual(
        ['grep', 'run_command', 'run_subtask', 'mcp__web__get', 'unknown_tool'].map(kind),
        ['search', 'execute', 'think', 'fetch', 'other'],
      );
    });
  });

  it('the ledger sends a call once, then only what changed, and nothing when nothing did', () => {
    const ledger = new ToolCallLedger();
    const first = toolCallOf(node({}), context);
    assert.equal(ledger.update(first)?.sessionUpdate, 'tool_call');
    assert.equal(ledger.update(first), undefined);
    const done = toolCallOf(node({ status: 'done', resultPreview: 'text' }), context);
    const update = ledger.update(done);
    assert.equal(update?.sessionUpdate, 'tool_call_update');
    assert.deepEqual(Object.keys(update!).sort(), [
      '_meta',
      'content',
      'sessionUpdate',
      'status',
      'toolCallId',
    ]);
  });

  it('prompts: text, linked files as mentions, embedded text quoted; images refused', () => {
    assert.equal(
      promptText([
        { type: 'text', text: 'Look at ' },
        { type: 'resource_link', uri: 'file:///ws/a.ts', name: 'a.ts' },
        { type: 'resource', resource: { uri: 'file:///ws/b.ts', text: 'let b;' } },
      ]),
      'Look at @/ws/a.ts\n<resource uri="file:///ws/b.ts">\nlet b;\n</resource>\n',
    );
    assert.throws(
      () => promptText([{ type: 'image', data: '', mimeType: 'image/png' }]),
      (error: RequestError) => error.code === -32602,
    );
  });
});

describe('acp session updates', () => {
  it('are sent one at a time, in order; agent text waiting behind a write is joined', async () => {
    const sent: SessionUpdate[] = [];
    let release: (() => void) | undefined;
    const editor = {
      notify: (_method: string, params: { update: SessionUpdate }) => {
        sent.push(params.update);
        return new Promise<void>((resolve) => (release = resolve));
      },
    } as unknown as AgentContext;
    const updates = new SessionUpdates(editor, 's', (error) => assert.fail(String(error)));
    const text = (t: string): SessionUpdate => ({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: t },
    });
    updates.send(text('a'));
    updates.send(text('b'));
    updates.send(text('c'));
    updates.send({ sessionUpdate: 'plan', entries: [] });
    updates.send(text('d'));
    let flushed = false;
    void updates.flushed().then(() => (flushed = true));
    const step = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      release?.();
      await new Promise((resolve) => setImmediate(resolve));
    };
    assert.deepEqual(sent, [text('a')], 'one update in flight at a time');
    for (let i = 0; i < 4; i++) await step();
    assert.deepEqual(sent, [
      text('a'),
      text('bc'),
      { sessionUpdate: 'plan', entries: [] },
      text('d'),
    ]);
    assert.ok(flushed);
  });
});
