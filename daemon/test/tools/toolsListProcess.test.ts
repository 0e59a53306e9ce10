/**
 * Process-level: a spawned `arbor daemon --stdio` serves tools/list through
 * its lazily loaded agent, with the config's always-ask list, spoken to with
 * raw frames (test/helpers/wire.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, Methods, type ToolInfo } from '@arbor/protocol';
import { DAEMON_TOOL_NAMES } from '../../src/tools/toolNames.js';
import { assertValid } from '../helpers/schemas.js';
import { spawnStdioDaemon, type DaemonProcess } from '../helpers/wire.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'arbor-tools-'));

describe('tools/list (daemon process)', function () {
  this.timeout(20_000);
  let daemon: DaemonProcess | undefined;

  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  async function started(): Promise<DaemonProcess> {
    const config = join(tmp(), 'config.json');
    writeFileSync(config, JSON.stringify({ alwaysAsk: ['grep'] }));
    daemon = spawnStdioDaemon(['--data-dir', tmp(), '--config', config]);
    const init = (await daemon.client.result(Methods.Initialize.method, {})) as {
      capabilities: Record<string, unknown>;
    };
    assert.deepEqual(init.capabilities['tools'], {}, 'capabilities.tools is advertised');
    daemon.client.notify(Methods.Initialized.method, {});
    return daemon;
  }

  async function list(params: unknown): Promise<ToolInfo[]> {
    const result = await daemon!.client.result(Methods.ToolsList.method, params);
    assertValid(Methods.ToolsList.result, result, 'tools/list result');
    return (result as { tools: ToolInfo[] }).tools;
  }

  it('lists the built-in tools, with params null, [] or absent too', async () => {
    await started();
    const tools = await list(null);
    assert.deepEqual(tools.map((t) => t.name).sort(), [...DAEMON_TOOL_NAMES].sort());
    assert.ok(tools.every((t) => t.permission === undefined && t.origin === 'daemon'));
    for (const params of [undefined, [], {}]) {
      assert.deepEqual(
        (await list(params)).map((t) => t.name),
        tools.map((t) => t.name),
        JSON.stringify(params),
      );
    }
  });

  it("a session's tools carry the permission of its mode and the config's always-ask list", async () => {
    const { client } = await started();
    const session = (await client.result(Methods.SessionNew.method, {
      workspaceRoot: tmp(),
      permissionMode: 'auto',
    })) as { sessionId: string };
    const verdicts = Object.fromEntries(
      (await list({ sessionId: session.sessionId })).map((t) => [t.name, t.permission]),
    );
    assert.equal(verdicts['write_file'], 'run');
    assert.equal(verdicts['grep'], 'ask');
    const unknown = await client.request(Methods.ToolsList.method, { sessionId: 'ses_gone' });
    assert.equal((unknown['error'] as { code: number }).code, ErrorCodes.SessionNotFound);
  });
});
