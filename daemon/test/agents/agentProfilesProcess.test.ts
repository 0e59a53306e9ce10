/**
 * Process-level: agent profiles of a spawned `arbor daemon --stdio --provider
 * scripted`, from its config and a workspace's `.arbor/agents/`: what
 * agents/list shows, what session/new accepts and keeps across a restart,
 * what a profile's hitlTools ask, and a config naming an unknown tool.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  JsonRpcErrorCodes,
  Methods,
  type AgentsListResult,
  type ToolsListResult,
} from '@arbor/protocol';
import { commandCall, spawnConfiguredDaemon, workspaceWith } from '../helpers/configuredDaemon.js';
import { spawnStdioDaemon, type DaemonProcess, type Json } from '../helpers/wire.js';
import { tempDir } from '../permissions/helpers.js';

const CONFIG = {
  agents: {
    careful: { description: 'Asks before commands', hitlTools: ['run_command'] },
    reviewer: { description: 'From the config', model: 'openai:gpt-4.1' },
  },
};

/** A workspace whose `.arbor/agents/` holds these files (name → JSON text). */
function workspaceWithAgents(files: Record<string, string>): string {
  const ws = workspaceWith();
  mkdirSync(join(ws, '.arbor/agents'), { recursive: true });
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(ws, '.arbor/agents', name), text);
  return ws;
}

describe('agent profiles (spawned daemon)', function () {
  this.timeout(30_000);
  const daemons: DaemonProcess[] = [];
  afterEach(() => {
    for (const daemon of daemons.splice(0)) daemon.child.kill('SIGKILL');
  });

  async function start(config: object = CONFIG, dataDir?: string): Promise<DaemonProcess> {
    const proc = spawnConfiguredDaemon(config, { echo: commandCall('echo hello') }, dataDir);
    daemons.push(proc);
    const init = await proc.client.result(Methods.Initialize.method, {
      capabilities: { approvals: {} },
    });
    assert.deepEqual((init['capabilities'] as Json)['agents'], {});
    proc.client.notify(Methods.Initialized.method, {});
    return proc;
  }

  it('agents/list shows the config profiles, a workspace profile over the config one of its name, and broken files', async () => {
    const proc = await start();
    const ws = workspaceWithAgents({
      'reviewer.json': JSON.stringify({ description: 'From the workspace', planningEnabled: true }),
      'fixer.json': JSON.stringify({ allowParallelSubagents: true, maxParallelSubagents: 5 }),
      'broken.json': JSON.stringify({ hitlTools: 'run_command' }),
      'notes.txt': 'not a profile',
    });
    const listed = (await proc.client.result(Methods.AgentsList.method, {
      workspaceRoot: ws,
    })) as AgentsListResult;
    assert.deepEqual(listed.agents, [
      { name: 'careful', source: 'config', description: 'Asks before commands', planning: false },
      { name: 'fixer', source: 'workspace', planning: false, parallelSubagents: 5 },
      { name: 'reviewer', source: 'workspace', description: 'From the workspace', planning: true },
    ]);
    assert.equal(listed.errors?.length, 1);
    assert.equal(listed.errors![0]!.file, '.arbor/agents/broken.json');
    assert.match(listed.errors![0]!.message, /hitlTools/);

    // Without a workspace: the config's own.
    const own = (await proc.client.result(Methods.AgentsList.method, {})) as AgentsListResult;
    assert.deepEqual(
      own.agents.map((agent) => [agent.name, agent.source, agent.model]),
      [
        ['careful', 'config', undefined],
        ['reviewer', 'config', 'openai:gpt-4.1'],
      ],
    );
    assert.equal(own.errors, undefined);

    // Files are read again when they change.
    writeFileSync(join(ws, '.arbor/agents/broken.json'), JSON.stringify({ description: 'fixed' }));
    const again = (await proc.client.result(Methods.AgentsList.method, {
      workspaceRoot: ws,
    })) as AgentsListResult;
    assert.deepEqual(
      again.agents.map((agent) => agent.name),
      ['broken', 'careful', 'fixer', 'reviewer'],
    );
    assert.equal(again.errors, undefined);
  });

  it('session/new keeps its agent through session/load and a restart; an unknown or broken one is invalid params naming it', async () => {
    const dataDir = tempDir('arbor-data-');
    const ws = workspaceWithAgents({ 'broken.json': '{ "tools": ' });
    const first = await start(CONFIG, dataDir);
    const created = await first.client.result(Methods.SessionNew.method, {
      workspaceRoot: ws,
      agent: 'careful',
    });
    assert.equal(created['agent'], 'careful');
    const sessionId = created['sessionId'] as string;

    const unknown = await first.client.request(Methods.SessionNew.method, {
      workspaceRoot: ws,
      agent: 'nobody',
    });
    const unknownError = unknown['error'] as { code: number; message: string };
    assert.equal(unknownError.code, JsonRpcErrorCodes.InvalidParams);
    assert.match(unknownError.message, /"nobody"/);
    assert.match(unknownError.message, /known: careful, reviewer/);

    const broken = await first.client.request(Methods.SessionNew.method, {
      workspaceRoot: ws,
      agent: 'broken',
    });
    const brokenError = broken['error'] as { code: number; message: string };
    assert.equal(brokenError.code, JsonRpcErrorCodes.InvalidParams);
    assert.match(brokenError.message, /\.arbor\/agents\/broken\.json is not valid JSON/);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await start(CONFIG, dataDir);
    const loaded = await second.client.result(Methods.SessionLoad.method, { sessionId });
    assert.equal((loaded['session'] as Json)['agent'], 'careful');
    const listed = await second.client.result(Methods.SessionList.method, {});
    assert.deepEqual(
      (listed['sessions'] as Json[]).map((session) => session['agent']),
      ['careful'],
    );
  });

  it('config defaultAgent is the agent of a session/new that names none; a session without one has no agent', async () => {
    const proc = await start({ ...CONFIG, defaultAgent: 'reviewer' });
    const info = await proc.client.result(Methods.SessionNew.method, {
      workspaceRoot: workspaceWith(),
    });
    assert.equal(info['agent'], 'reviewer');
    const plain = await start();
    const none = await plain.client.result(Methods.SessionNew.method, {
      workspaceRoot: workspaceWith(),
    });
    assert.equal('agent' in none, false);
  });

  it("a profile's hitlTools ask before the call even in auto mode; the same session without the profile runs it unasked", async () => {
    const proc = await start();
    const ws = workspaceWith();
    const asked = async (agent: string | undefined): Promise<number> => {
      const info = await proc.client.result(Methods.SessionNew.method, {
        workspaceRoot: ws,
        permissionMode: 'auto',
        ...(agent && { agent }),
      });
      const sessionId = info['sessionId'] as string;
      const from = proc.client.received.messages.length;
      const { turnId } = (await proc.client.result(Methods.ChatSend.method, {
        sessionId,
        text: 'echo',
      })) as { turnId: string };
      const request = await Promise.race([
        proc.client.received.waitFor(
          (m) =>
            m['method'] === Methods.ApprovalRequest.method &&
            (m['params'] as Json)['sessionId'] === sessionId,
          20_000,
          from,
        ),
        proc.client.turnEnd(turnId, 20_000, from).then(() => undefined),
      ]);
      if (request === undefined) return 0;
      assert.equal((request['params'] as Json)['name'], 'run_command');
      proc.client.send({
        jsonrpc: '2.0',
        id: request['id'],
        result: { decision: 'allow' },
      });
      await proc.client.turnEnd(turnId, 20_000, from);
      return 1;
    };
    assert.equal(await asked(undefined), 0, 'auto mode runs run_command unasked');
    assert.equal(await asked('careful'), 1, 'the profile asks');
  });

  it("tools/list of a profile's session shows only its tools, its hitlTools asking in auto mode", async () => {
    const proc = await start({
      agents: {
        narrow: { tools: ['read_file', 'run_c*'], hitlTools: ['run_command'] },
        parallel: { tools: ['read_file', 'run_subtasks'], allowParallelSubagents: true },
      },
    });
    const info = await proc.client.result(Methods.SessionNew.method, {
      workspaceRoot: workspaceWith(),
      permissionMode: 'auto',
      agent: 'narrow',
    });
    const listed = (await proc.client.result(Methods.ToolsList.method, {
      sessionId: info['sessionId'],
    })) as ToolsListResult;
    assert.deepEqual(listed.tools.map((tool) => [tool.name, tool.permission]).sort(), [
      ['read_file', 'run'],
      ['run_command', 'ask'],
    ]);
    // run_subtasks is the profile's own tool: listed for its sessions as its turns get it.
    const parallel = await proc.client.result(Methods.SessionNew.method, {
      workspaceRoot: workspaceWith(),
      agent: 'parallel',
    });
    const withJobs = (await proc.client.result(Methods.ToolsList.method, {
      sessionId: parallel['sessionId'],
    })) as ToolsListResult;
    assert.deepEqual(withJobs.tools.map((tool) => tool.name).sort(), ['read_file', 'run_subtasks']);
  });

  it('a config profile whose hitlTools names an unknown tool stops the daemon at startup, naming it', async () => {
    const dir = tempDir('arbor-config-');
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ agents: { careless: { hitlTools: ['run_comand', 'mcp__nowhere__x'] } } }),
    );
    const proc = spawnStdioDaemon([
      '--config',
      join(dir, 'config.json'),
      '--data-dir',
      tempDir('arbor-data-'),
    ]);
    daemons.push(proc);
    assert.notEqual(await proc.exited, 0);
    assert.match(
      proc.stderr(),
      /agents\.careless\.hitlTools names unknown tools: run_comand, mcp__nowhere__x/,
    );
  });
});
