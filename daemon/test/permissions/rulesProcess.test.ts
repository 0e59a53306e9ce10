/**
 * Process-level: a spawned `arbor daemon --stdio --provider scripted` with
 * the user's rules in its config and a workspace's `.arbor/settings.json`,
 * spoken to with raw frames: what runs unasked, what is refused, "always
 * allow" saved for the workspace, and what tools/list shows.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApprovalRequestParams,
  ApprovalResolvedParams,
  Methods,
  type ExecutionTreeNode,
  type ToolsListResult,
} from '@arbor/protocol';
import { eventForClient } from '../../src/server/v1Events.js';
import {
  commandCall,
  nodesSince,
  spawnConfiguredDaemon,
  workspaceWith,
} from '../helpers/configuredDaemon.js';
import type { DaemonProcess, Json } from '../helpers/wire.js';
import { tempDir } from './helpers.js';

describe('permission rules (spawned daemon)', function () {
  this.timeout(30_000);
  let daemon: DaemonProcess | undefined;
  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  function start(config: object, dataDir?: string): DaemonProcess {
    daemon = spawnConfiguredDaemon(
      config,
      {
        echo: commandCall('echo hello'),
        remove: commandCall('rm victim.txt'),
        list: commandCall('ls .arbor'),
      },
      dataDir,
    );
    return daemon;
  }

  async function ready(proc: DaemonProcess): Promise<void> {
    await proc.client.result(Methods.Initialize.method, {
      capabilities: { approvals: {}, openEnums: {} },
    });
    proc.client.notify(Methods.Initialized.method, {});
  }

  async function turn(
    proc: DaemonProcess,
    sessionId: string,
    text: string,
  ): Promise<{ node: ExecutionTreeNode; turnId: string }> {
    const from = proc.client.received.messages.length;
    const { turnId } = (await proc.client.result(Methods.ChatSend.method, { sessionId, text })) as {
      turnId: string;
    };
    await proc.client.turnEnd(turnId, 20_000, from);
    return { node: nodesSince(proc, from).find((n) => n.name === 'run_command')!, turnId };
  }

  async function session(proc: DaemonProcess, ws: string, mode = 'default'): Promise<string> {
    const info = await proc.client.result(Methods.SessionNew.method, {
      workspaceRoot: ws,
      permissionMode: mode,
    });
    return info['sessionId'] as string;
  }

  it('a user allow rule runs the call unasked in default mode; a workspace deny rule refuses it even in auto', async () => {
    const proc = start({ permissions: { allow: ['run_command(echo:*)'] } });
    await ready(proc);
    const ws = workspaceWith({ permissions: { deny: ['run_command(rm:*)'] } });

    const echo = await turn(proc, await session(proc, ws), 'echo');
    assert.equal(echo.node.status, 'done');
    assert.equal(echo.node.approval, 'not_required');
    assert.deepEqual(echo.node.rule, {
      effect: 'allow',
      rule: 'run_command(echo:*)',
      source: 'user',
    });

    const removed = await turn(proc, await session(proc, ws, 'auto'), 'remove');
    assert.equal(removed.node.status, 'denied');
    assert.deepEqual(removed.node.rule, {
      effect: 'deny',
      rule: 'run_command(rm:*)',
      source: 'workspace',
    });
    assert.ok(existsSync(join(ws, 'victim.txt')), 'the denied command did not run');
    assert.equal(
      proc.client.notifications(Methods.ApprovalResolved.method).length,
      0,
      'nobody was asked',
    );
  });

  it('"always allow" saves the suggested rule: later sessions of the workspace, and a restarted daemon, run it unasked', async () => {
    const dataDir = tempDir('arbor-data-');
    const ws = workspaceWith();
    let proc = start({}, dataDir);
    await ready(proc);
    const first = await session(proc, ws);
    const sent = proc.client.result(Methods.ChatSend.method, { sessionId: first, text: 'list' });
    const ask = await proc.client.received.waitFor(
      (m) => m['method'] === Methods.ApprovalRequest.method && 'id' in m,
    );
    const request = ApprovalRequestParams.parse(ask['params']);
    assert.equal(request.suggestedRule, 'run_command(ls .arbor:*)');
    proc.client.send({ jsonrpc: '2.0', id: ask['id'], result: { decision: 'allowAlways' } });
    const { turnId } = (await sent) as { turnId: string };
    await proc.client.turnEnd(turnId);
    const resolved = ApprovalResolvedParams.parse(
      proc.client.notifications(Methods.ApprovalResolved.method)[0]!['params'],
    );
    assert.equal(resolved.decision, 'allowAlways');
    assert.equal(resolved.rule, 'run_command(ls .arbor:*)');

    const again = await turn(proc, await session(proc, ws), 'list');
    assert.equal(again.node.approval, 'not_required');
    assert.deepEqual(again.node.rule, {
      effect: 'allow',
      rule: 'run_command(ls .arbor:*)',
      source: 'remembered',
    });

    proc.child.kill('SIGKILL');
    proc = start({}, dataDir);
    await ready(proc);
    const sessionId = await session(proc, ws);
    const afterRestart = await turn(proc, sessionId, 'list');
    assert.equal(afterRestart.node.approval, 'not_required', 'remembered across a restart');
    const listed = (await proc.client.result(Methods.ToolsList.method, {
      sessionId,
    })) as ToolsListResult;
    assert.deepEqual(listed.rules, [
      { effect: 'allow', rule: 'run_command(ls .arbor:*)', source: 'remembered' },
    ]);
    const other = await session(proc, workspaceWith());
    const elsewhere = proc.client.result(Methods.ChatSend.method, {
      sessionId: other,
      text: 'list',
    });
    await proc.client.received.waitFor(
      (m) =>
        m['method'] === Methods.ApprovalRequest.method &&
        (m['params'] as Json)['sessionId'] === other,
    );
    await elsewhere;
  });

  it('a workspace file that cannot be read refuses every call, and tools/list says why', async () => {
    const proc = start({});
    await ready(proc);
    const ws = workspaceWith({ permissions: { deny: ['run_command(rm:*'] } });
    const sessionId = await session(proc, ws, 'auto');
    const echo = await turn(proc, sessionId, 'echo');
    assert.equal(echo.node.status, 'denied');
    assert.match(
      echo.node.resultPreview ?? '',
      /permission rules cannot be read: .*settings\.json/,
    );
    const listed = (await proc.client.result(Methods.ToolsList.method, {
      sessionId,
    })) as ToolsListResult;
    assert.match(listed.rulesError ?? '', /permissions\.deny\[0\]/);
    assert.equal(listed.tools.find((t) => t.name === 'run_command')!.permission, 'block');
  });

  it('a bad rule in the config stops the daemon at startup, naming it', async () => {
    const proc = start({ permissions: { allow: ['run_command(npm test && rm:*)'] } });
    assert.notEqual(await proc.exited, 0);
    assert.match(proc.stderr(), /permissions\.allow\[0\] "run_command\(npm test && rm:\*\)"/);
  });

  it('a client without openEnums reads allowAlways as allowForSession', () => {
    const event = {
      method: Methods.ApprovalResolved.method,
      params: { outcome: 'approved', decision: 'allowAlways', rule: 'run_command(ls:*)' },
    } as unknown as Parameters<typeof eventForClient>[0];
    assert.equal(eventForClient(event, {}).params['decision'], 'allowForSession');
    assert.equal(eventForClient(event, { openEnums: {} }).params['decision'], 'allowAlways');
  });
});
