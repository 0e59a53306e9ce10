/** session/setModel: a chat goes on with another model, from its next turn on. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, Methods } from '@arbor/protocol';
import {
  FakeRunner,
  inMemoryDaemon,
  until,
  errorCodeOf as code,
} from './helpers/inMemoryDaemon.js';
import { assertValid } from './helpers/schemas.js';

const root = () => mkdtempSync(join(tmpdir(), 'arbor-ws-'));

describe('session/setModel', () => {
  it('switches from the next turn on, tells every client, and survives a restart', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const owner = await daemon.connect();
    const watcher = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, {
      workspaceRoot: root(),
      model: 'openai:gpt-4.1',
    });
    await watcher.request(Methods.SessionAttach, { sessionId, role: 'observer' });

    await owner.request(Methods.ChatSend, { sessionId, text: 'first' });
    await until(() => runner.requests.length === 1);
    const switched = await owner.request(Methods.SessionSetModel, {
      sessionId,
      model: 'anthropic:claude-sonnet-4-5',
    });
    assertValid(Methods.SessionSetModel.result, switched);
    assert.deepEqual(switched, { model: 'anthropic:claude-sonnet-4-5' });
    for (const client of [owner, watcher]) {
      await until(() => client.eventsOf(Methods.SessionUpdate).some((p) => p['model']));
      assert.equal(
        client.eventsOf(Methods.SessionUpdate).find((p) => p['model'])?.['model'],
        'anthropic:claude-sonnet-4-5',
      );
    }
    assert.equal(runner.requests[0]!.model, 'openai:gpt-4.1', 'the running turn keeps its model');
    runner.finish();
    await until(() => owner.eventsOf(Methods.SessionState).some((p) => p['state'] === 'idle'));
    await owner.request(Methods.ChatSend, { sessionId, text: 'second' });
    await until(() => runner.requests.length === 2);
    assert.equal(runner.requests[1]!.model, 'anthropic:claude-sonnet-4-5');
    runner.finish();

    daemon.close();
    const again = inMemoryDaemon({ dataDir: daemon.dataDir });
    const client = await again.connect();
    const loaded = await client.request(Methods.SessionLoad, { sessionId });
    assert.equal(loaded.session.model, 'anthropic:claude-sonnet-4-5');
    again.close();
  });

  it('observers, strangers and bad models change nothing', async () => {
    const daemon = inMemoryDaemon();
    const owner = await daemon.connect();
    const observer = await daemon.connect();
    const stranger = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, {
      workspaceRoot: root(),
      model: 'openai:gpt-4.1',
    });
    await observer.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    const model = 'openai:gpt-4.1-mini';
    assert.equal(
      await code(observer.request(Methods.SessionSetModel, { sessionId, model })),
      ErrorCodes.NotController,
    );
    assert.equal(
      await code(stranger.request(Methods.SessionSetModel, { sessionId, model })),
      ErrorCodes.NotAttached,
    );
    for (const bad of ['nocolon', 'bogus:x', ':']) {
      assert.equal(
        await code(owner.request(Methods.SessionSetModel, { sessionId, model: bad })),
        ErrorCodes.InvalidModel,
        bad,
      );
    }
    const loaded = await owner.request(Methods.SessionLoad, { sessionId });
    assert.equal(loaded.session.model, 'openai:gpt-4.1');
    assert.equal(owner.eventsOf(Methods.SessionUpdate).filter((p) => p['model']).length, 0);
  });

  it('is advertised, and a local: model keeps its credentials out of the answer', async () => {
    const daemon = inMemoryDaemon();
    const owner = await daemon.connect({ initialize: false });
    const init = await owner.request(Methods.Initialize, {});
    assert.equal(init.capabilities.sessions.setModel, true);
    owner.rpc.sendNotification(Methods.Initialized.method, {});
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    const switched = await owner.request(Methods.SessionSetModel, {
      sessionId,
      model: 'local:qwen@http://bob:hunter2hunter2@127.0.0.1:9/v1',
    });
    assert.equal(switched.model, 'local:qwen@http://127.0.0.1:9/v1');
  });
});
