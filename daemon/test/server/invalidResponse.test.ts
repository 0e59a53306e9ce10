/**
 * A message shaped as a response is never answered, even when invalid
 * (transport.md#transport-invalid-response); an invalid one fails the
 * request it names instead of being taken as its result.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, Methods } from '@arbor/protocol';
import { checkEnvelope } from '../../src/server/envelope.js';
import { spawnStdioDaemon, sleep, type DaemonProcess } from '../helpers/wire.js';

describe('responses with both result and error, or a malformed error', () => {
  it('become an error answer to the request they name, never a result', () => {
    for (const value of [
      { jsonrpc: '2.0', id: 7, result: { decision: 'allow' }, error: { code: 1, message: 'no' } },
      { jsonrpc: '2.0', id: 7, error: 'not an object' },
      { jsonrpc: '2.0', id: 7, error: { code: 1.5, message: 'fractional code' } },
    ]) {
      const checked = checkEnvelope(value);
      assert.ok(checked.ok, JSON.stringify(value));
      const message = checked.message as unknown as Record<string, unknown>;
      assert.equal(message['id'], 7);
      assert.equal('result' in message, false, 'no result survives');
      assert.equal((message['error'] as { code: number }).code, ErrorCodes.InvalidRequest);
    }
  });

  it('without a usable id they are dropped, with no fault to answer', () => {
    const checked = checkEnvelope({ jsonrpc: '2.0', id: null, result: 1, error: {} });
    assert.deepEqual(checked, { ok: false, fault: null });
  });

  it('a valid response and a message with neither result nor error keep their old handling', () => {
    assert.ok(checkEnvelope({ jsonrpc: '2.0', id: 3, result: null }).ok);
    const neither = checkEnvelope({ jsonrpc: '2.0', id: 3 });
    assert.equal(neither.ok, false);
    assert.equal(!neither.ok && neither.fault?.code, ErrorCodes.InvalidRequest);
  });

  describe('on the wire (stdio)', () => {
    let daemon: DaemonProcess | undefined;
    afterEach(() => {
      daemon?.child.kill('SIGKILL');
      daemon = undefined;
    });

    it('the daemon answers none of them and goes on serving', async () => {
      daemon = spawnStdioDaemon(['--data-dir', mkdtempSync(join(tmpdir(), 'arbor-data-'))]);
      const { client } = daemon;
      assert.ok(await client.result(Methods.Initialize.method, {}));
      client.notify(Methods.Initialized.method, {});
      client.send({ jsonrpc: '2.0', id: 'stray-1', result: {}, error: { code: 1, message: 'x' } });
      client.send({ jsonrpc: '2.0', id: 'stray-2', error: 'x' });
      client.send({ jsonrpc: '2.0', id: { not: 'an id' }, result: {}, error: {} });
      assert.ok(await client.result(Methods.SessionList.method, {}));
      await sleep(100);
      const answered = client.received.messages.filter(
        (m) => m['id'] === 'stray-1' || m['id'] === 'stray-2' || m['id'] === null,
      );
      assert.deepEqual(answered, []);
    });

    it('an approval answered with both result allow and an error is not a decision: the call does not run', async () => {
      daemon = spawnStdioDaemon([
        '--data-dir',
        mkdtempSync(join(tmpdir(), 'arbor-data-')),
        '--provider',
        'scripted',
      ]);
      const { client } = daemon;
      await client.result(Methods.Initialize.method, { capabilities: { approvals: {} } });
      client.notify(Methods.Initialized.method, {});
      const workspaceRoot = mkdtempSync(join(tmpdir(), 'arbor-ws-'));
      const { sessionId } = await client.result(Methods.SessionNew.method, {
        workspaceRoot,
        permissionMode: 'default',
      });
      await client.result(Methods.SetScript.method, {
        sessionId,
        script: {
          version: 1,
          conversations: {
            '*': [
              {
                toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'x' } }],
              },
              { text: 'Done.' },
            ],
          },
        },
      });
      const { turnId } = await client.result(Methods.ChatSend.method, { sessionId, text: 'go' });
      const ask = await client.received.waitFor(
        (m) => m['method'] === Methods.ApprovalRequest.method,
      );
      client.send({
        jsonrpc: '2.0',
        id: ask['id'],
        result: { decision: 'allow' },
        error: { code: -32603, message: 'and an error' },
      });
      await client.received.waitFor(
        (m) =>
          m['method'] === Methods.SessionState.method &&
          (m['params'] as Record<string, unknown>)['state'] === 'idle' &&
          (m['params'] as Record<string, unknown>)['turnId'] === turnId,
      );
      const resolved = client.notifications(Methods.ApprovalResolved.method)[0]?.['params'] as
        Record<string, unknown> | undefined;
      assert.equal(resolved?.['outcome'], 'rejected');
      assert.equal(existsSync(join(workspaceRoot, 'out.txt')), false, 'the write never ran');
      assert.deepEqual(
        client.received.messages.filter((m) => m['id'] === ask['id'] && !('method' in m)),
        [],
        'the invalid answer itself got no answer',
      );
    });
  });
});
