/**
 * run_command's output reaches clients while the command runs (the node's
 * `output`, tree.md#node): coalesced, bounded to its last 4,000 characters,
 * redacted of secrets even when the window cuts one, and kept when the call
 * ends; the model still gets the bounded final result.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods, OUTPUT_MAX_CHARS } from '@arbor/protocol';
import { daemonSecrets } from '../../../src/security/secretRedactor.js';
import { openWorkspace } from '../../../src/tools/workspace/index.js';
import { runCommandTool } from '../../../src/tools/workspace/runCommand.js';
import { callThroughLoop } from '../toolLoop.js';

type Node = { id: string; name: string; status: string; output?: string };

function commandUpdates(run: Awaited<ReturnType<typeof callThroughLoop>>): Node[] {
  return run.sink
    .of(Methods.TreeUpdate)
    .flatMap((update) => update['nodes'] as Node[])
    .filter((node) => node.name === 'run_command');
}

describe('run_command output, live in its tree node', function () {
  this.timeout(20_000);
  const root = mkdtempSync(join(tmpdir(), 'arbor-output-'));
  // Outside the sandbox: what is under test is the stream, the same either way.
  const tool = runCommandTool(openWorkspace(root), {
    sandbox: {
      mode: 'off',
      network: false,
      allowEnv: [],
      dataDir: mkdtempSync(join(tmpdir(), 'arbor-data-')),
    },
  });

  it('reaches the client before the command ends, and stays on the node after', async () => {
    const run = await callThroughLoop(
      [tool],
      'run_command',
      { command: "printf 'compiling\\n'; sleep 0.5; printf 'tests passed\\n'" },
      { mode: 'auto' },
    );
    const updates = commandUpdates(run);
    const live = updates.filter((node) => node.status === 'running' && node.output);
    assert.ok(live.length > 0, 'output arrived while the command ran');
    assert.equal(live[0]!.output, 'compiling\n', 'the first lines, before the sleep ended');
    const last = updates.at(-1)!;
    assert.equal(last.status, 'done');
    assert.equal(last.output, 'compiling\ntests passed\n');
    assert.match(run.toolResult.content, /^exit code 0\n[\s\S]*compiling\ntests passed/);
  });

  it('keeps only the last 4,000 characters, redacted even where the window cuts a secret', async () => {
    const secret = 'sk-live-output-canary-0123456789';
    daemonSecrets.add(secret);
    // The secret, then enough output that the window starts inside it.
    const filler = 'x'.repeat(OUTPUT_MAX_CHARS - 10);
    const run = await callThroughLoop(
      [tool],
      'run_command',
      { command: `printf '%s' '${secret}${filler}'` },
      { mode: 'auto' },
    );
    const last = commandUpdates(run).at(-1)!;
    assert.ok(last.output!.length <= OUTPUT_MAX_CHARS);
    assert.ok(last.output!.endsWith(filler));
    for (let n = 4; n < secret.length; n++)
      assert.ok(
        !last.output!.startsWith(secret.slice(-n)),
        `the last ${n} characters of the secret`,
      );
    assert.ok(last.output!.startsWith('[redacted]'), last.output!.slice(0, 40));
  });
});
