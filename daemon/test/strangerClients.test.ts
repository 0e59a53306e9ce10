/**
 * What clients written from the spec alone send and expect (Neovim's and
 * Eglot's LSP clients, pygls, a plain Python client): a spawned daemon on
 * the scripted provider, spoken to with raw frames, never with our own
 * client code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, Methods } from '@arbor/protocol';
import { assertValidNotification } from './helpers/schemas.js';
import {
  connectTo,
  sleep,
  spawnSocketDaemon,
  spawnStdioDaemon,
  type DaemonProcess,
  type Json,
  type WireClient,
} from './helpers/wire.js';

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** One turn that writes a file (asks for approval in default mode), then answers. */
const WRITE_SCRIPT = {
  version: 1,
  conversations: {
    '*': [
      {
        text: 'Writing it.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'hi' } }],
      },
      { text: 'Done.' },
    ],
  },
};

/** A turn that streams and runs a tool, then waits long enough to be cancelled or deleted. */
const SLOW_SCRIPT = {
  version: 1,
  conversations: {
    '*': [
      { text: 'Thinking', toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { text: 'never', delayMs: 60_000 },
    ],
  },
};

function errorCode(response: Json): number | undefined {
  return (response['error'] as { code?: number } | undefined)?.code;
}

function idleOf(client: WireClient, turnId: unknown): Json | undefined {
  return client
    .notifications(Methods.SessionState.method)
    .map((n) => n['params'] as Json)
    .find((p) => p['state'] === 'idle' && p['turnId'] === turnId);
}

async function waitFor<T>(
  probe: () => T | undefined,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('clients written by strangers (process, raw frames)', function () {
  this.timeout(30_000);
  let daemon: DaemonProcess | undefined;
  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  function spawnScripted(): DaemonProcess {
    daemon = spawnStdioDaemon(['--data-dir', tmp('arbor-data-'), '--provider', 'scripted']);
    return daemon;
  }

  async function newSession(client: WireClient, script: object, mode = 'default'): Promise<string> {
    const session = await client.result(Methods.SessionNew.method, {
      workspaceRoot: tmp('arbor-ws-'),
      permissionMode: mode,
    });
    const sessionId = session['sessionId'] as string;
    await client.result(Methods.SetScript.method, { sessionId, script });
    return sessionId;
  }

  it('params null on shutdown, exit and session/list works as params omitted (Eglot, pygls)', async () => {
    const { client, exited } = spawnScripted();
    const init = await client.request(Methods.Initialize.method, { capabilities: {} });
    assert.ok(init['result'], JSON.stringify(init));
    client.notify(Methods.Initialized.method, null);
    const list = await client.request(Methods.SessionList.method, null);
    assert.deepEqual(list['result'], { sessions: [] });
    const bad = await client.request(Methods.SessionNew.method, null);
    assert.equal(errorCode(bad), ErrorCodes.InvalidParams, 'a method with required params says so');
    assert.match(String((bad['error'] as Json)['message']), /workspaceRoot/);
    const arrayParams = await client.request(Methods.Shutdown.method, [1]);
    assert.equal(errorCode(arrayParams), ErrorCodes.InvalidParams);
    const shutdown = await client.request(Methods.Shutdown.method, null);
    assert.deepEqual(shutdown, { jsonrpc: '2.0', id: shutdown['id'], result: null });
    client.notify(Methods.Exit.method, null);
    assert.equal(await exited, 0, 'exit with params null after shutdown ends with code 0');
  });

  it('capabilities, tools and trace under initializationOptions, and [] for {} (pygls, Neovim), complete a turn with an approval', async () => {
    const { client } = spawnScripted();
    const init = await client.request(Methods.Initialize.method, {
      processId: null,
      // What an lsprotocol-typed client sends: LSP's own capabilities at the top…
      capabilities: { textDocument: { synchronization: {} }, workspace: [] },
      trace: 'messages',
      // …and Arbor's where it can put extra data; Lua encodes {} as [].
      initializationOptions: { capabilities: { approvals: [] }, tools: [] },
    });
    assert.ok(init['result'], JSON.stringify(init));
    client.notify(Methods.Initialized.method, []);
    const sessionId = await newSession(client, WRITE_SCRIPT);
    const sent = await client.result(Methods.ChatSend.method, { sessionId, text: 'write it' });
    const ask = await client.received.waitFor(
      (m) => m['method'] === Methods.ApprovalRequest.method,
    );
    client.send({ jsonrpc: '2.0', id: ask['id'], result: { decision: 'allow' } });
    const idle = await waitFor(() => idleOf(client, sent['turnId']), 'the idle event');
    assert.equal(idle['stopReason'], 'end_turn');
    const resolved = client.notifications(Methods.ApprovalResolved.method)[0]?.['params'] as Json;
    assert.equal(resolved['outcome'], 'approved');
    const root = (
      await client.result(Methods.SessionList.method, {}).then((r) => r['sessions'] as Json[])
    )[0]!['workspaceRoot'] as string;
    assert.equal(readFileSync(join(root, 'out.txt'), 'utf8'), 'hi');
    assert.ok(
      client.notifications('$/logTrace').length > 0,
      'initialize.trace "messages" turned tracing on',
    );
  });

  it('sends no tool/approvalRequest before the client sent initialized', async () => {
    const { client } = spawnScripted();
    await client.result(Methods.Initialize.method, { capabilities: { approvals: {} } });
    // A sloppy client: requests before its `initialized`.
    const sessionId = await newSession(client, WRITE_SCRIPT);
    await client.result(Methods.ChatSend.method, { sessionId, text: 'write it' });
    await waitFor(
      () =>
        client
          .notifications(Methods.TreeUpdate.method)
          .some((n) =>
            ((n['params'] as Json)['nodes'] as Json[]).some(
              (node) => node['status'] === 'awaiting_approval',
            ),
          ),
      'the call to await approval',
    );
    await sleep(300);
    const early = client.received.messages.filter(
      (m) => m['method'] === Methods.ApprovalRequest.method,
    );
    assert.equal(early.length, 0, 'no request before initialized');
    client.notify(Methods.Initialized.method, {});
    const ask = await client.received.waitFor(
      (m) => m['method'] === Methods.ApprovalRequest.method,
    );
    assert.equal((ask['params'] as Json)['sessionId'], sessionId);
  });

  it('session/new with a malformed model or an unknown provider answers -33011', async () => {
    const { client } = spawnScripted();
    await client.result(Methods.Initialize.method, {});
    client.notify(Methods.Initialized.method, {});
    for (const model of ['nocolon', 'bogusprovider:x', ':', 'openai:', 'local:x@notaurl']) {
      const answer = await client.request(Methods.SessionNew.method, {
        workspaceRoot: tmp('arbor-ws-'),
        model,
      });
      assert.equal(errorCode(answer), ErrorCodes.InvalidModel, `model ${model}`);
    }
    const ok = await client.request(Methods.SessionNew.method, {
      workspaceRoot: tmp('arbor-ws-'),
      model: 'scripted:demo',
    });
    assert.ok(ok['result']);
  });

  it('stdio shutdown during a turn ends it as cancelled before answering, and it stays cancelled', async () => {
    const dataDir = tmp('arbor-data-');
    daemon = spawnStdioDaemon(['--data-dir', dataDir, '--provider', 'scripted']);
    const { client, exited } = daemon;
    await client.result(Methods.Initialize.method, {});
    client.notify(Methods.Initialized.method, {});
    const sessionId = await newSession(client, SLOW_SCRIPT, 'auto');
    const sent = await client.result(Methods.ChatSend.method, { sessionId, text: 'go' });
    await waitFor(() => client.notifications(Methods.ChatChunk.method).length > 0, 'a chunk');
    const shutdown = await client.request(Methods.Shutdown.method);
    assert.equal(shutdown['result'], null);
    const idle = idleOf(client, sent['turnId']);
    assert.equal(idle?.['stopReason'], 'cancelled', 'the idle came before the shutdown answer');
    client.notify(Methods.Exit.method);
    assert.equal(await exited, 0);

    daemon = spawnStdioDaemon(['--data-dir', dataDir, '--provider', 'scripted']);
    const again = daemon.client;
    await again.result(Methods.Initialize.method, {});
    again.notify(Methods.Initialized.method, {});
    const loaded = await again.result(Methods.SessionLoad.method, { sessionId });
    const answer = (loaded['messages'] as Json[]).find((m) => m['role'] === 'assistant');
    assert.equal(answer?.['status'], 'cancelled', 'stored as cancelled, not interrupted');
    assert.match(String(answer?.['content']), /Thinking/);
  });

  it('session/delete during a turn: every attached client gets cost/summary, idle cancelled, then session/deleted', async () => {
    const dataDir = tmp('arbor-data-');
    const socketDaemon = await spawnSocketDaemon(join(dataDir, 'arbor.sock'), [
      '--data-dir',
      dataDir,
      '--provider',
      'scripted',
    ]);
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    try {
      const open = async (): Promise<WireClient> => {
        const { client } = await connectTo(socketDaemon.address);
        await client.result(Methods.Initialize.method, { token });
        client.notify(Methods.Initialized.method, {});
        return client;
      };
      const owner = await open();
      const watcher = await open();
      const sessionId = await newSession(owner, SLOW_SCRIPT, 'auto');
      await watcher.result(Methods.SessionAttach.method, { sessionId, role: 'observer' });
      const sent = await owner.result(Methods.ChatSend.method, { sessionId, text: 'go' });
      await waitFor(() => watcher.notifications(Methods.ChatChunk.method).length > 0, 'a chunk');

      assert.deepEqual(await owner.result(Methods.SessionDelete.method, { sessionId }), {});
      for (const client of [owner, watcher]) {
        await client.received.waitFor((m) => m['method'] === Methods.SessionDeleted.method);
        const events = client
          .notifications()
          .filter((n) => (n['params'] as Json)['sessionId'] === sessionId);
        for (const event of events)
          assertValidNotification(event['method'] as string, event['params']);
        const methods = events.map((n) => n['method']);
        const idle = idleOf(client, sent['turnId']);
        assert.equal(idle?.['stopReason'], 'cancelled');
        const idles = events.filter(
          (n) =>
            n['method'] === Methods.SessionState.method &&
            (n['params'] as Json)['state'] === 'idle',
        );
        assert.equal(idles.length, 1, 'exactly one idle');
        assert.ok(methods.includes(Methods.CostSummary.method), 'the turn has its cost/summary');
        assert.equal(methods.at(-1), Methods.SessionDeleted.method, 'session/deleted comes last');
        const seqs = events.map((n) => (n['params'] as Json)['seq'] as number);
        assert.deepEqual(
          seqs,
          [...seqs].sort((a, b) => a - b),
          'in seq order',
        );
      }
      const gone = await watcher.request(Methods.SessionLoad.method, { sessionId });
      assert.equal(errorCode(gone), ErrorCodes.SessionNotFound);
    } finally {
      socketDaemon.child.kill('SIGKILL');
    }
  });
});
