/**
 * Background processes as the model uses them (tools/processes/): a dev
 * server started with process_start answers on its port, the model reads
 * what it logs with process_output and stops it with process_kill; a
 * session runs at most 8; plan mode blocks starting but not reading; and
 * deleting the session leaves none of its processes behind. Sandboxed
 * where bubblewrap works (with the network, or the test could not reach
 * the server), unsandboxed elsewhere: the tools behave alike.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { Methods, type Script } from '@arbor/protocol';
import { SecretRedactor } from '../../../src/security/secretRedactor.js';
import { processTools } from '../../../src/tools/processes/processTools.js';
import {
  MAX_RUNNING_PROCESSES,
  SessionProcesses,
} from '../../../src/tools/processes/sessionProcesses.js';
import { configureSandbox, sandboxSettings } from '../../../src/tools/sandbox/sandboxSettings.js';
import type { Tool } from '../../../src/tools/tool.js';
import { openWorkspace } from '../../../src/tools/workspace/index.js';
import {
  newSession,
  permDaemon,
  send,
  tempDir,
  toolNodes,
  toolResults,
  turnEnd,
  until,
  type PermDaemon,
} from '../../permissions/helpers.js';
import { callThroughLoop } from '../toolLoop.js';
import { toolContext } from '../toolContext.js';
import { alive, processTree } from './procfs.js';

/**
 * Says it starts at once (the shell's echo, long before Node is up), then
 * logs its port once listening and every request it serves.
 */
function server(port: number): string {
  return (
    `echo starting; exec ${process.execPath} -e "require('http').createServer((q, s) => { console.log('served ' + q.url); s.end('hello from the background'); })` +
    `.listen(${port}, '127.0.0.1', () => console.log('listening on ${port}'))"`
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** The server's answer, once it listens (however slowly Node starts on a busy machine). */
async function answer(port: number, path: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await get(port, path);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function get(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('background processes', function () {
  this.timeout(30_000);
  const daemons: PermDaemon[] = [];
  const previous = sandboxSettings();
  before(() => configureSandbox({ ...previous, network: true }));
  after(() => configureSandbox(previous));
  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((d) => d.close()));
  });

  function daemon(script: Script): PermDaemon {
    const d = permDaemon(script);
    daemons.push(d);
    return d;
  }

  it('a dev server answers on its port, the model reads its log with process_output and stops it with process_kill', async () => {
    const port = await freePort();
    const d = daemon({
      version: 1,
      conversations: {
        start: [
          { toolCalls: [{ name: 'process_start', arguments: { command: server(port) } }] },
          { text: 'started' },
        ],
        look: [
          { toolCalls: [{ name: 'process_output', arguments: { id: 'p1' } }] },
          { toolCalls: [{ name: 'process_kill', arguments: { id: 'p1' } }] },
          { toolCalls: [{ name: 'process_list', arguments: {} }] },
          { text: 'stopped' },
        ],
      },
    });
    const client = await d.connect();
    const sessionId = await newSession(client, tempDir(), 'auto');
    await turnEnd(client, await send(client, sessionId, 'start'));
    const [started] = toolResults(d.provider);
    assert.equal(started?.isError, false, started?.content);
    assert.match(started!.content, /^p1: running \(pid \d+, for \d+ s\)\n/);
    assert.match(started!.content, /\nstarting\n/);
    // What it wrote in its grace showed live in the start call's node.
    assert.match(String(toolNodes(client, 'process_start')[0]?.['output']), /^starting\n/);

    assert.equal(await answer(port, '/hello'), 'hello from the background');

    await turnEnd(client, await send(client, sessionId, 'look'));
    const [, output, killed, listed] = toolResults(d.provider);
    assert.match(output!.content, /^p1 `.*`: running \(pid \d+, for \d+ s\)\n/);
    assert.match(output!.content, /\nserved \/hello\n/);
    assert.match(String(toolNodes(client, 'process_output')[0]?.['output']), /served \/hello/);
    // Each line reaches the model once: process_output goes on where process_start stopped.
    const read = `${started!.content}\n${output!.content}`;
    assert.equal(read.match(/^starting$/gm)?.length, 1, read);
    assert.equal(read.match(/^listening on \d+$/gm)?.length, 1, read);
    assert.match(killed!.content, /^p1 stopped: killed by SIGTERM \(process_kill\)\.$/);
    assert.match(listed!.content, /- p1 `.*` \(cwd \.\): killed by SIGTERM \(process_kill\)/);
    await assert.rejects(get(port, '/again'), { code: 'ECONNREFUSED' });
  });

  it('a session runs at most 8: a ninth is refused until one is stopped', async () => {
    const processes = new SessionProcesses({ redactor: new SecretRedactor() });
    const tools = new Map(
      processTools(processes, 'session-1', openWorkspace(tempDir(), { watch: false }), {
        startGraceMs: 50,
      }).map((tool) => [tool.name, tool]),
    );
    const call = async (name: string, args: object) => {
      const tool = tools.get(name)!;
      const out = await tool.execute(tool.input.parse(args), toolContext());
      return typeof out === 'string' ? { content: out, isError: false } : out;
    };
    try {
      for (let i = 1; i <= MAX_RUNNING_PROCESSES; i++) {
        const out = await call('process_start', { command: 'sleep 60' });
        assert.match(out.content, new RegExp(`^p${i}: running`), out.content);
      }
      const ninth = await call('process_start', { command: 'sleep 60' });
      assert.equal(ninth.isError, true);
      assert.match(
        ninth.content,
        /^refused: this session already runs 8 background processes, the most it may \(p1, p2, p3, p4, p5, p6, p7, p8\)\. Stop one with process_kill first\.$/,
      );
      // Another session has its own 8.
      assert.equal(processes.list('session-2').length, 0);
      await call('process_kill', { id: 'p3' });
      // The refused start took no id.
      assert.match((await call('process_start', { command: 'sleep 60' })).content, /^p9: running/);
      const unknown = await call('process_output', { id: 'p10' });
      assert.equal(unknown.isError, true);
      assert.match(
        unknown.content,
        /^No background process "p10" in this session\. Background processes of this session:\n- p1 `sleep 60`/,
      );
    } finally {
      await processes.closeAll();
    }
  });

  it('plan mode blocks process_start; process_list and process_output still run', async () => {
    const tools: Tool[] = processTools(
      new SessionProcesses(),
      'session-1',
      openWorkspace(tempDir(), { watch: false }),
    );
    const start = await callThroughLoop(
      tools,
      'process_start',
      { command: 'sleep 60' },
      { mode: 'plan' },
    );
    assert.equal(start.node.status, 'blocked');
    const list = await callThroughLoop(tools, 'process_list', {}, { mode: 'plan' });
    assert.equal(list.node.status, 'done');
    assert.equal(list.toolResult.content, 'This session has no background processes.');
    const output = await callThroughLoop(tools, 'process_output', { id: 'p1' }, { mode: 'plan' });
    assert.equal(output.node.status, 'error');
    assert.match(output.toolResult.content, /^No background process "p1"/);
  });

  it('session/delete stops its processes and everything they started', async () => {
    const d = daemon({
      version: 1,
      conversations: {
        '*': [
          {
            toolCalls: [
              { name: 'process_start', arguments: { command: 'sleep 300 & sleep 301; wait' } },
            ],
          },
          { text: 'started' },
        ],
      },
    });
    const client = await d.connect();
    const sessionId = await newSession(client, tempDir(), 'auto');
    await turnEnd(client, await send(client, sessionId, 'go'));
    const [started] = toolResults(d.provider);
    const pid = Number(/pid (\d+)/.exec(started!.content)?.[1]);
    const tree = processTree(pid);
    // The shell and both sleeps at least (bwrap adds its own processes).
    assert.ok(tree.length >= 3, `${started!.content}\n${tree.join(' ')}`);
    assert.ok(tree.every(alive));

    await client.request(Methods.SessionDelete, { sessionId });
    await until(() => !tree.some(alive), 5000);
  });
});
