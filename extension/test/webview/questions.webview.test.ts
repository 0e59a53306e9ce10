/// <reference lib="dom" />
/**
 * The model's questions (ask_user) in the built webview, in headless
 * Chromium: the card at the ask_user call, answering by button, by number
 * key and in the user's own words, and how the card closes.
 */
import assert from 'node:assert/strict';
import type { HostMessage } from '../../src/shared/messages.js';
import { msg, node } from '../fixtures/builders.js';
import { browserAvailable, openWebview, type Harness } from './harness.js';

/** A running turn whose ask_user call `nodeId` waits for the user. */
function askingTurn(turnId: string, ...nodeIds: string[]): HostMessage[] {
  return [
    msg.turnStarted(turnId, 'add tests for the parser'),
    msg.running(turnId),
    msg.tree(
      turnId,
      node(turnId, null),
      ...nodeIds.map((id) => node(id, turnId, { name: 'ask_user', status: 'awaiting_approval' })),
    ),
    msg.requiresAction(turnId),
  ];
}

function requestOf(message: HostMessage) {
  assert.equal(message.type, 'questionAdded');
  return (message as Extract<HostMessage, { type: 'questionAdded' }>).request;
}

describe('questions in the chat webview', function () {
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

  it('shows the question at the ask_user card with its options, and answers with a click', async () => {
    await h.send(
      ...askingTurn('t1', 'n1'),
      msg.question({
        turnId: 't1',
        toolCallId: 'q1',
        nodeId: 'n1',
        question: 'Which runner? <img src=x onerror="window.__pwned=1">',
      }),
    );
    const card = h.page.locator('.card[data-node-id="n1"] .question-card');
    assert.equal(await card.count(), 1, 'inside the ask_user call, like an approval');
    // Plain text, never HTML.
    assert.equal(
      await card.locator('.question-text').innerText(),
      'Which runner? <img src=x onerror="window.__pwned=1">',
    );
    assert.equal(await card.locator('img').count(), 0);
    const options = card.locator('button.question-option');
    assert.deepEqual(await options.locator('.question-option-label').allInnerTexts(), [
      'Vitest',
      'Jest',
    ]);
    assert.equal(
      await options.first().locator('.question-option-description').innerText(),
      'Used by the 40 newer test files',
    );
    assert.equal(await card.locator('textarea.question-input').count(), 1, 'freeText');
    assert.equal(await card.getAttribute('role'), 'group');
    assert.match((await card.getAttribute('aria-labelledby')) ?? '', /^question-title-/);
    // The keyboard lands on the card: its first option.
    assert.equal(
      await h.page.evaluate(() => document.activeElement?.getAttribute('data-label')),
      'Vitest',
    );
    assert.match(await h.page.locator('[aria-live]').innerText(), /Arbor asks: Which runner\?/);
    await h.screenshot('question-open');

    await options.nth(1).click();
    assert.deepEqual((await h.posted()).at(-1), {
      type: 'answerQuestion',
      turnId: 't1',
      toolCallId: 'q1',
      answer: 'Jest',
    });
    assert.equal(await options.nth(0).isDisabled(), true);
    assert.equal(await card.locator('textarea').isDisabled(), true);
    assert.equal(await options.nth(1).getAttribute('aria-pressed'), 'true');
    assert.match(
      await card.locator('.question-status').innerText(),
      /You answered “Jest” — waiting for the daemon…/,
    );
    // A second click sends nothing more.
    const sent = (await h.posted()).length;
    await options.nth(0).click({ force: true });
    assert.equal((await h.posted()).length, sent);

    await h.send(
      msg.questionResolved('t1', 'q1', {
        kind: 'resolved',
        outcome: 'answered',
        answer: 'Jest',
        answeredHere: true,
      }),
      msg.running('t1'),
    );
    assert.equal(await card.getAttribute('data-state'), 'ended');
    assert.equal(await card.locator('.question-options').isHidden(), true);
    assert.equal(await card.locator('.question-free').isHidden(), true);
    assert.equal(await card.locator('.question-status').innerText(), 'Answered here: “Jest”');
    await h.screenshot('question-answered');
    assert.equal(
      await h.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
      undefined,
    );
  });

  it('sends the user’s own words on Enter; freeText false has no text box; a re-sent question does not double', async () => {
    await h.send(
      ...askingTurn('t1', 'n1', 'n2'),
      msg.question({
        turnId: 't1',
        toolCallId: 'q1',
        nodeId: 'n1',
        question: 'What should the parser do with tabs?',
        options: [],
      }),
      msg.question({ turnId: 't1', toolCallId: 'q2', nodeId: 'n2', freeText: false }),
      // Re-sent (a re-attach): the same two cards.
      msg.question({ turnId: 't1', toolCallId: 'q2', nodeId: 'n2', freeText: false }),
    );
    assert.equal(await h.page.locator('.question-card').count(), 2);
    const free = h.page.locator('.card[data-node-id="n1"] .question-card');
    const closed = h.page.locator('.card[data-node-id="n2"] .question-card');
    assert.equal(await free.locator('.question-option').count(), 0);
    assert.equal(await closed.locator('textarea').count(), 0, 'only the options are answers');
    assert.equal(await closed.locator('.question-option').count(), 2);
    // A question without options puts the keyboard in its text box.
    assert.equal(
      await h.page.evaluate(() => document.activeElement?.classList.contains('question-input')),
      true,
    );

    const input = free.locator('textarea.question-input');
    await input.press('Enter');
    assert.equal(
      (await h.posted()).some((m) => m.type === 'answerQuestion'),
      false,
      'an empty answer is not sent',
    );
    await input.fill('Expand them to two spaces');
    await input.press('Shift+Enter');
    await input.type('and keep a note');
    await input.press('Enter');
    assert.deepEqual((await h.posted()).at(-1), {
      type: 'answerQuestion',
      turnId: 't1',
      toolCallId: 'q1',
      answer: 'Expand them to two spaces\nand keep a note',
    });
    assert.equal(await input.isDisabled(), true);

    // Number keys pick an option while the card has focus.
    await closed.locator('.question-option').first().focus();
    await h.page.keyboard.press('2');
    assert.deepEqual((await h.posted()).at(-1), {
      type: 'answerQuestion',
      turnId: 't1',
      toolCallId: 'q2',
      answer: 'Jest',
    });
    await h.send(msg.question({ turnId: 't1', toolCallId: 'q2', nodeId: 'n2', freeText: false }));
    assert.equal(await h.page.locator('.question-card').count(), 2);
    assert.equal(await closed.locator('.question-option').first().isDisabled(), true);
  });

  it('closes each card with how it ended, and restores open ones after a reload', async () => {
    const q = (id: string) => msg.question({ turnId: 't1', toolCallId: id, nodeId: `n-${id}` });
    await h.send(...askingTurn('t1', 'n-a', 'n-b', 'n-c', 'n-d'), q('a'), q('b'), q('c'), q('d'));
    await h.send(
      msg.questionResolved('t1', 'a', {
        kind: 'resolved',
        outcome: 'answered',
        answer: 'Vitest',
        answeredHere: false,
      }),
      msg.questionResolved('t1', 'b', { kind: 'resolved', outcome: 'timed_out' }),
      msg.questionResolved('t1', 'c', { kind: 'resolved', outcome: 'cancelled' }),
      msg.questionResolved('t1', 'd', { kind: 'cancelled' }),
    );
    const status = (id: string) =>
      h.page.locator(`.question-card[data-tool-call-id="${id}"] .question-status`).innerText();
    assert.equal(await status('a'), 'Answered in another window: “Vitest”');
    assert.match(await status('b'), /^Timed out/);
    assert.equal(await status('c'), 'Cancelled with the turn.');
    assert.match(await status('d'), /no longer asked/);
    assert.equal(await h.page.locator('.question-card .question-option:visible').count(), 0);
    await h.screenshot('questions-ended');

    // A reloaded webview gets the open questions (and an answer given here) in the session message.
    await h.send(
      msg.session({
        state: 'requires_action',
        turns: [{ turnId: 't2', userText: 'again', texts: [] }],
        questions: [
          { request: requestOf(msg.question({ turnId: 't2', toolCallId: 'x', nodeId: 'nx' })) },
          {
            request: requestOf(msg.question({ turnId: 't2', toolCallId: 'y', nodeId: 'ny' })),
            answer: 'Vitest',
          },
        ],
      }),
    );
    const cards = h.page.locator('.question-card');
    assert.equal(await cards.count(), 2, 'under the turn while the tree is not known');
    assert.equal(await h.page.locator('.turn-approvals .question-card').count(), 2);
    assert.equal(
      await cards.nth(0).locator('.question-option').first().isDisabled(),
      false,
      'still open',
    );
    assert.match(
      await cards.nth(1).locator('.question-status').innerText(),
      /You answered “Vitest”/,
    );
  });
});
