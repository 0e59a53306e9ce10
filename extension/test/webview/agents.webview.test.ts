/// <reference lib="dom" />
/**
 * The agent picker in the built chat webview: hidden without profiles; lists
 * them with the open chat's selected; a pick asks the host for a new chat
 * with it, and the picker keeps showing the open chat's until the host says.
 */
import assert from 'node:assert/strict';
import { msg } from '../fixtures/builders.js';
import { browserAvailable, openWebview, type Harness } from './harness.js';

describe('chat webview: agent picker', function () {
  this.timeout(60_000);
  let h: Harness;

  before(function () {
    if (!browserAvailable()) this.skip();
  });
  beforeEach(async () => {
    h = await openWebview();
    await h.send(msg.connection('ready'), msg.session());
  });
  afterEach(async () => {
    await h?.close();
  });

  it('is hidden without profiles; a pick starts a new chat with it, or with none', async () => {
    const picker = h.page.locator('.agent-select');
    assert.equal(await picker.isVisible(), false);
    await h.send({
      type: 'agents',
      agents: [
        { name: 'fixer', source: 'workspace', description: 'Fixes tests', planning: true },
        { name: 'reviewer', source: 'config', planning: false },
      ],
      current: 'reviewer',
      errors: [{ file: '.arbor/agents/broken.json', message: 'is not valid JSON' }],
    });
    assert.equal(await picker.isVisible(), true);
    assert.equal(await picker.inputValue(), 'reviewer');
    assert.deepEqual(await picker.locator('option').allInnerTexts(), [
      'No agent',
      'fixer',
      'reviewer',
    ]);
    assert.match(
      (await picker.getAttribute('title')) ?? '',
      /starts a new chat[\s\S]*\.arbor\/agents\/broken\.json: is not valid JSON/,
    );

    await picker.selectOption('fixer');
    await h.settle();
    assert.deepEqual((await h.posted()).at(-1), { type: 'setAgent', agent: 'fixer' });
    assert.equal(await picker.inputValue(), 'reviewer', 'the open chat’s until the host says');

    await picker.selectOption('');
    await h.settle();
    assert.deepEqual((await h.posted()).at(-1), { type: 'setAgent', agent: null });
  });
});
