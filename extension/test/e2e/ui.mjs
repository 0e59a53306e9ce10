// The UI half of the end-to-end test: a real VS Code workbench (code-server)
// in Debian's headless Chromium, driven with playwright-core. The extension's
// daemon runs on the scripted provider with test/e2e/ui.script.json, so every
// turn has a known shape. Each step throws on failure; run.mjs owns the verdict.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A throw-away Chromium profile (launchPersistentContext owns --user-data-dir). */
export async function launchBrowser(chromiumPath) {
  const profile = mkdtempSync(join(tmpdir(), 'arbor-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    page: context.pages()[0] ?? (await context.newPage()),
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs a command from the palette. The palette lists commands when it opens,
 * and the remote extension host registers the extension's commands seconds
 * after the workbench shows: retry until the row appears.
 */
async function runCommand(page, label, deadlineMs = 60_000) {
  const end = Date.now() + deadlineMs;
  const input = page.locator('.quick-input-widget input[type="text"]').first();
  for (;;) {
    await page.keyboard.press('F1');
    try {
      // F1 may not reach the workbench (focus still in a webview just after a reload):
      // the palette then stays hidden, and the key is pressed again.
      await input.waitFor({ state: 'visible', timeout: 5000 });
      await input.fill(`>${label}`, { timeout: 5000 });
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
      await row.waitFor({ timeout: 3000 });
      await page.keyboard.press('Enter');
      return;
    } catch {
      if (Date.now() > end) throw new Error(`command "${label}" never appeared in the palette`);
      await page.keyboard.press('Escape');
      // Focus back to the workbench: the editor area's top corner (its tab bar).
      await page
        .locator('.part.editor')
        .click({ position: { x: 5, y: 5 }, timeout: 2000 })
        .catch(() => {});
      await sleep(500);
    }
  }
}

/** The chat webview: iframe.webview > iframe#active-frame, found by its content. */
async function chatFrame(page, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    for (const frame of page.frames()) {
      if (!frame.url().includes('/webview/')) continue;
      const n = await frame
        .locator('.chat .composer-input')
        .count()
        .catch(() => 0);
      if (n > 0) return frame;
    }
    await sleep(250);
  }
  throw new Error('the Arbor chat webview did not appear');
}

async function openArborView(page) {
  const item = page.locator('.part.activitybar li.action-item', {
    has: page.locator('.action-label[aria-label^="Arbor"]'),
  });
  try {
    await item.first().waitFor({ timeout: 30_000 });
    // A reload restores the open view; clicking an active container's icon would close it.
    const active = /\bchecked\b/.test((await item.first().getAttribute('class')) ?? '');
    if (!active) await item.first().click();
  } catch {
    await runCommand(page, 'Arbor: New Chat');
  }
  try {
    return await chatFrame(page, 15_000);
  } catch {
    // The restore raced the click (the icon's state changed in between and the click
    // closed the side bar): the view container's own "show" command never toggles.
    await runCommand(page, 'View: Show Arbor');
    return chatFrame(page);
  }
}

async function waitForWorkbench(page) {
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  // The folder is open and the extension host has shown a status bar entry.
  await page.locator('.part.statusbar').waitFor({ timeout: 90_000 });
  await page
    .locator('.part.activitybar .action-label[aria-label^="Explorer"]')
    .first()
    .waitFor({ timeout: 90_000 });
}

/** The cards of one turn as `label[status]` lines, indented by depth (expanded ones only). */
function outline(turn) {
  return turn.evaluate((el) => {
    const lines = [];
    const walk = (container, depth) => {
      for (const card of container.querySelectorAll(':scope > .card')) {
        const label =
          card.getAttribute('data-tool-name') ??
          card.querySelector(':scope > .card-header .card-label')?.textContent ??
          '';
        lines.push(`${'  '.repeat(depth)}${label} [${card.getAttribute('data-status')}]`);
        const children = card.querySelector(':scope > .card-body > .card-children');
        if (children) walk(children, depth + 1);
      }
    };
    walk(el.querySelector('.activity'), 0);
    return lines;
  });
}

/** What each card stands for: its tool's name, or a subtask's title. */
function namesOf(cards) {
  return cards.evaluateAll((els) =>
    els.map(
      (card) =>
        card.getAttribute('data-tool-name') ??
        card.querySelector(':scope > .card-header .card-label')?.textContent ??
        '',
    ),
  );
}

async function expandAll(turn) {
  for (let round = 0; round < 4; round++) {
    const collapsed = turn.locator('.card[aria-expanded="false"] > .card-header');
    const n = await collapsed.count();
    if (n === 0) return;
    await collapsed.first().click();
  }
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Sends a message from the composer and waits for its turn to end with
 * `status` (a turn article is added per message).
 */
async function send(chat, text) {
  const turns = chat.locator('.turn');
  const before = await turns.count();
  const input = chat.locator('.composer-input');
  await input.fill(text);
  await input.press('Enter');
  await turns.nth(before).waitFor({ timeout: 30_000 });
  return turns.nth(before);
}

async function waitStatus(turn, status, timeout = 60_000) {
  const end = Date.now() + timeout;
  for (;;) {
    const actual = await turn.getAttribute('data-status');
    if (actual === status) return;
    if (actual !== 'running' || Date.now() > end) {
      const footer = await turn
        .locator('.turn-footer')
        .innerText()
        .catch(() => '');
      throw new Error(`turn is "${actual}" (${footer}), expected "${status}"`);
    }
    await sleep(150);
  }
}

/** The pid of the daemon the extension spawned on `dataDir` (its command line names the dir). */
function daemonPid(dataDir) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args;
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    const at = args.indexOf('--data-dir');
    if (args.includes('daemon') && at !== -1 && args[at + 1] === dataDir) return Number(entry);
  }
  return undefined;
}

/**
 * @param {{ url: string, workspace: string, dataDir: string, shots: string, chromium: string, log: (s: string) => void }} o
 * @returns {Promise<{ steps: { name: string, ok: boolean, note?: string }[], finished: boolean }>}
 */
export async function runUiTest(o) {
  const steps = [];
  let finished = false;
  const browser = await launchBrowser(o.chromium);
  const { page } = browser;
  page.on('pageerror', (e) => o.log(`[pageerror] ${String(e).slice(0, 300)}`));
  const shot = (name) => page.screenshot({ path: join(o.shots, `e2e-${name}.png`) });
  let chat;
  const step = async (name, fn) => {
    const t = Date.now();
    try {
      const note = await fn();
      steps.push({ name, ok: true, ...(note && { note }) });
      o.log(
        `  ok   ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)${note ? ` — ${note}` : ''}`,
      );
    } catch (error) {
      steps.push({ name, ok: false, note: error.message });
      o.log(`  FAIL ${name}: ${error.message}`);
      await shot(`fail-${name.replace(/\W+/g, '-')}`).catch(() => undefined);
      throw error;
    }
  };

  try {
    await step('workbench loads with the test folder', async () => {
      await page.goto(o.url);
      await waitForWorkbench(page);
    });

    await step('open the Arbor view; the daemon connects', async () => {
      chat = await openArborView(page);
      // Connected with a session: no banner and an enabled composer.
      await chat.locator('.banner').waitFor({ state: 'hidden', timeout: 60_000 });
      await chat.locator('.mode-select').waitFor({ timeout: 10_000 });
      await shot('01-view');
    });

    await step(
      '"Add Selection to Chat" puts the file, line and text into the composer',
      async () => {
        await page.keyboard.press('Control+P');
        const quickOpen = page.locator('.quick-input-widget input[type="text"]').first();
        await quickOpen.fill('hello.txt');
        await page
          .locator('.quick-input-list .monaco-list-row', { hasText: 'hello.txt' })
          .first()
          .waitFor({ timeout: 10_000 });
        await page.keyboard.press('Enter');
        const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
        await editor.click();
        await page.keyboard.press('Control+A');
        await runCommand(page, 'Arbor: Add Selection to Chat');
        const input = chat.locator('.composer-input');
        const end = Date.now() + 10_000;
        let draft = '';
        while (!(draft = await input.inputValue()).includes('hello.txt')) {
          if (Date.now() > end) throw new Error(`composer holds ${JSON.stringify(draft)}`);
          await sleep(150);
        }
        check(
          /^`hello\.txt` line 1:\n```plaintext\nhello[^\n]*\n```$/.test(draft),
          `composer holds ${JSON.stringify(draft)}`,
        );
        await input.fill('');
        // The survey below checks that open_file opens hello.txt.
        await runCommand(page, 'View: Close All Editors');
      },
    );

    await step(
      'the daemon dies mid-turn: the turn ends interrupted with the reason; Retry sends it again',
      async () => {
        const turn = await send(chat, 'Think for a long time');
        const cancel = chat.locator('.cancel');
        await cancel.waitFor({ state: 'visible', timeout: 10_000 });
        const pid = daemonPid(o.dataDir);
        check(pid !== undefined, `no daemon process on ${o.dataDir}`);
        process.kill(pid, 'SIGKILL');
        // Before the restarted daemon's copy of the session replaces it.
        await turn
          .locator('.turn-interrupted-reason', {
            hasText: 'stopped unexpectedly (killed by SIGKILL)',
          })
          .waitFor({ timeout: 10_000 });
        check(
          (await turn.getAttribute('data-status')) === 'interrupted',
          'turn is not interrupted',
        );
        await cancel.waitFor({ state: 'hidden', timeout: 10_000 });
        await shot('05-daemon-lost');
        // A new daemon starts by itself, and the chat goes on with it.
        const end = Date.now() + 30_000;
        for (let next = daemonPid(o.dataDir); next === undefined || next === pid;) {
          if (Date.now() > end) throw new Error('no daemon was started again');
          await sleep(200);
          next = daemonPid(o.dataDir);
        }
        await chat.locator('.banner').waitFor({ state: 'hidden', timeout: 30_000 });
        await sleep(1000); // the session is loaded again after the connection
        // Retry sends the interrupted prompt again, as a new turn (cancelled here: it thinks for long).
        await turn.locator('.retry').click();
        const retried = chat.locator('.turn').filter({ hasText: 'Think for a long time' }).nth(1);
        await retried.waitFor({ timeout: 15_000 });
        await cancel.waitFor({ state: 'visible', timeout: 10_000 });
        await cancel.click();
        await waitStatus(retried, 'cancelled', 20_000);
        const after = await send(chat, 'Are you back?');
        await waitStatus(after, 'complete', 30_000);
        check(
          (await turn.getAttribute('data-status')) === 'interrupted',
          'the interrupted turn changed its status after the restart',
        );
        // The steps below start from an empty chat (the reload step counts its turns).
        await runCommand(page, 'Arbor: New Chat');
        const fresh = Date.now() + 20_000;
        while ((await chat.locator('.turn').count()) > 0) {
          if (Date.now() > fresh) throw new Error('New Chat kept the turns');
          await sleep(200);
        }
      },
    );
    let surveyTurn;
    let surveyOutline;
    await step('send a message; nested tool-call cards; client tools run', async () => {
      surveyTurn = await send(chat, 'Survey the workspace');
      await waitStatus(surveyTurn, 'complete');
      const top = surveyTurn.locator('.activity > .card');
      const labels = await namesOf(top);
      check(labels.length === 2, `expected 2 top-level cards, got ${JSON.stringify(labels)}`);
      check(
        labels.some((l) => /Inspect the files/.test(l)),
        `no subtask card in ${labels}`,
      );
      check(
        labels.some((l) => /open_file/.test(l)),
        `no open_file card in ${labels}`,
      );
      await expandAll(surveyTurn);
      const subtask = top.filter({ hasText: 'Inspect the files' }).first();
      const children = await namesOf(subtask.locator('.card-children > .card'));
      check(
        children.some((l) => /get_selection/.test(l)) &&
          children.some((l) => /get_diagnostics/.test(l)),
        `subtask children: ${JSON.stringify(children)}`,
      );
      const failed = await surveyTurn.locator('.card.is-error').count();
      check(failed === 0, `${failed} card(s) in error`);
      const answer = await surveyTurn.locator('.answer').innerText();
      check(/Survey complete/.test(answer), `answer: ${answer}`);
      // open_file ran in the editor: hello.txt is open in a tab.
      await page
        .locator('.tabs-container .tab', { hasText: 'hello.txt' })
        .first()
        .waitFor({ timeout: 10_000 });
      surveyOutline = await outline(surveyTurn);
      await shot('02-nested-cards');
      return surveyOutline.join(' | ');
    });

    await step('switch the permission mode (the daemon confirms)', async () => {
      const picker = chat.locator('.mode-select');
      const current = () =>
        picker.locator('[aria-checked="true"]').first().getAttribute('data-mode');
      check((await current()) === 'default', `initial mode ${await current()}`);
      for (const mode of ['plan', 'auto', 'default']) {
        await picker.locator(`[data-mode="${mode}"]`).click();
        const end = Date.now() + 10_000;
        while ((await current()) !== mode) {
          if (Date.now() > end)
            throw new Error(`mode stayed ${await current()} after choosing ${mode}`);
          await sleep(100);
        }
      }
    });

    await step('approve an editor write (apply_edit) and see the file change', async () => {
      const turn = await send(chat, 'Edit the greeting');
      const approval = turn.locator('.approval-card').first();
      await approval.waitFor({ timeout: 30_000 });
      const text = await approval.innerText();
      check(/apply_edit/.test(text) && /write/.test(text), `approval card: ${text}`);
      await approval.scrollIntoViewIfNeeded();
      await shot('03-approval');
      await approval.locator('button[data-decision="allow"]').click();
      await waitStatus(turn, 'complete');
      const content = readFileSync(join(o.workspace, 'hello.txt'), 'utf8');
      check(content === 'hello from Arbor\n', `hello.txt is now ${JSON.stringify(content)}`);
    });

    await step('approve a daemon write (write_file) and see the file created', async () => {
      const turn = await send(chat, 'Write a new file');
      const approval = turn.locator('.approval-card').first();
      const appeared = await Promise.race([
        approval.waitFor({ timeout: 30_000 }).then(
          () => true,
          () => false,
        ),
        waitStatus(turn, 'complete', 30_000).then(
          () => false,
          () => false,
        ),
      ]);
      if (!appeared) {
        const card = await turn
          .locator('.activity > .card')
          .first()
          .innerText()
          .catch(() => '');
        throw new Error(
          `no approval was asked for write_file; its card says: ${card.replace(/\s+/g, ' ').slice(0, 200)}`,
        );
      }
      // A new approval takes the keyboard; 1 allows once.
      const focused = await approval.evaluate((el) => el.contains(el.ownerDocument.activeElement));
      check(focused, 'the approval did not take the keyboard');
      await page.keyboard.press('1');
      await waitStatus(turn, 'complete');
      const file = join(o.workspace, 'notes', 'new.txt');
      check(existsSync(file), 'notes/new.txt was not created');
      check(
        readFileSync(file, 'utf8') === 'written by the daemon\n',
        'notes/new.txt has other content',
      );
    });

    await step(
      'the write turn lists its changed file; restore it and the file is gone',
      async () => {
        const turn = chat.locator('.turn').filter({ hasText: 'Write a new file' }).last();
        const summary = turn.locator('.turn-changes');
        await summary.waitFor({ timeout: 20_000 });
        const rows = (await summary.locator('.change').allInnerTexts()).map((t) =>
          t.replace(/\s+/g, ' ').trim(),
        );
        check(
          rows.length === 1 && rows[0] === 'A notes/new.txt +1 −0',
          `changed files: ${JSON.stringify(rows)}`,
        );
        // The file's diff (checkpoint/diff) opens beside as a read-only diff document.
        await summary.locator('.change-open').first().click();
        await page
          .locator('.tabs-container .tab', { hasText: 'new.txt.diff' })
          .first()
          .waitFor({ timeout: 15_000 });
        const editor = page.locator('.editor-group-container.active .view-lines').first();
        const end = Date.now() + 10_000;
        let shown = '';
        while (!/\+written by the daemon/.test(shown)) {
          if (Date.now() > end) throw new Error(`the diff document shows: ${shown}`);
          await sleep(200);
          shown = (await editor.innerText().catch(() => '')).replace(/\u00a0/g, ' ');
        }
        await shot('03-changes');
        await summary.locator('.changes-restore').click();
        // VS Code's modal confirmation lists the file that goes back.
        const dialog = page.locator('.monaco-dialog-box');
        await dialog.waitFor({ timeout: 15_000 });
        const asked = await dialog.innerText();
        check(/notes\/new\.txt/.test(asked), `the confirmation does not list the file: ${asked}`);
        await dialog
          .locator('.monaco-button', { hasText: /^Restore$/ })
          .first()
          .click();
        await summary.locator('.changes-restored').waitFor({ timeout: 20_000 });
        const file = join(o.workspace, 'notes', 'new.txt');
        check(!existsSync(file), 'notes/new.txt is still there after the restore');
        await page
          .locator('.notifications-toasts', { hasText: /restored 1 file/ })
          .first()
          .waitFor({ timeout: 10_000 });
        check(
          (await summary.locator('.changes-restore').count()) === 0,
          'the restored turn still offers a restore',
        );
      },
    );

    await step("answer the model's question (ask_user) with an option", async () => {
      const turn = await send(chat, 'Ask me which runner');
      const card = turn.locator('.question-card').first();
      await card.waitFor({ timeout: 30_000 });
      const text = await card.innerText();
      check(/Which test runner/.test(text) && /Vitest/.test(text), `question card: ${text}`);
      await card.scrollIntoViewIfNeeded();
      await shot('03-question');
      await card.locator('button.question-option', { hasText: 'Jest' }).click();
      await waitStatus(turn, 'complete');
      const status = await card.locator('.question-status').innerText();
      check(/^Answered here: “Jest”/.test(status), `question card says: ${status}`);
    });

    await step('cancel a running turn', async () => {
      const turn = await send(chat, 'Think for a long time');
      const cancel = chat.locator('.cancel');
      await cancel.waitFor({ state: 'visible', timeout: 10_000 });
      await cancel.click();
      await waitStatus(turn, 'cancelled', 20_000);
      await cancel.waitFor({ state: 'hidden', timeout: 10_000 });
      check(
        /Cancelled/.test(await turn.locator('.turn-footer').innerText()),
        'footer does not say Cancelled',
      );
    });

    await step('reload the window; the tree is rebuilt from the store', async () => {
      const turnsBefore = await chat.locator('.turn').count();
      const reloaded = page.waitForEvent('load', { timeout: 60_000 });
      await runCommand(page, 'Developer: Reload Window');
      await reloaded;
      await waitForWorkbench(page);
      chat = await openArborView(page);
      const turns = chat.locator('.turn');
      const end = Date.now() + 60_000;
      while ((await turns.count()) < turnsBefore) {
        if (Date.now() > end)
          throw new Error(`only ${await turns.count()} of ${turnsBefore} turns after reload`);
        await sleep(250);
      }
      const first = turns.first();
      await expandAll(first);
      const after = await outline(first);
      check(
        JSON.stringify(after) === JSON.stringify(surveyOutline),
        `tree after reload differs:\n  before ${surveyOutline.join(' | ')}\n  after  ${after.join(' | ')}`,
      );
      check(
        (await first.getAttribute('data-status')) === 'complete',
        'first turn is not complete after reload',
      );
      check(
        (await turns.nth(turnsBefore - 1).getAttribute('data-status')) === 'cancelled',
        'cancelled turn lost',
      );
      const written = turns.filter({ hasText: 'Write a new file' }).last();
      check(
        (await written.locator('.turn-changes .change').count()) === 1,
        'the changed files of the write turn did not come back after reload',
      );
      const draft = await chat.locator('.composer-input').inputValue();
      check(
        draft === '',
        `the composer kept a sent message after reload: ${JSON.stringify(draft)}`,
      );
      await shot('04-after-reload');
      return `${turnsBefore} turns`;
    });

    finished = true;
  } catch {
    // The failing step was recorded; fall through to the verdict.
  } finally {
    await browser.close();
  }
  return { steps, finished };
}

/**
 * Runs the extension-host suites: code-server takes extensionDevelopmentPath /
 * extensionTestsPath only in the workbench URL `payload` (on a server started
 * with `--vscode-option enable-smoke-test-driver`) and reports the exit code
 * through window.codeAutomationExit.
 */
export async function runHostSuites(o) {
  const host = new URL(o.url).host;
  const remote = (p) => `vscode-remote://${host}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(o.extensionPath)],
    ['extensionTestsPath', remote(o.testsPath)],
    ['skipWelcome', 'true'],
  ];
  const url = `${o.url}?folder=${encodeURIComponent(o.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const browser = await launchBrowser(o.chromium);
  const { page } = browser;
  try {
    let exited;
    const exit = new Promise((resolve) => (exited = resolve));
    const noise =
      /open-vsx\.org|^(Resolving|Resolved) connection|^Creating a socket|grace-time|\[Service Worker\]|\[AgentHost|\[AccountPolicyGate\]|builtin extensions cache/;
    await page.exposeFunction('codeAutomationLog', (_type, args) => {
      const line = format(...args);
      if (o.verbose || !noise.test(line)) o.log(line);
    });
    await page.exposeFunction('codeAutomationExit', (code) => exited(code));
    await page.goto(url);
    const code = await Promise.race([exit, sleep(o.timeoutMs ?? 180_000).then(() => 'timeout')]);
    return code;
  } finally {
    await browser.close();
  }
}
