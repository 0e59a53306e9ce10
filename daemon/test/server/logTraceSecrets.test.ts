/** $/logTrace carries no secret the daemon knows (lifecycle.md#lifecycle-logtrace-no-secrets). */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import { daemonSecrets } from '../../src/security/secretRedactor.js';
import { serveSocket } from '../../src/server/socketTransport.js';
import { inMemoryDaemon } from '../helpers/inMemoryDaemon.js';
import { connectTo, sleep } from '../helpers/wire.js';

describe('$/logTrace', function () {
  it('redacts the socket token from a traced initialize', async () => {
    const token = `trace-token-${randomUUID()}`;
    daemonSecrets.add(token); // as startDaemon does with the socket token
    const daemon = inMemoryDaemon();
    const path = join(mkdtempSync(join(tmpdir(), 'arbor-sock-')), 'arbor.sock');
    const server = await serveSocket(daemon.context, { kind: 'unix', path }, token);
    const { socket, client } = await connectTo(`unix:${path}`);
    try {
      await client.result(Methods.Initialize.method, { token, trace: 'verbose' });
      client.notify(Methods.Initialized.method, {});
      // A second initialize carries the token again, now while traced; it is refused.
      await client.request(Methods.Initialize.method, { token });
      await client.result(Methods.SessionList.method, {});
      await sleep(50);
      const traces = client.notifications(Methods.LogTrace.method).map((m) => JSON.stringify(m));
      assert.ok(
        traces.some((t) => t.includes("'initialize")),
        'the second initialize was traced',
      );
      assert.deepEqual(
        traces.filter((t) => t.includes(token)),
        [],
      );
    } finally {
      socket.destroy();
      await server.close();
      daemon.close();
    }
  });
});
