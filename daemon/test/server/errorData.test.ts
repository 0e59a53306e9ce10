/** Errors whose `data` has a shape send it as the schema says (errors.md#error-data). */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ErrorCodes,
  Methods,
  TurnInProgressData,
  UnsupportedProtocolVersionData,
} from '@arbor/protocol';
import { ResponseError } from 'vscode-jsonrpc/node';
import { rpcErrors } from '../../src/rpcError.js';
import { FakeRunner, inMemoryDaemon, until } from '../helpers/inMemoryDaemon.js';
import { assertValid } from '../helpers/schemas.js';

describe('error data shapes', () => {
  it('-33005 TurnInProgress carries the running turnId', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const client = await daemon.connect();
    const { sessionId } = await client.request(Methods.SessionNew, {
      workspaceRoot: mkdtempSync(join(tmpdir(), 'arbor-ws-')),
    });
    const { turnId } = await client.request(Methods.ChatSend, { sessionId, text: 'first' });
    await until(() => runner.requests.length === 1);
    const refused = await client.request(Methods.ChatSend, { sessionId, text: 'second' }).then(
      () => assert.fail('a second chat/send was accepted'),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof ResponseError);
    assert.equal(refused.code, ErrorCodes.TurnInProgress);
    assertValid(TurnInProgressData, refused.data, 'the -33005 data');
    assert.equal((refused.data as TurnInProgressData).turnId, turnId);
    runner.finish();
    client.close();
    daemon.close();
  });

  it('-33001 UnsupportedProtocolVersion lists the supported versions', () => {
    const error = rpcErrors.unsupportedProtocolVersion(7, [3, 2]);
    assert.equal(error.code, ErrorCodes.UnsupportedProtocolVersion);
    assertValid(UnsupportedProtocolVersionData, error.data, 'the -33001 data');
    assert.deepEqual(error.data, { supported: [3, 2] });
  });
});
