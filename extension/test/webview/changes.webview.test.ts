/// <reference lib="dom" />
/**
 * What a turn changed (checkpoints.md) in the built webview, in headless
 * Chromium: the "Changed files" summary of a finished turn, its diff links,
 * and "Restore to before this turn" where this window may restore.
 */
import assert from 'node:assert/strict';
import type { TurnChanges } from '@arbor/protocol';
import type { HostMessage } from '../../src/shared/messages.js';
import { msg, node } from '../fixtures/builders.js';
import { browserAvailable, openWebview, type Harness } from './harness.js';

const CHANGES: TurnChanges = {
  files: [
    { path: 'src/io.py', status: 'modified', added: 3, removed: 1 },
    { path: 'tests/test_io.py', status: 'added', added: 24, removed: 0 },
    { path: 'old.bin', status: 'deleted', added: 0, removed: 0, binary: true },
  ],
  omitted: 2,
  restorable: true,
};

/** A turn that ran and ended, its turn node's final upsert carrying `changes`. */
function changedTurn(turnId: string, changes: TurnChanges | undefined, end = true): HostMessage[] {
  return [
    msg.turnStarted(turnId, 'fix the encoding'),
    msg.running(turnId),
    msg.tree(turnId, node(turnId, null)),
    msg.tree(turnId, node(turnId, null, { status: 'done', ...(changes && { changes }) })),
    ...(end ? [msg.ended(turnId)] : []),
  ];
}

const ALL = { diff: true, restore: true };

describe('changed files in the chat webview', function () {
  this.timeout(60_000);
  let h: Harness;

  before(function () {
    if (!browserAvailable()) this.skip();
  });
  afterEach(async () => {
    await h?.close();
  });

  async function open(checkpoints = ALL): Promise<void> {
    h = await openWebview();
    await h.send(msg.connection('ready'), msg.session({ checkpoints }));
  }

  it('lists each file with its status and +added −removed, and counts the omitted ones', async () => {
    await open();
    await h.send(...changedTurn('t1', CHANGES));
    const summary = h.page.locator('.turn[data-turn-id="t1"] .turn-changes');
    assert.equal(await summary.isVisible(), true);
    assert.equal(await summary.locator('.changes-title').innerText(), 'Changed 5 files');
    const rows = summary.locator('.change');
    assert.deepEqual(
      await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-status'))),
      ['modified', 'added', 'deleted'],
    );
    assert.deepEqual(
      (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
      ['M src/io.py +3 −1', 'A tests/test_io.py +24 −0', 'D old.bin binary'],
    );
    assert.equal(await summary.locator('.changes-omitted').innerText(), 'and 2 more files');
    await h.screenshot('changes-summary');
  });

  it('shows a path as text, never as HTML', async () => {
    await open();
    const path = 'a<img src=x onerror="window.__pwned=1">.txt';
    await h.send(
      ...changedTurn('t1', {
        files: [{ path, status: 'added', added: 1, removed: 0 }],
        restorable: true,
      }),
    );
    const summary = h.page.locator('.turn-changes');
    assert.equal(await summary.locator('.change-path').innerText(), path);
    assert.equal(await summary.locator('img').count(), 0);
    assert.equal(await h.page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    assert.equal(await summary.locator('.change').getAttribute('data-path'), path);
  });

  it('asks the host for one file’s diff, the whole turn’s, and a restore', async () => {
    await open();
    await h.send(...changedTurn('t1', CHANGES));
    const summary = h.page.locator('.turn-changes');
    await summary.locator('.change', { hasText: 'tests/test_io.py' }).locator('button').click();
    await summary.locator('.changes-view-all').click();
    await summary.locator('.changes-restore').click();
    const posted = await h.posted();
    assert.deepEqual(posted.slice(-3), [
      { type: 'showChangeDiff', turnId: 't1', path: 'tests/test_io.py' },
      { type: 'showChangeDiff', turnId: 't1' },
      { type: 'restoreCheckpoint', turnId: 't1' },
    ]);
  });

  it('marks restored turns and drops their restore button; a reload keeps the mark', async () => {
    await open();
    await h.send(...changedTurn('t1', CHANGES), ...changedTurn('t2', CHANGES));
    assert.equal(await h.page.locator('.changes-restore').count(), 2);
    await h.send(msg.restored('t1', 't2'));
    for (const id of ['t1', 't2']) {
      const turn = h.page.locator(`.turn[data-turn-id="${id}"]`);
      assert.equal(await turn.locator('.changes-restored').innerText(), 'restored');
      assert.match(await turn.locator('.turn-footer').innerText(), /Restored/);
    }
    assert.equal(await h.page.locator('.changes-restore').count(), 0);
    await h.screenshot('changes-restored');
  });

  it('comes back from the stored tree after a reload', async () => {
    await open();
    await h.send(
      msg.session({
        checkpoints: ALL,
        restoredTurns: ['t2'],
        turns: [
          {
            turnId: 't1',
            userText: 'fix the encoding',
            texts: [],
            status: 'complete',
            tree: { version: 1, nodes: [node('t1', null, { status: 'done', changes: CHANGES })] },
          },
          {
            turnId: 't2',
            userText: 'again',
            texts: [],
            status: 'complete',
            tree: { version: 1, nodes: [node('t2', null, { status: 'done', changes: CHANGES })] },
          },
        ],
      }),
    );
    assert.equal(await h.page.locator('.turn-changes').count(), 2);
    assert.equal(await h.page.locator('.turn[data-turn-id="t1"] .changes-restore').count(), 1);
    assert.equal(await h.page.locator('.turn[data-turn-id="t2"] .changes-restore').count(), 0);
    assert.equal(await h.page.locator('.turn[data-turn-id="t2"] .changes-restored').count(), 1);
  });

  it('disables restore while a turn runs', async () => {
    await open();
    await h.send(...changedTurn('t1', CHANGES), msg.turnStarted('t2', 'more'), msg.running('t2'));
    const restore = h.page.locator('.turn[data-turn-id="t1"] .changes-restore');
    assert.equal(await restore.isDisabled(), true);
    // The running turn shows no summary until it ends.
    await h.send(msg.tree('t2', node('t2', null, { status: 'done', changes: CHANGES })));
    assert.equal(await h.page.locator('.turn[data-turn-id="t2"] .turn-changes').isVisible(), false);
    await h.send(msg.ended('t2'));
    assert.equal(await restore.isDisabled(), false);
    assert.equal(await h.page.locator('.turn[data-turn-id="t2"] .turn-changes').isVisible(), true);
  });

  it('hides restore for a turn that is not restorable, or without the capability', async () => {
    await open();
    await h.send(...changedTurn('t1', { ...CHANGES, restorable: false }));
    assert.equal(await h.page.locator('.turn-changes').isVisible(), true);
    assert.equal(await h.page.locator('.changes-restore').count(), 0);
    await h.close();

    await open({ diff: false, restore: false });
    await h.send(...changedTurn('t1', CHANGES));
    assert.equal(await h.page.locator('.changes-restore').count(), 0);
    assert.equal(await h.page.locator('.changes-view-all').count(), 0);
    assert.equal(await h.page.locator('.change-open').first().isDisabled(), true);
    await h.close();

    await open({ diff: true, restore: false });
    await h.send(...changedTurn('t1', CHANGES));
    assert.equal(await h.page.locator('.changes-restore').count(), 0);
    assert.equal(await h.page.locator('.changes-view-all').count(), 1);
  });

  it('a turn that changed nothing shows no summary', async () => {
    await open();
    await h.send(...changedTurn('t1', undefined));
    assert.equal(await h.page.locator('.turn-changes').isVisible(), false);
  });
});
