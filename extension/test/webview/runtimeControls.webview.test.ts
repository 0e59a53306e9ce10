/// <reference lib="dom" />
/**
 * What an agent profile's runtime controls show the user: the injected
 * arguments of a call (in its approval and on its card), how its approval
 * ended and how long it took, the workspace instructions the model had, and
 * what a stored turn's data policy did not keep.
 */
import assert from 'node:assert/strict';
import { msg, node } from '../fixtures/builders.js';
import { browserAvailable, openWebview, type Harness } from './harness.js';

describe('runtime controls in the chat webview', function () {
  this.timeout(60_000);
  let h: Harness;

  before(function () {
    if (!browserAvailable()) {
      console.warn('    (skipped: no /usr/bin/chromium or no built webview)');
      this.skip();
    }
  });
  beforeEach(async () => {
    h = await openWebview();
    await h.send(msg.connection('ready'), msg.session());
  });
  afterEach(async () => {
    await h?.close();
  });

  it('the approval and the card show what the model gave with the call; the card says it was approved and how long it took', async () => {
    await h.send(
      msg.turnStarted('t1', 'fix it'),
      msg.running('t1'),
      msg.tree(
        't1',
        node('t1', null, {
          instructions: [
            { path: 'AGENTS.md', chars: 120 },
            { path: 'api/AGENTS.md', chars: 32000, truncated: true },
          ],
        }),
        node('w1', 't1', {
          name: 'run_command',
          status: 'awaiting_approval',
          argsPreview: '{"command":"npm test"}',
          injectedArgs: { reason: 'check the fix before answering' },
        }),
      ),
      msg.requiresAction('t1'),
      msg.approval({
        turnId: 't1',
        toolCallId: 'c1',
        nodeId: 'w1',
        name: 'run_command',
        category: 'execute',
        args: { command: 'npm test' },
        injectedArgs: { reason: 'check the fix before answering' },
      }),
    );
    assert.equal(
      await h.page.locator('.approval-card .approval-injected').innerText(),
      'reason: check the fix before answering',
    );
    await h.screenshot('approval-injected-args');
    await h.send(
      msg.approvalResolved('t1', 'c1'),
      msg.tree(
        't1',
        node('w1', 't1', {
          name: 'run_command',
          status: 'done',
          approval: 'approved',
          approvalId: 'c1',
          durationMs: 1500,
          resultPreview: 'exit code 0',
        }),
      ),
    );
    const card = h.page.locator('.card[data-node-id="w1"]');
    const header = await card.locator('.card-meta').first().innerText();
    assert.match(header, /approved/);
    assert.match(header, /1\.5 ?s/);
    await card.locator('.card-header').first().click();
    assert.match(
      await card.locator('.preview-injected').innerText(),
      /Given with the call\s*reason: check the fix before answering/,
    );
    assert.equal(
      await h.page.locator('.turn-instructions').innerText(),
      'Instructions: AGENTS.md, api/AGENTS.md (cut)',
    );
  });

  it('a stored turn says what its data policy did not keep', async () => {
    await h.send(
      msg.session({
        turns: [
          {
            turnId: 't1',
            userText: 'run it',
            texts: [{ nodeId: 't1', text: 'done' }],
            tree: {
              version: 1,
              nodes: [
                node('t1', null, { status: 'done' }),
                node('r1', 't1', { name: 'run_command', status: 'done' }),
              ],
            },
            status: 'complete',
            omitted: ['toolResults'],
          },
          {
            turnId: 't2',
            userText: 'again',
            texts: [{ nodeId: 't2', text: 'ok' }],
            tree: { version: 1, nodes: [node('t2', null, { status: 'done' })] },
            status: 'complete',
          },
        ],
      }),
    );
    assert.equal(
      await h.page.locator('.turn[data-turn-id="t1"] .turn-omitted').innerText(),
      "Not kept by the agent's data policy: tool results.",
    );
    assert.equal(await h.page.locator('.turn[data-turn-id="t2"] .turn-omitted').isVisible(), false);
  });
});
