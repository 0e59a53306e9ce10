/**
 * Process-level: a spawned `arbor daemon --stdio --provider scripted` with
 * `hooks` in its config file: a PreToolUse hook refuses a real run_command
 * (the file it would remove is still there), its run is a `hook` node that a
 * client without openEnums receives as a `tool` node, and a workspace's
 * hooks run only when the config trusts them.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Methods, type ExecutionTreeNode } from '@arbor/protocol';
import {
  commandCall,
  nodesSince,
  spawnConfiguredDaemon,
  workspaceWith,
} from '../helpers/configuredDaemon.js';
import type { DaemonProcess } from '../helpers/wire.js';

const DENY_RM = `input=$(cat); case "$input" in *'"command":"rm '*) echo '{"decision":"deny","reason":"rm is not allowed here"}' ;; esac`;

describe('hooks (spawned daemon)', function () {
  this.timeout(30_000);
  let daemon: DaemonProcess | undefined;
  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  function start(config: object): DaemonProcess {
    daemon = spawnConfiguredDaemon(config, { remove: commandCall('rm victim.txt') });
    return daemon;
  }

  async function removeTurn(
    proc: DaemonProcess,
    workspaceRoot: string,
    capabilities: object,
  ): Promise<ExecutionTreeNode[]> {
    await proc.client.result(Methods.Initialize.method, { capabilities });
    proc.client.notify(Methods.Initialized.method, {});
    const { sessionId } = (await proc.client.result(Methods.SessionNew.method, {
      workspaceRoot,
      permissionMode: 'auto',
    })) as { sessionId: string };
    const from = proc.client.received.messages.length;
    const { turnId } = (await proc.client.result(Methods.ChatSend.method, {
      sessionId,
      text: 'remove',
    })) as { turnId: string };
    await proc.client.turnEnd(turnId, 20_000, from);
    return nodesSince(proc, from);
  }

  it('a PreToolUse hook of the config refuses run_command; its node is a hook node, a tool node for a v1 client', async () => {
    const ws = workspaceWith();
    const config = { hooks: { PreToolUse: [{ matcher: 'run_command', command: DENY_RM }] } };

    const open = await removeTurn(start(config), ws, { openEnums: {} });
    assert.ok(existsSync(join(ws, 'victim.txt')), 'the denied command ran');
    const call = open.find((node) => node.name === 'run_command')!;
    assert.equal(call.status, 'denied');
    const hook = open.find((node) => node.parentId === call.id)!;
    assert.equal(hook.kind, 'hook');
    assert.equal(hook.name, 'PreToolUse');
    assert.match(hook.resultPreview!, /rm is not allowed here/);

    daemon!.child.kill('SIGKILL');
    const v1 = await removeTurn(start(config), ws, {});
    const standIn = v1.find((node) => node.name === 'PreToolUse')!;
    assert.equal(standIn.kind, 'tool');
  });

  it("a workspace's hooks run only when the config sets hooks.workspaceFile", async () => {
    const settings = { hooks: { PreToolUse: [{ command: DENY_RM }] } };
    const untrusted = workspaceWith(settings);
    await removeTurn(start({}), untrusted, { openEnums: {} });
    assert.equal(existsSync(join(untrusted, 'victim.txt')), false, 'an untrusted hook ran');

    daemon!.child.kill('SIGKILL');
    const trusted = workspaceWith(settings);
    await removeTurn(start({ hooks: { workspaceFile: true } }), trusted, { openEnums: {} });
    assert.ok(existsSync(join(trusted, 'victim.txt')), 'the trusted workspace hook did not run');
  });

  it('the config refuses a matcher on an event without tools', async () => {
    const proc = start({ hooks: { Stop: [{ matcher: 'x', command: 'true' }] } });
    const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    assert.equal(code, 2);
    assert.match(proc.stderr(), /hooks\.Stop\.0\.matcher: unknown key/);
  });
});
