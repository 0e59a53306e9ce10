/// <reference lib="dom" />
/**
 * Benchmark (not a test): the built webview in headless Chromium renders a
 * 2,000-node execution tree while receiving 500 `tree` updates per second;
 * prints the frame-time distribution. Target: p95 <= 16 ms.
 *   npm run bench -w extension      (BENCH_SECONDS=5 by default)
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { msg } from '../fixtures/builders.js';
import { browserAvailable, openWebview } from '../webview/harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const SUBTASKS = 100;
const CHILDREN = 19; // 100 subtasks + 1,900 tool calls = 2,000 nodes (+ the turn node)
const RATE = 500;

async function run(label: string, childDepth: number): Promise<void> {
  const h = await openWebview({ width: 600, height: 900 });
  try {
    await h.send(
      msg.connection('ready'),
      msg.session(),
      msg.turnStarted('t', 'benchmark'),
      msg.running('t'),
    );
    // The page side is plain JS (benchPage.js): code compiled by tsx carries helpers the page lacks.
    await h.page.addScriptTag({ content: readFileSync(join(here, 'benchPage.js'), 'utf8') });
    const stats = await h.page.evaluate(
      (options) =>
        (
          window as unknown as {
            arborBench(
              o: unknown,
            ): Promise<{ frames: number[]; updates: number; nodes: number; cards: number }>;
          }
        ).arborBench(options),
      { seconds: SECONDS, subtasks: SUBTASKS, children: CHILDREN, rate: RATE, childDepth },
    );
    const sorted = [...stats.frames].sort((a, b) => a - b);
    const q = (p: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1);
    const achieved = (stats.updates / SECONDS).toFixed(0);
    console.log(
      `${label}: ${stats.nodes} nodes, ${stats.cards} cards in the DOM, ${achieved} updates/s, ${sorted.length} frames — ` +
        `frame time p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, p99 ${q(0.99)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
    );
    await h.screenshot(`bench-${label.replace(/\W+/g, '-')}`);
  } finally {
    await h.close();
  }
}

if (!browserAvailable()) {
  console.error('benchmark needs /usr/bin/chromium and a built webview');
  process.exit(1);
}
await run('default (depth > 0 collapsed)', 1);
await run('all expanded (every card drawn)', 0);
