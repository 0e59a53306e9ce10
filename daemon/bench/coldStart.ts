/**
 * Cold start: spawn `arbor daemon --stdio` -> initialize response, against a
 * bare `node -e 0` spawn in the same run (same machine, same moment), plus
 * the daemon's idle RSS. Target: at most 1.5x the bare node start.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ARBOR = fileURLToPath(new URL('../bin/arbor.js', import.meta.url));
const TARGET_RATIO = 1.5;

function frame(body: object): string {
  const text = JSON.stringify(body);
  return `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
}

function bareNode(): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
  });
}

/** Time to the initialize response, and the idle RSS read from /proc once answered. */
function daemonStart(dataDir: string): Promise<{ ms: number; rssKiB: number | undefined }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      [ARBOR, 'daemon', '--stdio', '--data-dir', dataDir, '--log-level', 'error'],
      {
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    child.on('error', reject);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('"result"')) return;
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      setTimeout(() => {
        const rssKiB = readRss(child.pid);
        child.stdin.end(frame({ jsonrpc: '2.0', method: 'exit' }));
        child.on('exit', () => resolve({ ms, rssKiB }));
      }, 300);
    });
    child.stdin.write(frame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
  });
}

function readRss(pid: number | undefined): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  } catch {
    return undefined; // not Linux
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function coldStartBenchmark(runs = 10): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbor-bench-'));
  await bareNode();
  await daemonStart(dataDir); // warm the file cache for both
  const node: number[] = [];
  const daemon: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < runs; i++) {
    node.push(await bareNode());
    const run = await daemonStart(dataDir);
    daemon.push(run.ms);
    if (run.rssKiB !== undefined) rss.push(run.rssKiB);
  }
  const ratio = median(daemon) / median(node);
  console.log(`cold start (median of ${runs}):`);
  console.log(`  node -e 0:                       ${median(node).toFixed(1)} ms`);
  console.log(`  arbor daemon --stdio -> init:    ${median(daemon).toFixed(1)} ms`);
  console.log(
    `  ratio:                           ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x) ${ratio <= TARGET_RATIO ? 'OK' : 'OVER TARGET'}`,
  );
  if (rss.length > 0)
    console.log(`  idle RSS after initialize:       ${(median(rss) / 1024).toFixed(1)} MiB`);
}
