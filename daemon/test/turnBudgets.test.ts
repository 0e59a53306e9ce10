/** chat/send budgets: a client asks for a cheaper turn, never a dearer one; the limits are advertised. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import { spawnStdioDaemon, type DaemonProcess, type Json } from './helpers/wire.js';

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** A model that keeps calling a tool: only a budget ends its turn. */
const ENDLESS = {
  version: 1,
  conversations: {
    '*': Array.from({ length: 20 }, () => ({
      toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }],
    })),
  },
};

describe('turn budgets a client asks for (chat/send budgets)', function () {
  this.timeout(30_000);
  let daemon: DaemonProcess | undefined;
  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  it('advertises its limits and approval timeout; budgets lower a limit for one turn and never raise it', async () => {
    const config = join(tmp('arbor-config-'), 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ budgets: { maxLlmCalls: 4 }, approvalTimeoutMs: 45_000 }),
    );
    daemon = spawnStdioDaemon([
      '--data-dir',
      tmp('arbor-data-'),
      '--provider',
      'scripted',
      '--config',
      config,
    ]);
    const { client } = daemon;
    const init = await client.result(Methods.Initialize.method, {});
    const capabilities = init['capabilities'] as Json;
    assert.equal(((capabilities['budgets'] as Json)['limits'] as Json)['llm_calls'], 4);
    assert.deepEqual(capabilities['approvals'], { timeoutMs: 45_000 });
    client.notify(Methods.Initialized.method, {});
    const session = await client.result(Methods.SessionNew.method, {
      workspaceRoot: tmp('arbor-ws-'),
      permissionMode: 'auto',
    });
    const sessionId = session['sessionId'] as string;
    await client.result(Methods.SetScript.method, { sessionId, script: ENDLESS });

    const limitHit = async (budgets: object | undefined): Promise<number> => {
      const from = client.received.messages.length;
      const sent = await client.result(Methods.ChatSend.method, {
        sessionId,
        text: 'go on forever',
        ...(budgets && { budgets }),
      });
      const exceeded = await client.received.waitFor(
        (m) =>
          m['method'] === Methods.BudgetExceeded.method &&
          (m['params'] as Json)['turnId'] === sent['turnId'],
        10_000,
        from,
      );
      await client.received.waitFor(
        (m) =>
          m['method'] === Methods.SessionState.method &&
          (m['params'] as Json)['state'] === 'idle' &&
          (m['params'] as Json)['turnId'] === sent['turnId'],
        10_000,
        from,
      );
      assert.equal((exceeded['params'] as Json)['kind'], 'llm_calls');
      return (exceeded['params'] as Json)['limit'] as number;
    };
    assert.equal(await limitHit({ llm_calls: 2 }), 2, 'lowered for this turn');
    assert.equal(await limitHit(undefined), 4, 'the next turn has the daemon limit again');
    assert.equal(await limitHit({ llm_calls: 50 }), 4, 'a higher value changes nothing');
  });
});
