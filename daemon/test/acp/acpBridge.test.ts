/**
 * `arbor acp` as an editor sees it: the ACP SDK's client side spawns the
 * bridge (in-process daemon, scripted provider) and checks the mapping of
 * daemon/docs/acp.md — initialize, sessions, a turn with parallel tools, a
 * subtask and permission requests, cancel, session/load replay, modes.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptInput } from '@arbor/protocol';
import { methods, RequestError, type ToolCall } from '@agentclientprotocol/sdk';
import {
  closeAll,
  scriptedAcp,
  tempDir,
  until,
  writeScript,
  type AcpEditor,
} from './acpProcess.js';
import { foldUpdates, toolCallsInOrder } from './sessionFold.js';

const SCRIPT: ScriptInput = {
  version: 1,
  conversations: {
    'Tidy the notes': [
      {
        text: 'Looking around first.',
        toolCalls: [
          { id: 'c_read', name: 'read_file', arguments: { path: 'notes.txt' } },
          { id: 'c_list', name: 'list_dir', arguments: { path: '.' } },
          {
            id: 'c_sub',
            name: 'run_subtask',
            arguments: { title: 'Count the notes', instructions: 'Count the lines of notes.txt' },
          },
          {
            id: 'c_plan',
            name: 'todo_write',
            arguments: {
              todos: [
                { id: '1', content: 'Read the notes', status: 'completed' },
                { id: '2', content: 'Write a summary', status: 'in_progress' },
                { id: '3', content: 'Ask the user', status: 'cancelled' },
              ],
            },
          },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
      {
        toolCalls: [
          {
            id: 'c_write',
            name: 'write_file',
            arguments: { path: 'summary.txt', content: 'two notes\n' },
          },
        ],
      },
      { text: 'Wrote the summary.' },
    ],
    'Count the lines of notes.txt': [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'There are two lines.' },
    ],
    'Empty the summary': [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'summary.txt', content: '' } }] },
      { text: 'Done with the summary.' },
    ],
    'Keep going': [
      { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { text: 'Never said: the second model call is over budget.' },
    ],
    'Cut off': [{ text: 'Half an ans', stop: 'max_tokens' }],
    'Break down': [{ error: 'the model is down' }],
    'Think slowly': [
      { text: 'Thinking.', toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { delayMs: 60_000, text: 'Too late.' },
    ],
  },
};

describe('arbor acp (process, scripted provider)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let workspace: string;
  let scriptFile: string;
  const editors: AcpEditor[] = [];

  function bridge(extra: string[] = []): AcpEditor {
    const editor = scriptedAcp(dataDir, scriptFile, extra);
    editors.push(editor);
    return editor;
  }

  async function initialized(extra: string[] = []): Promise<AcpEditor> {
    const editor = bridge(extra);
    await editor.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    return editor;
  }

  async function newSession(editor: AcpEditor): Promise<string> {
    const { sessionId } = await editor.agent.request(methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [],
    });
    return sessionId;
  }

  const prompt = (editor: AcpEditor, sessionId: string, text: string) =>
    editor.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text }],
    });

  const ofSession = (editor: AcpEditor, sessionId: string) =>
    editor.updates.filter((n) => n.sessionId === sessionId);

  beforeEach(() => {
    dataDir = tempDir('arbor-acp-data-');
    workspace = tempDir('arbor-acp-ws-');
    writeFileSync(join(workspace, 'notes.txt'), 'first note\nsecond note\n');
    scriptFile = writeScript(tempDir(), SCRIPT);
  });

  afterEach(() => closeAll(editors, 5000));

  it('initialize advertises loadSession, text prompts with embedded context, and MCP over stdio and HTTP', async () => {
    const editor = bridge();
    const result = await editor.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    assert.equal(result.protocolVersion, 1);
    assert.equal(result.agentInfo?.name, 'arbor');
    assert.deepEqual(result.agentCapabilities, {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {}, delete: {} },
    });
  });

  it('session/new opens an Arbor session on cwd with the permission modes', async () => {
    const editor = await initialized();
    const created = await editor.agent.request(methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [],
    });
    assert.match(created.sessionId, /\S/);
    assert.equal(created.modes?.currentModeId, 'default');
    assert.deepEqual(
      created.modes?.availableModes.map((m) => m.id),
      ['plan', 'default', 'auto'],
    );
    assert.equal(created._meta, undefined);
    await assert.rejects(
      editor.agent.request(methods.agent.session.new, { cwd: 'relative/dir', mcpServers: [] }),
      (error: RequestError) => error.code === -32602,
    );
  });

  it('a turn with parallel tools, a subtask, a plan and a write that asks (allowed), then a write rejected; session/load replays the same', async () => {
    const editor = await initialized();
    const sessionId = await newSession(editor);
    editor.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });

    const first = await prompt(editor, sessionId, 'Tidy the notes');
    assert.equal(first.stopReason, 'end_turn');
    const turnMeta = first._meta?.['arbor'] as {
      turnId: string;
      stopReason: string;
      cost?: unknown;
    };
    assert.equal(turnMeta.stopReason, 'end_turn');
    assert.ok(turnMeta.cost, 'the turn’s cost summary rides in _meta');
    assert.equal(readFileSync(join(workspace, 'summary.txt'), 'utf8'), 'two notes\n');

    const live = foldUpdates(ofSession(editor, sessionId));
    assert.equal(live.agentText, 'Looking around first.\n\nWrote the summary.');
    const calls = toolCallsInOrder(live);
    const byName = (name: string) => calls.filter((c) => c.name === name);
    const [read, inner] = byName('read_file') as [ToolCall, ToolCall];
    const [subtask] = byName('run_subtask') as [ToolCall];
    const [write] = byName('write_file') as [ToolCall];
    const [list] = byName('list_dir') as [ToolCall];
    const [plan] = byName('todo_write') as [ToolCall];

    assert.deepEqual(
      { title: read.title, kind: read.kind, status: read.status, locations: read.locations },
      {
        title: 'Read notes.txt',
        kind: 'read',
        status: 'completed',
        locations: [{ path: join(workspace, 'notes.txt') }],
      },
    );
    assert.match(JSON.stringify(read.content), /first note/);
    assert.equal(list.kind, 'read');
    assert.equal(plan.kind, 'think');
    assert.equal(subtask.title, 'Subtask: Count the notes');
    assert.deepEqual(subtask.content, [
      { type: 'content', content: { type: 'text', text: 'There are two lines.' } },
    ]);
    assert.equal(
      (inner._meta?.['arbor'] as { parentToolCallId?: string }).parentToolCallId,
      subtask.toolCallId,
      'a call inside the subtask names the subtask as its parent',
    );
    assert.equal(
      (read._meta?.['arbor'] as { parentToolCallId?: string }).parentToolCallId,
      undefined,
    );
    assert.deepEqual(
      { kind: write.kind, status: write.status, content: write.content },
      {
        kind: 'edit',
        status: 'completed',
        content: [{ type: 'diff', path: join(workspace, 'summary.txt'), newText: 'two notes\n' }],
      },
    );

    // The four calls of the first reply were all announced before any of them finished: they ran together.
    const firstReply = [read, list, subtask, plan].map((c) => c.toolCallId);
    const events = ofSession(editor, sessionId).map((n) => n.update);
    const lastAnnounced = Math.max(
      ...firstReply.map((id) =>
        events.findIndex((u) => u.sessionUpdate === 'tool_call' && u.toolCallId === id),
      ),
    );
    const firstFinished = events.findIndex(
      (u) =>
        (u.sessionUpdate === 'tool_call_update' || u.sessionUpdate === 'tool_call') &&
        firstReply.includes(u.toolCallId) &&
        u.status === 'completed',
    );
    assert.ok(
      lastAnnounced < firstFinished,
      'parallel calls are announced before the first finishes',
    );

    assert.deepEqual(live.plans, [
      [
        {
          content: 'Read the notes',
          priority: 'medium',
          status: 'completed',
          _meta: { arbor: { id: '1', status: 'completed' } },
        },
        {
          content: 'Write a summary',
          priority: 'medium',
          status: 'in_progress',
          _meta: { arbor: { id: '2', status: 'in_progress' } },
        },
        {
          content: 'Ask the user (cancelled)',
          priority: 'medium',
          status: 'completed',
          _meta: { arbor: { id: '3', status: 'cancelled' } },
        },
      ],
    ]);

    assert.equal(editor.permissionRequests.length, 1);
    const [asked] = editor.permissionRequests;
    assert.equal(asked!.toolCall.toolCallId, write.toolCallId);
    assert.deepEqual(
      asked!.options.map((o) => [o.optionId, o.kind]),
      [
        ['allow', 'allow_once'],
        ['allowForSession', 'allow_always'],
        ['allowAlways', 'allow_always'],
        ['deny', 'reject_once'],
      ],
    );
    // "Always allow" names the rule it saves.
    assert.match(asked!.options[2]!.name, /^Always allow write_file\(/);
    assert.deepEqual(asked!.toolCall.content, write.content);

    // Second turn: the write is rejected, the file stays, the turn goes on.
    editor.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'deny' } });
    const second = await prompt(editor, sessionId, 'Empty the summary');
    assert.equal(second.stopReason, 'end_turn');
    assert.equal(readFileSync(join(workspace, 'summary.txt'), 'utf8'), 'two notes\n');
    assert.equal(editor.permissionRequests.length, 2);
    const afterSecond = foldUpdates(ofSession(editor, sessionId));
    const denied = afterSecond.toolCalls.get(editor.permissionRequests[1]!.toolCall.toolCallId)!;
    assert.equal(denied.status, 'failed');
    assert.equal((denied._meta?.['arbor'] as { status: string }).status, 'denied');
    assert.ok(afterSecond.agentText.endsWith('Done with the summary.'));

    // Another editor loads the stored session: the same text and tool calls, in the same order.
    const reader = await initialized();
    const loaded = await reader.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    assert.equal(loaded.modes?.currentModeId, 'default');
    const replayed = foldUpdates(ofSession(reader, sessionId));
    assert.equal(replayed.userText, 'Tidy the notesEmpty the summary');
    assert.equal(replayed.agentText, afterSecond.agentText);
    assert.deepEqual(
      replayed.timeline,
      afterSecond.timeline,
      'text and tool calls in stream order',
    );
    assert.deepEqual(toolCallsInOrder(replayed), toolCallsInOrder(afterSecond));
    assert.ok(
      replayed.toolCalls.size >= 7,
      `every tool call is replayed (got ${replayed.toolCalls.size})`,
    );
  });

  it('session/cancel while a permission request is open: the request is withdrawn, the prompt ends cancelled', async () => {
    const editor = await initialized();
    const sessionId = await newSession(editor);
    let withdrawn = false;
    editor.onPermission = async (_request, signal) => {
      await editor.agent.notify(methods.agent.session.cancel, { sessionId });
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      withdrawn = true;
      return { outcome: { outcome: 'cancelled' } };
    };
    const result = await prompt(editor, sessionId, 'Empty the summary');
    assert.equal(result.stopReason, 'cancelled');
    assert.ok(withdrawn, 'the bridge withdrew the permission request ($/cancel_request)');
    assert.equal(existsSync(join(workspace, 'summary.txt')), false);
    const [write] = toolCallsInOrder(foldUpdates(ofSession(editor, sessionId)));
    assert.equal(write?.status, 'failed');
    assert.equal((write?._meta?.['arbor'] as { approval?: string }).approval, 'cancelled');
  });

  it('session/cancel mid-turn stops the turn at once: stopReason cancelled, no later text', async () => {
    const editor = await initialized();
    const sessionId = await newSession(editor);
    const running = prompt(editor, sessionId, 'Think slowly');
    await until('the first tool call to finish', () =>
      toolCallsInOrder(foldUpdates(ofSession(editor, sessionId))).some(
        (c) => c.status === 'completed',
      ),
    );
    const cancelledAt = Date.now();
    await editor.agent.notify(methods.agent.session.cancel, { sessionId });
    const result = await running;
    assert.equal(result.stopReason, 'cancelled');
    assert.ok(Date.now() - cancelledAt < 10_000, 'the 60 s model delay was cut short');
    assert.equal(foldUpdates(ofSession(editor, sessionId)).agentText, 'Thinking.');
  });

  it('modes: set_mode plan blocks the write without asking, auto runs it without asking', async () => {
    const editor = await initialized();
    const sessionId = await newSession(editor);
    await editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'plan' });
    await until('current_mode_update plan', () =>
      foldUpdates(ofSession(editor, sessionId)).modes.includes('plan'),
    );
    writeFileSync(join(workspace, 'summary.txt'), 'keep me');

    assert.equal((await prompt(editor, sessionId, 'Empty the summary')).stopReason, 'end_turn');
    const blocked = toolCallsInOrder(foldUpdates(ofSession(editor, sessionId)))[0]!;
    assert.equal(blocked.status, 'failed');
    assert.equal((blocked._meta?.['arbor'] as { status: string }).status, 'blocked');
    assert.equal(readFileSync(join(workspace, 'summary.txt'), 'utf8'), 'keep me');

    await editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'auto' });
    await until('current_mode_update auto', () =>
      foldUpdates(ofSession(editor, sessionId)).modes.includes('auto'),
    );
    assert.equal((await prompt(editor, sessionId, 'Empty the summary')).stopReason, 'end_turn');
    assert.equal(readFileSync(join(workspace, 'summary.txt'), 'utf8'), '');
    assert.equal(editor.permissionRequests.length, 0, 'neither mode asked');

    await assert.rejects(
      editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'yolo' }),
      (error: RequestError) => error.code === -32602,
    );
  });

  it('limits and failures reach the editor: budget as text and max_turn_requests, max_tokens, a failed turn as an error', async () => {
    const configFile = join(tempDir(), 'config.json');
    writeFileSync(configFile, JSON.stringify({ budgets: { maxLlmCalls: 1 } }));
    const editor = await initialized(['--config', configFile]);
    const sessionId = await newSession(editor);

    const limited = await prompt(editor, sessionId, 'Keep going');
    assert.equal(limited.stopReason, 'max_turn_requests');
    assert.equal(
      (limited._meta?.['arbor'] as { stopReason: string }).stopReason,
      'budget_exceeded',
    );
    const notice = ofSession(editor, sessionId)
      .map((n) => n.update)
      .find((u) => u.sessionUpdate === 'agent_message_chunk' && u._meta?.['arbor']);
    assert.ok(notice && notice.sessionUpdate === 'agent_message_chunk');
    assert.match(
      notice.content.type === 'text' ? notice.content.text : '',
      /Budget exceeded: model calls — limit 1/,
    );
    assert.equal(
      (notice._meta?.['arbor'] as { budgetExceeded: { kind: string } }).budgetExceeded.kind,
      'llm_calls',
    );

    assert.equal((await prompt(editor, sessionId, 'Cut off')).stopReason, 'max_tokens');
    await assert.rejects(prompt(editor, sessionId, 'Break down'), (error: RequestError) => {
      assert.match(error.message, /the model is down/);
      assert.equal((error.data as { arbor: { stopReason: string } }).arbor.stopReason, 'error');
      return true;
    });
  });

  it('the editor going away mid-turn: the bridge exits 0, the turn is stored cancelled and replays saying so', async () => {
    const editor = await initialized();
    const sessionId = await newSession(editor);
    void prompt(editor, sessionId, 'Think slowly').catch(() => undefined);
    await until('the turn to start', () => ofSession(editor, sessionId).length > 0);
    editors.splice(editors.indexOf(editor), 1);
    assert.equal(await editor.close(), 0, editor.stderr());

    const reader = await initialized();
    await reader.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    const replayed = foldUpdates(ofSession(reader, sessionId));
    assert.equal(replayed.userText, 'Think slowly');
    assert.match(replayed.agentText, /^Thinking\..*This turn ended early: it was cancelled/s);
  });

  it('session/list lists the Arbor sessions of a cwd; session/delete deletes one', async () => {
    const editor = await initialized();
    const kept = await newSession(editor);
    const deleted = await newSession(editor);
    const elsewhere = tempDir('arbor-acp-other-');
    await editor.agent.request(methods.agent.session.new, { cwd: elsewhere, mcpServers: [] });

    const listed = await editor.agent.request(methods.agent.session.list, { cwd: workspace });
    assert.deepEqual(listed.sessions.map((s) => s.sessionId).sort(), [kept, deleted].sort());
    for (const session of listed.sessions) {
      assert.equal(session.cwd, workspace);
      assert.ok(session.updatedAt && !Number.isNaN(Date.parse(session.updatedAt)));
    }

    await editor.agent.request(methods.agent.session.delete, { sessionId: deleted });
    const after = await editor.agent.request(methods.agent.session.list, { cwd: workspace });
    assert.deepEqual(
      after.sessions.map((s) => s.sessionId),
      [kept],
    );
    await assert.rejects(
      editor.agent.request(methods.agent.session.load, {
        sessionId: deleted,
        cwd: workspace,
        mcpServers: [],
      }),
      (error: RequestError) => error.code === RequestError.sessionNotFound(deleted).code,
    );
    await assert.rejects(
      prompt(editor, deleted, 'Tidy the notes'),
      (error: RequestError) => error.code === RequestError.sessionNotFound(deleted).code,
    );
  });
});
