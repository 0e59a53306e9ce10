/**
 * MCP servers the editor passes with session/new and session/load, run by
 * the daemon inside `arbor acp` as the session's own: their tools reach the
 * turns (mcp__<server>__<tool>) with the configured servers' gating and
 * redaction, a failing one is reported and the turn goes on, and they stop
 * with the session and with the bridge.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptInput } from '@arbor/protocol';
import { methods, type McpServer, type ToolCall } from '@agentclientprotocol/sdk';
import { fixtureServer, serverBin } from '../tools/mcp/mcpHarness.js';
import {
  closeAll,
  scriptedAcp,
  tempDir,
  until,
  writeScript,
  type AcpEditor,
} from './acpProcess.js';
import { foldUpdates, toolCallsInOrder } from './sessionFold.js';

const CANARY = 'canary-9b3e7d1f5a2c4e68';

const SCRIPT: ScriptInput = {
  version: 1,
  conversations: {
    'Echo through the editor server': [
      {
        toolCalls: [
          {
            id: 'c_echo',
            name: 'mcp__everything__echo',
            arguments: { message: 'hello from the editor' },
          },
        ],
      },
      { text: 'Echoed.' },
    ],
    'Show the token': [
      { toolCalls: [{ id: 'c_leak', name: 'mcp__fragile__leak', arguments: {} }] },
      { text: 'Shown.' },
    ],
  },
};

const everything = (name = 'everything'): McpServer => ({
  name,
  command: serverBin('mcp-server-everything'),
  args: [],
  env: [],
});

function fragile(env: Record<string, string>): McpServer {
  const { command, args } = fixtureServer('fragileServer.mjs');
  return {
    name: 'fragile',
    command,
    args,
    env: Object.entries(env).map(([name, value]) => ({ name, value })),
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function cardText(call: ToolCall): string {
  return (call.content ?? [])
    .map((item) =>
      item.type === 'content' && item.content.type === 'text' ? item.content.text : '',
    )
    .join('');
}

describe('arbor acp: MCP servers from the editor (process, scripted provider)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let workspace: string;
  let scriptFile: string;
  const editors: AcpEditor[] = [];

  async function initialized(extra: string[] = []): Promise<AcpEditor> {
    const editor = scriptedAcp(dataDir, scriptFile, extra);
    editors.push(editor);
    const result = await editor.agent.request(methods.agent.initialize, { protocolVersion: 1 });
    assert.deepEqual(result.agentCapabilities?.mcpCapabilities, { http: true, sse: false });
    return editor;
  }

  const prompt = (editor: AcpEditor, sessionId: string, text: string) =>
    editor.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text }],
    });

  beforeEach(() => {
    dataDir = tempDir('arbor-acp-data-');
    workspace = tempDir('arbor-acp-ws-');
    scriptFile = writeScript(tempDir(), SCRIPT);
  });

  afterEach(() => closeAll(editors, 10_000));

  it("runs a stdio server's tools in the session's turns; a failing one is reported and the turn goes on; SSE is refused", async () => {
    // A configured server of the same name is replaced in this session: it never starts.
    const configuredPid = join(tempDir(), 'configured.pid');
    const configFile = join(tempDir(), 'config.json');
    const configured = fixtureServer('fragileServer.mjs');
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: { everything: { ...configured, env: { PID_FILE: configuredPid } } },
      }),
    );
    const editor = await initialized(['--config', configFile]);
    const created = await editor.agent.request(methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [
        everything(),
        { name: 'broken', command: join(workspace, 'no-such-server'), args: [], env: [] },
        { type: 'sse', name: 'legacy', url: 'http://127.0.0.1:9/sse', headers: [] },
      ],
    });

    const meta = created._meta?.['arbor'] as {
      mcpServers: { name: string; status: string; message?: string; toolCount?: number }[];
      unsupported: { mcpServers: string[]; reason: string };
    };
    const [ready, broken] = meta.mcpServers;
    assert.equal(ready?.name, 'everything');
    assert.equal(ready.status, 'ready');
    assert.ok((ready.toolCount ?? 0) > 0);
    assert.equal(broken?.name, 'broken');
    assert.equal(broken.status, 'error');
    assert.match(broken.message ?? '', /command not found/);
    assert.deepEqual(meta.unsupported.mcpServers, ['legacy']);
    assert.match(meta.unsupported.reason, /SSE/);

    const answer = await prompt(editor, created.sessionId, 'Echo through the editor server');
    assert.equal(answer.stopReason, 'end_turn');
    const session = foldUpdates(editor.updates.filter((n) => n.sessionId === created.sessionId));
    const [echo] = toolCallsInOrder(session);
    assert.match(echo?.title ?? '', /^mcp__everything__echo/);
    assert.equal(echo?.status, 'completed');
    assert.equal(cardText(echo!), 'Echo: hello from the editor');
    assert.match(session.agentText, /Echoed\./);
    assert.equal(existsSync(configuredPid), false, 'the configured server of that name never ran');
    await until('the failure in the log', () => /broken.*command not found/.test(editor.stderr()));
  });

  it("redacts a secret from the editor's env everywhere; the server stops with its session and with the bridge", async () => {
    const pidFile = join(tempDir(), 'fragile.pid');
    const editor = await initialized();
    const server = fragile({ CANARY_API_TOKEN: CANARY, PID_FILE: pidFile });
    const created = await editor.agent.request(methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [server],
    });
    const answer = await prompt(editor, created.sessionId, 'Show the token');
    assert.equal(answer.stopReason, 'end_turn');
    const session = foldUpdates(editor.updates.filter((n) => n.sessionId === created.sessionId));
    const [leak] = toolCallsInOrder(session);
    assert.equal(cardText(leak!), 'token=[redacted]', 'the server had the value, shown redacted');
    const seen = JSON.stringify([created, editor.updates, answer]);
    assert.ok(!seen.includes(CANARY), 'never in an ACP answer or update');
    assert.ok(!editor.stderr().includes(CANARY), 'never in the log');

    // session/load gives the session the servers passed now: the same one keeps running.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(isRunning(pid));
    await editor.agent.request(methods.agent.session.load, {
      sessionId: created.sessionId,
      cwd: workspace,
      mcpServers: [server],
    });
    assert.equal(Number(readFileSync(pidFile, 'utf8')), pid);
    assert.ok(isRunning(pid));

    await editor.agent.request(methods.agent.session.delete, { sessionId: created.sessionId });
    await until('the server to stop with its session', () => !isRunning(pid));

    // A server of a session still open when the editor leaves stops with the bridge.
    const pidFile2 = join(tempDir(), 'fragile2.pid');
    await editor.agent.request(methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [fragile({ PID_FILE: pidFile2 })],
    });
    const pid2 = Number(readFileSync(pidFile2, 'utf8'));
    assert.ok(isRunning(pid2));
    editors.splice(editors.indexOf(editor), 1);
    assert.equal(await editor.close(), 0, editor.stderr());
    await until('the server to stop with the bridge', () => !isRunning(pid2));
  });
});
