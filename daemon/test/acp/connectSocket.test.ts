/**
 * `arbor acp --connect`: the bridge attaches to a running socket daemon
 * instead of running its own, so another Arbor client (here a plain client
 * core observer, as the VS Code extension would be) watches the same turn.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptInput } from '@arbor/protocol';
import { SessionTracker } from '@arbor/protocol/client';
import { connectArbor, readTokenFile, type ArborConnection } from '@arbor/protocol/client/node';
import { methods } from '@agentclientprotocol/sdk';
import { spawnSocketDaemon, type SocketDaemon } from '../helpers/wire.js';
import { startAcp, tempDir, until, writeScript, type AcpEditor } from './acpProcess.js';
import { foldUpdates } from './sessionFold.js';

describe('arbor acp --connect (socket daemon, process)', function () {
  this.timeout(60_000);
  let daemon: SocketDaemon | undefined;
  let editor: AcpEditor | undefined;
  let second: AcpEditor | undefined;
  let observer: ArborConnection | undefined;

  afterEach(async () => {
    await observer?.close();
    for (const bridge of [editor, second]) {
      if (bridge) assert.equal(await bridge.close(), 0, bridge.stderr());
    }
    daemon?.child.kill('SIGTERM');
    await daemon?.exited;
    [daemon, editor, second, observer] = [undefined, undefined, undefined, undefined];
  });

  async function socketDaemon(conversations: ScriptInput['conversations']) {
    const dataDir = tempDir('arbor-acp-sock-');
    const socketPath = join(dataDir, 'arbor.sock');
    const script = writeScript(tempDir(), { version: 1, conversations });
    daemon = await spawnSocketDaemon(socketPath, [
      '--data-dir',
      dataDir,
      '--provider',
      'scripted',
      '--script',
      script,
    ]);
    return { dataDir, socketPath };
  }

  async function connectedEditor(socketPath: string, dataDir: string): Promise<AcpEditor> {
    const bridge = startAcp(['--connect', socketPath, '--data-dir', dataDir]);
    const { agentCapabilities } = await bridge.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
    });
    // The Arbor protocol cannot pass MCP servers to a daemon in another process.
    assert.deepEqual(agentCapabilities?.mcpCapabilities, { http: false, sse: false });
    return bridge;
  }

  it('a prompt from the editor runs on the socket daemon while a second Arbor client watches the same turn; MCP servers are refused', async () => {
    const { dataDir, socketPath } = await socketDaemon({
      'Hello there': [
        { text: 'Hi from the socket daemon.', toolCalls: [{ name: 'list_dir', arguments: {} }] },
        { text: 'Bye.' },
      ],
    });
    const workspace = tempDir('arbor-acp-ws-');
    editor = await connectedEditor(socketPath, dataDir);
    const { sessionId, _meta } = await editor.agent.request(methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [{ name: 'files', command: 'mcp-files', args: [], env: [] }],
    });
    assert.deepEqual(
      (_meta?.['arbor'] as { unsupported: { mcpServers: string[] } }).unsupported.mcpServers,
      ['files'],
    );
    await until('the refusal in the log', () =>
      /MCP servers from the editor not run: files: .*--connect/.test(editor!.stderr()),
    );

    observer = await connectArbor(
      { socket: socketPath },
      { clientInfo: { name: 'observer' }, token: readTokenFile(join(dataDir, 'token')) },
    );
    const tracker = new SessionTracker(observer.client, { approvals: false });
    await observer.client.initialize();
    const view = await tracker.attach(sessionId, { role: 'observer' });
    let watchedText = '';
    let watchedEnd: string | undefined;
    view.on('text', ({ text }) => (watchedText += text));
    view.on('turnEnded', ({ stopReason }) => (watchedEnd = stopReason));

    const result = await editor.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'Hello there' }],
    });
    assert.equal(result.stopReason, 'end_turn');
    await until('the observer to see the turn end', () => watchedEnd !== undefined);
    const seen = foldUpdates(editor.updates.filter((n) => n.sessionId === sessionId));
    assert.equal(watchedEnd, 'end_turn');
    assert.equal(watchedText, seen.agentText);
    assert.match(watchedText, /Hi from the socket daemon\..*Bye\./s);
    assert.equal(
      seen.toolCalls.size,
      view.tree.toSnapshot().nodes.length - 1,
      'one tool call per non-turn node',
    );
  });

  it('a second editor loads the session mid-turn: it sees the running call, answers the pending permission, and the first editor’s request is withdrawn', async () => {
    const { dataDir, socketPath } = await socketDaemon({
      'Write the report': [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'report.txt', content: 'ok\n' } }] },
        { text: 'Report written.' },
      ],
    });
    const workspace = tempDir('arbor-acp-ws-');
    editor = await connectedEditor(socketPath, dataDir);
    let firstWithdrawn = false;
    editor.onPermission = async (_request, signal) => {
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      firstWithdrawn = true;
      return { outcome: { outcome: 'cancelled' } };
    };
    const { sessionId } = await editor.agent.request(methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [],
    });
    const running = editor.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'Write the report' }],
    });
    await until('the first editor to be asked', () => editor!.permissionRequests.length === 1);

    second = await connectedEditor(socketPath, dataDir);
    second.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
    await second.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    const asked = editor.permissionRequests[0]!.toolCall.toolCallId;
    const atLoad = foldUpdates(second.updates.filter((n) => n.sessionId === sessionId));
    assert.equal(
      atLoad.toolCalls.get(asked)?.status,
      'pending',
      'the running call is shown at load',
    );

    assert.equal((await running).stopReason, 'end_turn');
    assert.equal(readFileSync(join(workspace, 'report.txt'), 'utf8'), 'ok\n');
    assert.deepEqual(
      second.permissionRequests.map((r) => r.toolCall.toolCallId),
      [asked],
    );
    assert.ok(firstWithdrawn, 'the first editor’s permission request was withdrawn');
    await until('the second editor to see the answer', () =>
      foldUpdates(second!.updates.filter((n) => n.sessionId === sessionId)).agentText.includes(
        'Report written.',
      ),
    );
  });
});
