/**
 * Process-level: a spawned `arbor daemon --stdio --provider scripted` with
 * `hooks` in its config file: a PreToolUse hook refuses a real run_command
 * (the file it would remove is still there), its run is a `hook` node that a
 * client without openEnums receives as a `tool` node, and a workspace's
 * hooks run only when the config trusts them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods, type ExecutionTreeNode } from '@arbor/protocol';
import { spawnStdioDaemon, type DaemonProcess } from '../helpers/wire.js';
import { tempDir } from '../permissions/helpers.js';

const DENY_RM = `input=$(cat); case "$input" in *'"command":"rm '*) echo '{"decision":"deny","reason":"rm is not allowed here"}' ;; esac`;

describe('hooks (spawned daemon)', function () {
  this.timeout(30_000);
  let daemon: DaemonProcess | undefined;
  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  function start(config: object): DaemonProcess {
    const dir = tempDir('arbor-config-');
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify({
        version: 1,
        conversations: {
          remove: [
            {
              toolCalls: [
                { id: 'call_1', name: 'run_command', arguments: { command: 'rm victim.txt' } },
              ],
            },
            { text: 'done' },
          ],
        },
      }),
    );
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    daemon = spawnStdioDaemon([
      '--provider',
      'scripted',
      '--script',
      join(dir, 'script.json'),
      '--data-dir',
      tempDir('arbor-data-'),
      '--config',
      join(dir, 'config.json'),
    ]);
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
    const nodes = new Map<string, ExecutionTreeNode>();
    for (const message of proc.client.received.messages.slice(from)) {
      if (message['method'] !== Methods.TreeUpdate.method) continue;
      for (const node of (message['params'] as { nodes: ExecutionTreeNode[] }).nodes)
        nodes.set(node.id, { ...nodes.get(node.id), ...node });
    }
    return [...nodes.values()];
  }

  function workspace(settings?: object): string {
    const ws = tempDir();
    writeFileSync(join(ws, 'victim.txt'), 'still here');
    if (settings) {
      mkdirSync(join(ws, '.arbor'));
      writeFileSync(join(ws, '.arbor/settings.json'), JSON.stringify(settings));
    }
    return ws;
  }

  it('a PreToolUse hook of the config refuses run_command; its node is a hook node, a tool node for a v1 client', async () => {
    const ws = workspace();
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
    const untrusted = workspace(settings);
    await removeTurn(start({}), untrusted, { openEnums: {} });
    assert.equal(existsSync(join(untrusted, 'victim.txt')), false, 'an untrusted hook ran');

    daemon!.child.kill('SIGKILL');
    const trusted = workspace(settings);
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
