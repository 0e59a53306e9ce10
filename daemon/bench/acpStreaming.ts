/**
 * The ACP bridge (`arbor acp`): streaming a 100,000-delta answer to an ACP SDK
 * client, CPU per delta against the ACP SDK's own agent → client path, and
 * cold start to the initialize response.
 *
 * - Arbor: the built CLI spawned as an editor spawns it, `arbor acp --provider
 *   scripted --script <file> --data-dir <tmp>` (its daemon runs in the same
 *   process). The scripted reply is 100,000 words of 23 letters, so the
 *   provider streams exactly 100,000 deltas (see support.ts `longText`). The
 *   client is the SDK's `client()` on the child's stdio: initialize,
 *   session/new, session/prompt, counting `agent_message_chunk` updates and
 *   their characters until the prompt answers; the text must arrive whole.
 * - Baseline: acpBaselineAgent.ts, the SDK's `agent()` in a child process,
 *   answering session/prompt with one `agent_message_chunk` per delta (same
 *   text, each `notify` awaited), to the same kind of SDK client.
 *
 * CPU: the child's utime + stime from /proc/<pid>/stat plus this process's
 * process.cpuUsage(), from just before session/prompt until 300 ms after it
 * answers (trailing work such as the store commit counts), divided by the
 * deltas the scripted provider produced. Median of RUNS interleaved runs,
 * after a warm-up. Target: Arbor at most 1.0x the baseline per delta.
 *
 * Cold start: spawn `arbor acp` → initialize response, p50 of COLD_RUNS
 * (after one warm-up spawn); a figure only, no baseline or target.
 *
 * Run: node --import tsx bench/acpStreaming.ts   (from daemon/, after npm run build)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ScriptInput } from '@arbor/protocol';
import {
  client,
  methods,
  ndJsonStream,
  type ClientConnection,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { splitText } from '../src/providers/scripted.js';
import { ARBOR, longText, ownCpuMicros, percentile, processCpuMicros, sleep } from './support.js';

const DELTAS = 100_000;
const RUNS = 3;
const WARMUP_DELTAS = 2_000;
const COLD_RUNS = 5;
/** Wait after the prompt answers before reading CPU, so trailing work (store commit, GC) counts. */
const SETTLE_MS = 300;
const TARGET_RATIO = 1;
const BASELINE_AGENT = fileURLToPath(new URL('./acpBaselineAgent.ts', import.meta.url));
const DAEMON_DIR = fileURLToPath(new URL('..', import.meta.url));
const LONG_KEY = 'stream the long answer';
const WARMUP_KEY = 'warm up';

/** An SDK client on a spawned ACP agent's stdio, tallying agent text per session. */
interface Editor {
  child: ChildProcess;
  connection: ClientConnection;
  workspace: string;
  /** Per session: agent_message_chunk updates and text characters received. */
  received: Map<string, { chunks: number; chars: number }>;
  close(): Promise<void>;
}

function startEditor(command: string, args: string[], workspace: string): Editor {
  const child = spawn(command, args, { cwd: DAEMON_DIR, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const received = new Map<string, { chunks: number; chars: number }>();
  const tally = (params: SessionNotification): void => {
    const { update } = params;
    if (update.sessionUpdate !== 'agent_message_chunk' || update.content.type !== 'text') return;
    let entry = received.get(params.sessionId);
    if (!entry) received.set(params.sessionId, (entry = { chunks: 0, chars: 0 }));
    entry.chunks++;
    entry.chars += update.content.text.length;
  };
  const connection = client({ name: 'arbor-bench' })
    .onNotification(methods.client.session.update, ({ params }) => tally(params))
    .connect(
      ndJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      ),
    );
  return {
    child,
    connection,
    workspace,
    received,
    close: async () => {
      child.stdin!.end();
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      connection.close();
    },
  };
}

async function initialize(editor: Editor): Promise<void> {
  await editor.connection.agent.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {},
  });
}

async function newSession(editor: Editor): Promise<string> {
  const { sessionId } = await editor.connection.agent.request(methods.agent.session.new, {
    cwd: editor.workspace,
    mcpServers: [],
  });
  return sessionId;
}

interface Sample {
  /** Agent (child) CPU, µs. */
  agentUs: number;
  /** Client (this process) CPU, µs. */
  clientUs: number;
  wallMs: number;
  /** agent_message_chunk updates received. */
  chunks: number;
}

/** One prompt in a fresh session whose answer is `count` deltas of longText(count); CPU over it. */
async function measure(editor: Editor, prompt: string, count: number): Promise<Sample | undefined> {
  const sessionId = await newSession(editor);
  const pid = editor.child.pid;
  const agent0 = processCpuMicros(pid);
  const client0 = ownCpuMicros();
  const wall0 = performance.now();
  const { stopReason } = await editor.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: prompt }],
  });
  const wallMs = performance.now() - wall0;
  await sleep(SETTLE_MS);
  const agent1 = processCpuMicros(pid);
  const clientUs = ownCpuMicros() - client0;
  if (stopReason !== 'end_turn') throw new Error(`the prompt ended with ${stopReason}`);
  const got = editor.received.get(sessionId) ?? { chunks: 0, chars: 0 };
  editor.received.delete(sessionId);
  const expected = longText(count).length;
  if (got.chars !== expected)
    throw new Error(`${got.chars} of ${expected} characters arrived before the prompt answered`);
  if (agent0 === undefined || agent1 === undefined) return undefined;
  return { agentUs: agent1 - agent0, clientUs, wallMs, chunks: got.chunks };
}

/** Spawn `arbor acp` → its initialize response, in ms. */
async function coldStart(args: string[], workspace: string): Promise<number> {
  const start = performance.now();
  const editor = startEditor(process.execPath, [ARBOR, 'acp', ...args], workspace);
  try {
    await initialize(editor);
    return performance.now() - start;
  } finally {
    await editor.close();
  }
}

export interface AcpStreamingResult {
  baselineUs: number;
  arborUs: number;
  coldStartMs: number;
}

export async function acpStreamingBenchmark(
  deltas = DELTAS,
  runs = RUNS,
): Promise<AcpStreamingResult> {
  const answer = longText(deltas);
  let pieces = 0;
  for (const piece of splitText(answer)) if (piece !== '') pieces++;
  if (pieces !== deltas) throw new Error(`the scripted reply splits into ${pieces} deltas`);
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-acp-'));
  const script: ScriptInput = {
    version: 1,
    conversations: {
      [LONG_KEY]: [{ text: answer }],
      [WARMUP_KEY]: [{ text: longText(WARMUP_DELTAS) }],
    },
  };
  const scriptFile = join(dir, 'script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  const acpArgs = (dataDir: string): string[] => [
    '--provider',
    'scripted',
    '--script',
    scriptFile,
    '--data-dir',
    join(dir, dataDir),
    '--log-level',
    'error',
  ];

  const samples = { baseline: [] as Sample[], arbor: [] as Sample[] };
  const cold: number[] = [];
  let skipped = false;
  try {
    // Cold start first, on its own data dir (created by the warm-up spawn, as a returning editor finds it).
    await coldStart(acpArgs('cold'), dir);
    for (let i = 0; i < COLD_RUNS; i++) cold.push(await coldStart(acpArgs('cold'), dir));

    const arbor = startEditor(process.execPath, [ARBOR, 'acp', ...acpArgs('data')], dir);
    const baseline = startEditor(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), BASELINE_AGENT],
      dir,
    );
    try {
      await initialize(arbor);
      await initialize(baseline);
      // Warm both paths (JIT, the first turn's lazy loads, store tables) before measuring.
      await measure(arbor, WARMUP_KEY, WARMUP_DELTAS);
      await measure(baseline, String(WARMUP_DELTAS), WARMUP_DELTAS);
      for (let run = 0; run < runs; run++) {
        const b = await measure(baseline, String(deltas), deltas);
        const a = await measure(arbor, LONG_KEY, deltas);
        if (!a || !b) {
          skipped = true;
          break;
        }
        samples.baseline.push(b);
        samples.arbor.push(a);
      }
    } finally {
      await Promise.all([arbor.close(), baseline.close()]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const coldStartMs = percentile(cold, 0.5);
  const coldLine =
    `  cold start, spawn arbor acp -> initialize response: p50 ${coldStartMs.toFixed(1)} ms ` +
    `(runs: ${cold.map((ms) => ms.toFixed(0)).join(', ')} ms; a figure, no baseline or target)`;
  if (skipped) {
    console.log('ACP bridge streaming: skipped (child CPU time needs /proc, i.e. Linux)');
    console.log(coldLine);
    return { baselineUs: NaN, arborUs: NaN, coldStartMs };
  }

  const perDelta = (s: Sample): number => (s.agentUs + s.clientUs) / deltas;
  const mid = (list: Sample[]): Sample =>
    [...list].sort((x, y) => perDelta(x) - perDelta(y))[Math.floor(list.length / 2)]!;
  const b = mid(samples.baseline);
  const a = mid(samples.arbor);
  const baselineUs = perDelta(b);
  const arborUs = perDelta(a);
  const ratio = arborUs / baselineUs;
  const line = (label: string, x: Sample): string =>
    `  ${label.padEnd(46)} ${perDelta(x).toFixed(2).padStart(6)} µs/delta  ` +
    `(agent ${(x.agentUs / deltas).toFixed(2)} + client ${(x.clientUs / deltas).toFixed(2)}; ` +
    `${x.chunks.toLocaleString('en-US')} agent_message_chunk; wall ${x.wallMs.toFixed(0)} ms)`;
  const counts = (list: Sample[]): string => list.map((x) => x.chunks).join(', ');

  console.log(
    `ACP bridge: streaming ${deltas.toLocaleString('en-US')} provider text deltas to an ACP SDK client ` +
      `over stdio (CPU per delta, agent + client, median of ${runs}):`,
  );
  console.log(line('ACP SDK agent, 1 agent_message_chunk/delta', b));
  console.log(line('arbor acp (in-process daemon, scripted)', a));
  console.log(
    `    agent_message_chunk updates per run: Arbor ${counts(samples.arbor)}; ` +
      `baseline ${counts(samples.baseline)}`,
  );
  console.log(
    `  Arbor / ACP SDK: ${ratio.toFixed(3)} (target <= ${TARGET_RATIO.toFixed(2)}) ` +
      `${ratio <= TARGET_RATIO ? 'OK' : 'OVER TARGET'}`,
  );
  console.log(coldLine);
  return { baselineUs, arborUs, coldStartMs };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await acpStreamingBenchmark();
}
