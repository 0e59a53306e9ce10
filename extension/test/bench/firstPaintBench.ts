/// <reference lib="dom" />
/**
 * Benchmark (not a test): how soon the chat webview paints after it opens,
 * in headless Chromium. Each round loads three pages in a fresh tab:
 *   - baseline: the same HTML and styles, no script (what any webview costs);
 *   - one script: chat.js and its validator bundled together, as the
 *     webview shipped before they were split;
 *   - split: chat.js, which paints and then loads validator.js.
 * Prints first-paint p50 of each (navigation start to the first frame drawn), the ratios to the baseline, and
 * when each can take host messages (the split one once its validator has
 * loaded; in VS Code that overlaps the host's answer to `ready`, which the
 * first messages wait for anyway).
 * Target: first paint <= 300 ms.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM, EXT, browserAvailable } from '../webview/harness.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 15);
const TARGET_MS = 300;

if (!browserAvailable()) {
  console.error('benchmark needs /usr/bin/chromium and a built webview');
  process.exit(1);
}

const dist = join(EXT, 'dist', 'webview');
const work = mkdtempSync(join(tmpdir(), 'arbor-first-paint-'));
// The webview as a production build ships it (minified), both shapes.
await build({
  entryPoints: {
    chat: join(EXT, 'webview', 'main.ts'),
    validator: join(EXT, 'webview', 'validator.ts'),
  },
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  minify: true,
  outdir: join(work, 'split'),
  logLevel: 'warning',
});
// Before the split: the validator's code ran first, inside the same script.
writeFileSync(
  join(work, 'one.ts'),
  `import '${join(EXT, 'webview', 'validator.ts')}';\nimport '${join(EXT, 'webview', 'main.ts')}';\n`,
);
await build({
  entryPoints: [join(work, 'one.ts')],
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  minify: true,
  outfile: join(work, 'one', 'chat.js'),
  logLevel: 'warning',
});

const STUB = `<script>window.acquireVsCodeApi = () => ({ postMessage() {}, getState() {}, setState() {} });</script>`;
const styles = ['codicon.css', 'chat.css']
  .map((file) => `<link rel="stylesheet" href="${pathToFileURL(join(dist, file)).href}">`)
  .join('');
function page(name: string, body: string): string {
  const file = join(work, `${name}.html`);
  writeFileSync(
    file,
    `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">${styles}${STUB}</head><body>${body}</body></html>`,
  );
  return pathToFileURL(file).href;
}
const pages = {
  // A static stand-in for what the webview draws first, so there is something to paint.
  baseline: page('baseline', '<div class="composer"><textarea></textarea></div>'),
  one: page('one', `<script src="one/chat.js"></script>`),
  split: page('split', `<script src="split/chat.js"></script>`),
};

const context = await chromium.launchPersistentContext(join(work, 'profile'), {
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'],
});

/**
 * In the page: first paint, then when the webview takes messages.
 * Source text: tsx would inject helpers into a compiled function that the page lacks.
 */
const IN_PAGE = `new Promise((resolve) => {
  const done = (paint) => {
    const ready = () => resolve({ paint, ready: performance.now() });
    if ('arborValidator' in window || !document.querySelector('script[src]')) ready();
    else window.addEventListener('arbor-validator', ready, { once: true });
  };
  const seen = performance.getEntriesByName('first-paint')[0];
  if (seen) return done(seen.startTime);
  new PerformanceObserver((list, observer) => {
    const entry = list.getEntriesByName('first-paint')[0];
    if (!entry) return;
    observer.disconnect();
    done(entry.startTime);
  }).observe({ type: 'paint', buffered: true });
})`;

async function measure(url: string): Promise<{ paint: number; ready: number }> {
  const tab = await context.newPage();
  try {
    await tab.goto(url);
    return (await tab.evaluate(IN_PAGE)) as { paint: number; ready: number };
  } finally {
    await tab.close();
  }
}

const samples: Record<keyof typeof pages, { paint: number[]; ready: number[] }> = {
  baseline: { paint: [], ready: [] },
  one: { paint: [], ready: [] },
  split: { paint: [], ready: [] },
};
try {
  for (const name of Object.keys(pages) as (keyof typeof pages)[]) await measure(pages[name]); // warm-up
  // Interleaved rounds: machine load hits all three alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(pages) as (keyof typeof pages)[]) {
      const { paint, ready } = await measure(pages[name]);
      samples[name].paint.push(paint);
      samples[name].ready.push(ready);
    }
  }
} finally {
  await context.close();
  rmSync(work, { recursive: true, force: true });
}

const p50 = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const base = p50(samples.baseline.paint);
const one = p50(samples.one.paint);
const split = p50(samples.split.paint);
console.log(`webview first paint, p50 of ${ROUNDS} loads in headless Chromium:`);
console.log(`  baseline (no script)      ${base.toFixed(1)} ms`);
console.log(
  `  one script (before split) ${one.toFixed(1)} ms = ${(one / base).toFixed(2)}× baseline; ` +
    `takes messages at ${p50(samples.one.ready).toFixed(1)} ms`,
);
console.log(
  `  split (chat.js)           ${split.toFixed(1)} ms = ${(split / base).toFixed(2)}× baseline, ` +
    `${(split / one).toFixed(2)}× one script; takes messages at ${p50(samples.split.ready).toFixed(1)} ms — ` +
    `target ≤ ${TARGET_MS} ms: ${split <= TARGET_MS ? 'OK' : 'OVER TARGET'}`,
);
