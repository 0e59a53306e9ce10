/** `arbor chat --agent <name>`: a new chat runs with that profile; an unknown one is refused, naming it. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseChatArgs } from '../../src/cli/chat/chatArgs.js';
import { runChat, tempDir, writeScript } from '../cli/chatProcess.js';

function chatArgs(dir: string, ...more: string[]): string[] {
  const script = writeScript(dir, { version: 1, conversations: { '*': [{ text: 'Aye.' }] } });
  return ['--provider', 'scripted', '--script', script, '--data-dir', `${dir}/data`, ...more];
}

describe('arbor chat --agent', function () {
  this.timeout(30_000);

  it('checks the name and refuses it with --session', () => {
    assert.equal(parseChatArgs(['--agent', 'pirate']).agent, 'pirate');
    assert.throws(() => parseChatArgs(['--agent', 'Pirate Bob']), /--agent Pirate Bob/);
    assert.throws(
      () => parseChatArgs(['--agent', 'pirate', '--session', 's']),
      /--agent is for a new session/,
    );
  });

  it("starts the session with the workspace's profile, and names an unknown one", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.arbor/agents'), { recursive: true });
    writeFileSync(join(dir, '.arbor/agents/pirate.json'), JSON.stringify({ instructions: 'Arr.' }));
    const run = runChat(chatArgs(dir, '--workspace', dir, '--agent', 'pirate', 'hello'));
    const { code, output, stderr } = await run.exit;
    assert.equal(code, 0, stderr);
    assert.match(output, /· agent pirate/);
    assert.match(output, /Aye\./);

    const unknown = runChat(chatArgs(dir, '--workspace', dir, '--agent', 'parrot', 'hello'));
    const refused = await unknown.exit;
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /unknown agent "parrot" \(known: pirate\)/);
  });
});
