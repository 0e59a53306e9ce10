/**
 * Slash commands through `arbor acp` (commands.md, daemon/docs/acp.md): the
 * editor is told the session's commands with available_commands_update, told
 * again when a command file appears, and a prompt `/name args` runs the
 * command. The scripted model answers by the expansion (its conversation key
 * is a part of the expanded text only), which shows the model got it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptInput } from '@arbor/protocol';
import { methods, type SessionNotification } from '@agentclientprotocol/sdk';
import {
  closeAll,
  scriptedAcp,
  tempDir,
  until,
  writeScript,
  type AcpEditor,
} from './acpProcess.js';

const SCRIPT: ScriptInput = {
  version: 1,
  conversations: {
    'Summarize the file notes.txt in three bullets': [{ text: 'EXPANDED' }],
    '*': [{ text: 'plain' }],
  },
};

type CommandsUpdate = Extract<
  SessionNotification['update'],
  { sessionUpdate: 'available_commands_update' }
>;

describe('arbor acp: slash commands', function () {
  this.timeout(30_000);
  const editors: AcpEditor[] = [];
  afterEach(async () => closeAll(editors.splice(0), 5_000));

  it('sends available_commands_update, updates it when a command appears, and runs /name args', async () => {
    const dataDir = tempDir('arbor-acp-data-');
    const workspace = tempDir('arbor-acp-ws-');
    mkdirSync(join(workspace, '.arbor/commands'), { recursive: true });
    writeFileSync(
      join(workspace, '.arbor/commands/summarize.md'),
      '---\ndescription: Summarize a file\nargument-hint: <file> [count]\n---\nSummarize the file $1 in $2 bullets.',
    );
    mkdirSync(join(dataDir, 'skills/pdf'), { recursive: true });
    writeFileSync(join(dataDir, 'skills/pdf/SKILL.md'), '---\ndescription: PDF forms\n---\nx');
    const editor = scriptedAcp(dataDir, writeScript(tempDir(), SCRIPT));
    editors.push(editor);
    await editor.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const { sessionId } = await editor.agent.request(methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [],
    });
    const commandUpdates = (): CommandsUpdate[] =>
      editor.updates
        .filter((n) => n.sessionId === sessionId)
        .map((n) => n.update)
        .filter((u): u is CommandsUpdate => u.sessionUpdate === 'available_commands_update');

    await until('available_commands_update', () => commandUpdates().length === 1);
    assert.deepEqual(commandUpdates()[0]!.availableCommands, [
      { name: 'summarize', description: 'Summarize a file', input: { hint: '<file> [count]' } },
    ]);

    writeFileSync(join(workspace, '.arbor/commands/tidy.md'), 'Tidy up.');
    const ran = await editor.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: '/summarize notes.txt three' }],
    });
    assert.equal(ran.stopReason, 'end_turn');
    const text = editor.updates
      .filter((n) => n.sessionId === sessionId)
      .map((n) => n.update)
      .flatMap((u) =>
        u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text'
          ? [u.content.text]
          : [],
      )
      .join('');
    assert.equal(text, 'EXPANDED', 'the model got the expansion');
    assert.equal(commandUpdates().length, 2, 'the added command was announced');
    assert.deepEqual(
      commandUpdates()[1]!.availableCommands.map((c) => c.name),
      ['summarize', 'tidy'],
    );
  });
});
