/// <reference lib="dom" />
/**
 * Loads the built webview (dist/webview) in Debian's headless Chromium with a
 * stub host: `acquireVsCodeApi` records what the webview posts, and tests
 * deliver host messages as the `message` events VS Code would.
 * Never downloads a browser: /usr/bin/chromium or nothing.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { HostMessage, WebviewMessage } from '../../src/shared/messages.js';

const here = dirname(fileURLToPath(import.meta.url));
export const EXT = resolve(here, '..', '..');
export const RESULTS = join(EXT, 'test-results');
export const CHROMIUM = process.env['ARBOR_CHROMIUM'] ?? '/usr/bin/chromium';

/** In CI a missing browser is a failure, never a silent skip. */
export function browserAvailable(): boolean {
  const ok = existsSync(CHROMIUM) && existsSync(join(EXT, 'dist', 'webview', 'chat.js'));
  if (!ok && process.env['CI']) {
    throw new Error(
      `Webview tests need ${CHROMIUM} (apt-get install -y chromium) and a built webview (npm run build -w extension).`,
    );
  }
  return ok;
}

const stub = (state: unknown): string => `
window.__posted = [];
window.__state = ${JSON.stringify(state ?? null)} ?? undefined;
window.acquireVsCodeApi = () => ({
  postMessage: (m) => window.__posted.push(m),
  getState: () => window.__state,
  setState: (s) => { window.__state = s; },
});`;

/** A minimal VS Code dark theme, so screenshots look like the real thing. */
const THEME = `
:root {
  --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace; --vscode-editor-font-size: 12px;
  --vscode-foreground: #cccccc; --vscode-descriptionForeground: #9d9d9d; --vscode-sideBar-background: #181818; --vscode-editor-background: #1f1f1f;
  --vscode-panel-border: #2b2b2b; --vscode-focusBorder: #0078d4; --vscode-button-background: #0078d4; --vscode-button-foreground: #ffffff;
  --vscode-button-secondaryBackground: #313131; --vscode-button-secondaryForeground: #cccccc; --vscode-input-background: #313131;
  --vscode-input-foreground: #cccccc; --vscode-input-border: #3c3c3c; --vscode-textCodeBlock-background: #2b2b2b; --vscode-errorForeground: #f85149;
  --vscode-editorWarning-foreground: #cca700; --vscode-testing-iconPassed: #73c991; --vscode-badge-background: #616161; --vscode-badge-foreground: #f8f8f8;
  --vscode-textLink-foreground: #4daafc; --vscode-list-hoverBackground: #2a2d2e; --vscode-dropdown-background: #313131; --vscode-dropdown-foreground: #cccccc;
}`;

export interface Harness {
  page: Page;
  /** Delivers host messages (validated by the webview like real ones). */
  send(...messages: HostMessage[]): Promise<void>;
  /** What the webview posted to the host so far. */
  posted(): Promise<WebviewMessage[]>;
  /** What the webview saved with vscode.setState. */
  state(): Promise<unknown>;
  /** Waits for the next animation frames so the renderer has drawn. */
  settle(): Promise<void>;
  screenshot(name: string): Promise<string>;
  /** With holdValidator: loads validator.js now. */
  releaseValidator(): Promise<void>;
  close(): Promise<void>;
}

export async function openWebview(
  /** `state`: what vscode.getState() returns at load (the state a reloaded webview finds). */
  options: {
    width?: number;
    height?: number;
    state?: unknown;
    reducedMotion?: boolean;
    /**
     * The validator (validator.js, loaded by chat.js after its first paint) stays
     * away until `releaseValidator()`: what the host sends meanwhile must wait for it.
     */
    holdValidator?: boolean;
  } = {},
): Promise<Harness> {
  const work = mkdtempSync(join(tmpdir(), 'arbor-webview-'));
  const built = join(EXT, 'dist', 'webview');
  // Held: chat.js runs from the work dir, where its validator.js is not (yet).
  if (options.holdValidator) copyFileSync(join(built, 'chat.js'), join(work, 'chat.js'));
  const dist = pathToFileURL(built).href;
  const chat = options.holdValidator ? 'chat.js' : `${dist}/chat.js`;
  writeFileSync(join(work, 'theme.css'), THEME);
  writeFileSync(join(work, 'stub.js'), stub(options.state));
  writeFileSync(
    join(work, 'index.html'),
    `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<link rel="stylesheet" href="theme.css"><link rel="stylesheet" href="${dist}/codicon.css"><link rel="stylesheet" href="${dist}/chat.css">
<script src="stub.js"></script></head><body><script src="${chat}"></script></body></html>`,
  );
  const context: BrowserContext = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: options.width ?? 480, height: options.height ?? 900 },
    reducedMotion: options.reducedMotion ? 'reduce' : 'no-preference',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--allow-file-access-from-files',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    // Held, chat.js's own attempt to load the validator fails, and it says so: expected.
    if (options.holdValidator && /ERR_FILE_NOT_FOUND|could not load .*validator\.js/.test(m.text()))
      return;
    if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
  });
  await page.goto(pathToFileURL(join(work, 'index.html')).href);
  await page.waitForFunction(
    () => (window as unknown as { __posted: unknown[] }).__posted.length > 0,
  );
  // Tests talk to a webview that validates, as the user's does a moment after it opens.
  if (!options.holdValidator)
    await page.waitForFunction(() => 'arborValidator' in window, undefined, { timeout: 10_000 });
  const harness: Harness = {
    page,
    async send(...messages) {
      await page.evaluate((list) => {
        for (const m of list) window.postMessage(m, '*');
      }, messages);
      await harness.settle();
    },
    posted: () =>
      page.evaluate(() => (window as unknown as { __posted: WebviewMessage[] }).__posted),
    state: () => page.evaluate(() => (window as unknown as { __state: unknown }).__state),
    async settle() {
      // postMessage events are delivered as tasks; then two frames for the batched render.
      await page.evaluate(
        () =>
          new Promise((r) =>
            setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(r)), 0),
          ),
      );
      if (errors.length) throw new Error(`webview errors: ${errors.join('\n')}`);
    },
    async screenshot(name) {
      mkdirSync(RESULTS, { recursive: true });
      const file = join(RESULTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async releaseValidator() {
      await page.addScriptTag({ url: `${dist}/validator.js` });
      await harness.settle();
    },
    async close() {
      await context.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
  return harness;
}
