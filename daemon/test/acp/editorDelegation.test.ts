/**
 * The editor's files and terminals (daemon/docs/acp.md#the-editors-files-and-terminals):
 * an editor that advertises `fs` gets the workspace tools' reads and writes
 * as fs/* requests (its unsaved buffers are what the model sees, the disk is
 * left alone), one that advertises `terminal` runs run_command in a terminal
 * shown in the tool call, and one that advertises nothing keeps the disk.
 * Confinement comes first: a path outside the workspace never reaches the editor.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptInput } from '@arbor/protocol';
import {
  methods,
  RequestError,
  type ClientApp,
  type ClientCapabilities,
  type CreateTerminalRequest,
  type ReadTextFileRequest,
  type ToolCall,
  type WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import { spawnSocketDaemon, type SocketDaemon } from '../helpers/wire.js';
import {
  closeAll,
  scriptedAcp,
  startAcp,
  tempDir,
  until,
  writeScript,
  type AcpEditor,
} from './acpProcess.js';
import { foldUpdates } from './sessionFold.js';

const SECRET = 'sk-editor-delegation-test-0123456789';

const SCRIPT: ScriptInput = {
  version: 1,
  conversations: {
    'Read the notes': [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'Read them.' },
    ],
    'Write a summary': [
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'summary.txt', content: 'one note\n' } },
        ],
      },
      { text: 'Wrote it.' },
    ],
    'Edit the notes': [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      {
        toolCalls: [
          { name: 'edit_file', arguments: { path: 'notes.txt', old: 'unsaved', new: 'edited' } },
        ],
      },
      { text: 'Edited.' },
    ],
    'Patch the notes': [
      {
        toolCalls: [
          {
            name: 'apply_patch',
            arguments: {
              patch:
                '--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-edited buffer\n+patched buffer\n',
            },
          },
        ],
      },
      { text: 'Patched.' },
    ],
    'Overwrite the notes': [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'mine\n' } }] },
      { text: 'Tried.' },
    ],
    'Leave the workspace': [
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: '../outside.txt' } },
          { name: 'write_file', arguments: { path: '/etc/arbor-outside.txt', content: 'x' } },
        ],
      },
      { text: 'Stayed inside.' },
    ],
    'Run the tests': [
      { toolCalls: [{ name: 'run_command', arguments: { command: 'echo hi; exit 3' } }] },
      { text: 'Ran them.' },
    ],
    'Run forever': [
      { toolCalls: [{ name: 'run_command', arguments: { command: 'sleep 600' } }] },
      { text: 'Never said.' },
    ],
  },
};

type ReadHandler = (params: ReadTextFileRequest) => string | Promise<string>;

interface EditorLog {
  reads: ReadTextFileRequest[];
  writes: WriteTextFileRequest[];
  terminals: CreateTerminalRequest[];
  /** terminal/* requests after create, as `method terminalId`. */
  terminalCalls: string[];
}

describe('arbor acp: the editor serves files and terminals', function () {
  this.timeout(60_000);
  let dataDir: string;
  let workspace: string;
  let scriptFile: string;
  const editors: AcpEditor[] = [];

  beforeEach(() => {
    dataDir = tempDir('arbor-acp-io-data-');
    // Real path: the daemon hands the editor paths under the workspace as it names it.
    workspace = realpathSync(tempDir('arbor-acp-io-ws-'));
    scriptFile = writeScript(dataDir, SCRIPT);
    writeFileSync(join(workspace, 'notes.txt'), 'saved on disk\n');
    // The sandbox would confine run_command: only without one may it go to the editor's terminal.
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ sandbox: { mode: 'off' } }));
  });

  let daemon: SocketDaemon | undefined;

  afterEach(async () => {
    await closeAll(editors, 10_000);
    daemon?.child.kill('SIGTERM');
    await daemon?.exited;
    daemon = undefined;
  });

  interface Setup {
    capabilities: ClientCapabilities;
    read?: ReadHandler;
    /** Answers wait_for_exit; default: exit code 3 at once. */
    waitForExit?: (signal: AbortSignal) => Promise<{ exitCode: number | null }>;
    config?: boolean;
    /** Instead of the daemon in the bridge: `--connect` to this socket daemon's data dir and socket. */
    connect?: { dataDir: string; socketPath: string };
  }

  async function editorWith(setup: Setup): Promise<{ editor: AcpEditor; log: EditorLog }> {
    const log: EditorLog = { reads: [], writes: [], terminals: [], terminalCalls: [] };
    // The editor's buffers: what it was given to write, it reads back.
    const buffers = new Map<string, string>();
    const handlers = (app: ClientApp): ClientApp =>
      app
        .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
          log.reads.push(params);
          const read = setup.read ?? (() => buffers.get(params.path) ?? 'unsaved buffer\n');
          return { content: await read(params) };
        })
        .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
          log.writes.push(params);
          buffers.set(params.path, params.content);
          return {};
        })
        .onRequest(methods.client.terminal.create, ({ params }) => {
          log.terminals.push(params);
          return { terminalId: `term-${log.terminals.length}` };
        })
        .onRequest(methods.client.terminal.waitForExit, async ({ params, signal }) => {
          log.terminalCalls.push(`wait_for_exit ${params.terminalId}`);
          return (setup.waitForExit ?? (async () => ({ exitCode: 3 })))(signal);
        })
        .onRequest(methods.client.terminal.output, ({ params }) => {
          log.terminalCalls.push(`output ${params.terminalId}`);
          return { output: 'hi from the editor\n', truncated: false, exitStatus: { exitCode: 3 } };
        })
        .onRequest(methods.client.terminal.kill, ({ params }) => {
          log.terminalCalls.push(`kill ${params.terminalId}`);
          return {};
        })
        .onRequest(methods.client.terminal.release, ({ params }) => {
          log.terminalCalls.push(`release ${params.terminalId}`);
          return {};
        });
    const options = { env: { ...process.env, OPENAI_API_KEY: SECRET }, handlers };
    const editor = setup.connect
      ? startAcp(
          ['--connect', setup.connect.socketPath, '--data-dir', setup.connect.dataDir],
          options,
        )
      : scriptedAcp(
          dataDir,
          scriptFile,
          setup.config === false ? [] : ['--config', join(dataDir, 'config.json')],
          options,
        );
    editors.push(editor);
    await editor.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: setup.capabilities,
    });
    return { editor, log };
  }

  async function autoSession(editor: AcpEditor): Promise<string> {
    const { sessionId } = await editor.agent.request(methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [],
    });
    await editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'auto' });
    return sessionId;
  }

  const prompt = (editor: AcpEditor, sessionId: string, text: string) =>
    editor.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text }],
    });

  function calls(editor: AcpEditor, sessionId: string): ToolCall[] {
    const folded = foldUpdates(editor.updates.filter((n) => n.sessionId === sessionId));
    return folded.toolCallOrder.map((id) => folded.toolCalls.get(id)!);
  }

  function textOf(call: ToolCall): string {
    return (call.content ?? [])
      .map((item) =>
        item.type === 'content' && item.content.type === 'text' ? item.content.text : '',
      )
      .join('\n');
  }

  const FS: ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };

  it('read_file reads the editor buffer: the model sees unsaved text, not the disk', async () => {
    const { editor, log } = await editorWith({ capabilities: FS });
    const sessionId = await autoSession(editor);
    const answer = await prompt(editor, sessionId, 'Read the notes');
    assert.equal(answer.stopReason, 'end_turn');
    assert.deepEqual(
      log.reads.map((r) => [r.sessionId, r.path]),
      [[sessionId, join(workspace, 'notes.txt')]],
    );
    const [read] = calls(editor, sessionId);
    assert.equal(read?.status, 'completed');
    assert.match(textOf(read!), /unsaved buffer/);
    assert.doesNotMatch(textOf(read!), /saved on disk/);
  });

  it('write_file writes through the editor: it gets path and content, the disk is untouched', async () => {
    const { editor, log } = await editorWith({ capabilities: FS });
    const sessionId = await autoSession(editor);
    await prompt(editor, sessionId, 'Write a summary');
    assert.deepEqual(log.writes, [
      { sessionId, path: join(workspace, 'summary.txt'), content: 'one note\n' },
    ]);
    assert.equal(existsSync(join(workspace, 'summary.txt')), false);
    assert.equal(calls(editor, sessionId)[0]?.status, 'completed');
  });

  it('edit_file and apply_patch change the buffer they read, and write it back through the editor', async () => {
    const { editor, log } = await editorWith({ capabilities: FS });
    const sessionId = await autoSession(editor);
    await prompt(editor, sessionId, 'Edit the notes');
    await prompt(editor, sessionId, 'Patch the notes');
    assert.deepEqual(
      log.writes.map((w) => [w.path, w.content]),
      [
        [join(workspace, 'notes.txt'), 'edited buffer\n'],
        [join(workspace, 'notes.txt'), 'patched buffer\n'],
      ],
    );
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'saved on disk\n');
    assert.ok(calls(editor, sessionId).every((call) => call.status === 'completed'));
  });

  it('the stale-write guard judges by the buffer: one edited since the read is not overwritten', async () => {
    let version = 0;
    const { editor, log } = await editorWith({
      capabilities: FS,
      read: () => `buffer version ${++version}\n`,
    });
    const sessionId = await autoSession(editor);
    const answer = await prompt(editor, sessionId, 'Overwrite the notes');
    assert.equal(answer.stopReason, 'end_turn');
    const [, write] = calls(editor, sessionId);
    assert.equal(write?.status, 'failed');
    assert.match(textOf(write!), /changed in the editor after you last read it/);
    assert.deepEqual(log.writes, []);
  });

  it('a path outside the workspace is refused before any fs/* request', async () => {
    writeFileSync(join(workspace, '..', 'outside.txt'), 'outside\n');
    const { editor, log } = await editorWith({ capabilities: FS });
    const sessionId = await autoSession(editor);
    // Allowed by the user, if asked: confinement still refuses.
    editor.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
    const answer = await prompt(editor, sessionId, 'Leave the workspace');
    assert.equal(answer.stopReason, 'end_turn');
    assert.deepEqual(log.reads, []);
    assert.deepEqual(log.writes, []);
    assert.ok(calls(editor, sessionId).every((call) => call.status === 'failed'));
  });

  it('an fs error fails that tool call with the editor message, and the turn goes on', async () => {
    const { editor } = await editorWith({
      capabilities: FS,
      read: () => {
        throw RequestError.internalError(undefined, 'the buffer is locked');
      },
    });
    const sessionId = await autoSession(editor);
    const answer = await prompt(editor, sessionId, 'Read the notes');
    assert.equal(answer.stopReason, 'end_turn');
    const [read] = calls(editor, sessionId);
    assert.equal(read?.status, 'failed');
    assert.match(textOf(read!), /the editor failed fs\/read_text_file of notes\.txt/);
    const text = foldUpdates(editor.updates).agentText;
    assert.match(text, /Read them\./);
  });

  it('an editor that advertises nothing keeps the disk', async () => {
    const { editor, log } = await editorWith({ capabilities: {} });
    const sessionId = await autoSession(editor);
    await prompt(editor, sessionId, 'Read the notes');
    await prompt(editor, sessionId, 'Write a summary');
    await prompt(editor, sessionId, 'Run the tests');
    assert.deepEqual([log.reads, log.writes, log.terminals], [[], [], []]);
    const [read, , run] = calls(editor, sessionId);
    assert.match(textOf(read!), /saved on disk/);
    assert.equal(readFileSync(join(workspace, 'summary.txt'), 'utf8'), 'one note\n');
    assert.match(textOf(run!), /exit code 3/);
  });

  it('run_command runs in an editor terminal shown in the tool call; the model gets output and exit code', async () => {
    const { editor, log } = await editorWith({ capabilities: { terminal: true } });
    const sessionId = await autoSession(editor);
    const answer = await prompt(editor, sessionId, 'Run the tests');
    assert.equal(answer.stopReason, 'end_turn');
    assert.equal(log.terminals.length, 1);
    const created = log.terminals[0]!;
    assert.equal(created.sessionId, sessionId);
    assert.equal(created.command, '/bin/sh');
    assert.deepEqual(created.args, ['-c', 'echo hi; exit 3']);
    assert.equal(created.cwd, workspace);
    // The daemon's secrets are never sent; those it keeps from commands are set empty.
    assert.doesNotMatch(JSON.stringify(created), new RegExp(SECRET));
    assert.deepEqual(
      created.env?.find((variable) => variable.name === 'OPENAI_API_KEY'),
      { name: 'OPENAI_API_KEY', value: '' },
    );
    const [run] = calls(editor, sessionId);
    assert.deepEqual(run?.content?.[0], { type: 'terminal', terminalId: 'term-1' });
    assert.equal(run?.status, 'failed');
    assert.match(textOf(run!), /exit code 3/);
    assert.match(textOf(run!), /hi from the editor/);
    await until('the terminal is released', () => log.terminalCalls.includes('release term-1'));
  });

  it('cancelling the turn kills and releases the terminal', async () => {
    const { editor, log } = await editorWith({
      capabilities: { terminal: true },
      waitForExit: (signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve({ exitCode: null }), { once: true }),
        ),
    });
    const sessionId = await autoSession(editor);
    const answer = prompt(editor, sessionId, 'Run forever');
    await until('the command waits', () => log.terminalCalls.includes('wait_for_exit term-1'));
    await editor.agent.notify(methods.agent.session.cancel, { sessionId });
    assert.equal((await answer).stopReason, 'cancelled');
    await until('the terminal is released', () => log.terminalCalls.includes('release term-1'));
    assert.ok(log.terminalCalls.includes('kill term-1'));
  });

  it('with the sandbox on, run_command stays in the daemon sandbox, never in the terminal', async function () {
    const { probeBubblewrap } = await import('../../src/tools/sandbox/bubblewrap.js');
    if (!(await probeBubblewrap()).ok) this.skip();
    const { editor, log } = await editorWith({ capabilities: { terminal: true }, config: false });
    const sessionId = await autoSession(editor);
    await prompt(editor, sessionId, 'Run the tests');
    assert.deepEqual(log.terminals, []);
    const [run] = calls(editor, sessionId);
    assert.match(textOf(run!), /exit code 3/);
    assert.match(textOf(run!), /^hi$/m);
  });

  it('with --connect the daemon keeps its disk and its own spawn, whatever the editor advertised', async () => {
    const socketPath = join(dataDir, 'arbor.sock');
    daemon = await spawnSocketDaemon(socketPath, [
      '--data-dir',
      dataDir,
      '--provider',
      'scripted',
      '--script',
      scriptFile,
      '--config',
      join(dataDir, 'config.json'),
    ]);
    const { editor, log } = await editorWith({
      capabilities: { ...FS, terminal: true },
      connect: { dataDir, socketPath },
    });
    const sessionId = await autoSession(editor);
    await prompt(editor, sessionId, 'Read the notes');
    await prompt(editor, sessionId, 'Run the tests');
    assert.deepEqual([log.reads, log.terminals], [[], []]);
    const [read, run] = calls(editor, sessionId);
    assert.match(textOf(read!), /saved on disk/);
    assert.match(textOf(run!), /^hi$/m);
  });
});
