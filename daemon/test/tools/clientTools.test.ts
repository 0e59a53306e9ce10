/** Client tools (client-tools.md): declared in initialize, run with tool/execute on the sender. */
import assert from 'node:assert/strict';
import { Methods, type ClientToolDeclaration } from '@arbor/protocol';
import { ResponseError } from 'vscode-jsonrpc/node';
import { script } from '../agent/harness.js';
import {
  newSession,
  permDaemon,
  send,
  tempDir,
  toolNodes,
  toolResults,
  turnEnd,
  until,
  type PermDaemon,
} from '../permissions/helpers.js';

const openFile: ClientToolDeclaration = {
  name: 'open_file',
  description: 'Opens a file in the editor',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
  category: 'read',
};
const applyEdit: ClientToolDeclaration = {
  name: 'apply_edit',
  description: 'Applies an edit with a diff view',
  inputSchema: { type: 'object' },
  category: 'write',
};
const caps = { approvals: {}, clientTools: {} };

const callTool = (name: string, args: unknown) =>
  script({
    'use the editor': [{ toolCalls: [{ id: 'call_1', name, arguments: args }] }, { text: 'done' }],
  });

describe('client tools', function () {
  this.timeout(20_000);
  let daemon: PermDaemon | undefined;
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
  });

  it('round trip: offered in editor context, executed on the sending client, result to the model', async () => {
    daemon = permDaemon(callTool('open_file', { path: 'src/a.ts' }));
    const client = await daemon.connect({
      capabilities: caps,
      tools: [openFile],
      onExecute: (params) => ({ content: `Opened ${(params['args'] as { path: string }).path}` }),
    });
    const sessionId = await newSession(client, tempDir(), 'default', 'editor');
    const turnId = await send(client, sessionId, 'use the editor');
    await turnEnd(client, turnId);
    assert.equal(client.executes.length, 1);
    const params = client.executes[0]!.params;
    assert.equal(params['name'], 'open_file');
    assert.equal(params['sessionId'], sessionId);
    assert.equal(params['turnId'], turnId);
    assert.equal(params['toolCallId'], 'call_1');
    assert.deepEqual(params['args'], { path: 'src/a.ts' });
    const offered = daemon.provider.requests[0]!.tools!.map((t) => t.name);
    assert.ok(offered.includes('open_file'));
    assert.deepEqual(
      daemon.provider.requests[0]!.tools!.find((t) => t.name === 'open_file')!.inputSchema,
      openFile.inputSchema,
    );
    assert.equal(toolResults(daemon.provider)[0]!.content, 'Opened src/a.ts');
  });

  it('not offered in thread context, nor by a client that did not advertise clientTools', async () => {
    daemon = permDaemon(callTool('open_file', { path: 'x' }));
    const client = await daemon.connect({
      capabilities: caps,
      tools: [openFile],
      onExecute: () => ({ content: 'x' }),
    });
    const sessionId = await newSession(client, tempDir(), 'default', 'thread');
    await turnEnd(client, await send(client, sessionId, 'use the editor'));
    assert.equal(client.executes.length, 0);
    assert.ok(!daemon.provider.requests[0]!.tools!.some((t) => t.name === 'open_file'));
    const noCap = await daemon.connect({
      capabilities: { approvals: {} },
      tools: [openFile],
      onExecute: () => ({ content: 'x' }),
    });
    const editor = await newSession(noCap, tempDir(), 'default', 'editor');
    await turnEnd(noCap, await send(noCap, editor, 'use the editor'));
    assert.equal(noCap.executes.length, 0);
  });

  it('duplicate names in initialize are refused with -32602', async () => {
    daemon = permDaemon(callTool('open_file', {}));
    await assert.rejects(
      daemon.connect({ capabilities: caps, tools: [openFile, openFile] }),
      (e: unknown) => {
        assert.ok(e instanceof ResponseError);
        assert.equal(e.code, -32602);
        return true;
      },
    );
  });

  it('invalid arguments become an error result and no request is sent', async () => {
    daemon = permDaemon(callTool('open_file', { file: 1 }));
    const client = await daemon.connect({
      capabilities: caps,
      tools: [openFile],
      onExecute: () => ({ content: 'x' }),
    });
    const sessionId = await newSession(client, tempDir(), 'default', 'editor');
    await turnEnd(client, await send(client, sessionId, 'use the editor'));
    assert.equal(client.executes.length, 0);
    const result = toolResults(daemon.provider)[0]!;
    assert.equal(result.isError, true);
    assert.match(result.content, /Invalid arguments for open_file/);
  });

  it('goes through the gate: a write client tool asks first, and deny sends no tool/execute', async () => {
    daemon = permDaemon(callTool('apply_edit', {}));
    const client = await daemon.connect({
      capabilities: caps,
      tools: [applyEdit],
      onExecute: () => ({ content: 'applied' }),
    });
    const sessionId = await newSession(client, tempDir(), 'default', 'editor');
    const turnId = await send(client, sessionId, 'use the editor');
    await until(() => client.asks.length === 1);
    assert.equal(client.asks[0]!.params['category'], 'write');
    client.asks[0]!.answer({ decision: 'deny' });
    await turnEnd(client, turnId);
    assert.equal(client.executes.length, 0);
    assert.match(toolResults(daemon.provider)[0]!.content, /^permission_denied/);
  });

  it('an error response becomes an error result, and the turn goes on', async () => {
    daemon = permDaemon(callTool('open_file', { path: 'x' }));
    const client = await daemon.connect({
      capabilities: caps,
      tools: [openFile],
      onExecute: () => {
        throw new ResponseError(-33010, 'Unknown client tool: open_file');
      },
    });
    const sessionId = await newSession(client, tempDir(), 'default', 'editor');
    const end = await turnEnd(client, await send(client, sessionId, 'use the editor'));
    assert.equal(end['stopReason'], 'end_turn');
    assert.equal(toolNodes(client, 'open_file')[0]!['status'], 'error');
    assert.match(toolResults(daemon.provider)[0]!.content, /Unknown client tool/);
  });

  it('the client disconnecting mid-call: error result, the turn goes on', async () => {
    daemon = permDaemon(callTool('open_file', { path: 'x' }));
    const client = await daemon.connect({ capabilities: caps, tools: [openFile] });
    const observer = await daemon.connect();
    const sessionId = await newSession(client, tempDir(), 'default', 'editor');
    await observer.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    const turnId = await send(client, sessionId, 'use the editor');
    await until(() => client.executes.length === 1);
    client.close();
    const end = await turnEnd(observer, turnId);
    assert.equal(end['stopReason'], 'end_turn');
    assert.equal(toolNodes(observer, 'open_file')[0]!['status'], 'error');
    assert.match(toolResults(daemon.provider)[0]!.content, /disconnected/);
  });

  it('cancelling the turn sends $/cancelRequest for the outstanding tool/execute', async () => {
    daemon = permDaemon(callTool('open_file', { path: 'x' }));
    const client = await daemon.connect({ capabilities: caps, tools: [openFile] });
    const sessionId = await newSession(client, tempDir(), 'default', 'editor');
    const turnId = await send(client, sessionId, 'use the editor');
    await until(() => client.executes.length === 1);
    await client.request(Methods.ChatCancel, { sessionId });
    await client.executes[0]!.cancelled;
    const end = await turnEnd(client, turnId);
    assert.equal(end['stopReason'], 'cancelled');
    assert.equal(toolNodes(client, 'open_file')[0]!['status'], 'cancelled');
  });

  it("a declared tool named like a daemon tool is not offered (the daemon's wins)", async () => {
    daemon = permDaemon(callTool('read_file', { path: 'x' }));
    const shadow = { ...openFile, name: 'read_file' };
    const client = await daemon.connect({
      capabilities: caps,
      tools: [shadow],
      onExecute: () => ({ content: 'client' }),
    });
    const sessionId = await newSession(client, tempDir(), 'default', 'editor');
    await turnEnd(client, await send(client, sessionId, 'use the editor'));
    assert.equal(client.executes.length, 0);
    assert.equal(
      daemon.provider.requests[0]!.tools!.filter((t) => t.name === 'read_file').length,
      1,
    );
  });
});
