/**
 * Overhead per MCP tool call through Arbor against calling the same server
 * directly with the SDK, in the same run on this machine: server-everything's
 * `echo` over stdio, one call at a time.
 *
 * - SDK (baseline): a `Client` on a `StdioClientTransport` that listed the
 *   tools once, then `callTool` and nothing else.
 * - Arbor: the same server behind a `ManagedMcpServer` (the daemon's own
 *   connection to it), each call made as the agent loop makes it: the tool
 *   node added to an `ExecutionTree`, the arguments checked by the tool's
 *   input schema, the node started, `execute` with a ToolContext whose
 *   progress goes to the tree (callMcpTool: the per-call abort signal, the
 *   timeout renewed by progress, the result converted and redacted), the node
 *   finished with the result. Not measured: the model, the permission gate
 *   (`echo` is a read tool, allowed without asking), the store.
 *
 * Both servers run the whole time and the two sides alternate call by call
 * (which goes first swapping each time), so load on a shared machine hits
 * both alike. Each call's wall time is a sample; this process's CPU time per
 * call (where Arbor's wrapping runs; the servers' work is the same) is shown
 * beside it. Target: Arbor's p50 per call within 1.2x of the SDK's.
 *
 * Run: node --import tsx bench/mcpCallOverhead.ts   (from daemon/)
 */
import { realpathSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ExecutionTree } from '../src/agent/executionTree.js';
import { scrubEnv } from '../src/security/secretEnv.js';
import { ManagedMcpServer } from '../src/tools/mcp/managedMcpServer.js';
import { TurnMemory } from '../src/tools/memory.js';
import type { Tool, ToolContext, ToolOutput } from '../src/tools/tool.js';
import { percentile } from './support.js';

const CALLS = 1000;
const WARMUP = 100;
const TARGET_RATIO = 1.2;
const ARGS = { message: 'hello from the benchmark' };
const EXPECTED = `Echo: ${ARGS.message}`;

/** server-everything's bin, wherever npm put it (the daemon's node_modules or the root's). */
function everythingBin(): string {
  for (const dir of ['../node_modules/.bin', '../../node_modules/.bin']) {
    try {
      return realpathSync(fileURLToPath(new URL(`${dir}/mcp-server-everything`, import.meta.url)));
    } catch {
      // Not in this one.
    }
  }
  throw new Error('@modelcontextprotocol/server-everything is not installed (npm install)');
}

type Call = () => Promise<void>;

async function sdkSide(
  command: string,
  args: string[],
): Promise<{ call: Call; close(): Promise<void> }> {
  const client = new Client({ name: 'arbor-bench', version: '0.0.0' });
  // Spawned as Arbor spawns it (environment, stderr piped), so only the client side differs.
  const transport = new StdioClientTransport({
    command,
    args,
    env: scrubEnv(process.env),
    cwd: process.cwd(),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  await client.connect(transport);
  // As any client does first (and Arbor did): the SDK keeps what it learns of the tools.
  await client.listTools();
  return {
    call: async () => {
      const result = await client.callTool({ name: 'echo', arguments: ARGS });
      const content = result.content as { type: string; text?: string }[];
      if (content[0]?.text !== EXPECTED) throw new Error(`SDK echo: ${JSON.stringify(result)}`);
    },
    close: () => client.close(),
  };
}

async function arborSide(
  command: string,
  args: string[],
): Promise<{ call: Call; close(): Promise<void> }> {
  const server = new ManagedMcpServer(
    { name: 'everything', config: { command, args }, source: 'config' },
    {
      workspaceRoot: process.cwd(),
      initializeTimeoutMs: 30_000,
      callTimeoutMs: 120_000,
      emitProgress: true,
      clientVersion: '0.0.0-bench',
      log: (level, message) => {
        if (level === 'warn' || level === 'error') console.error(`  ${message}`);
      },
    },
  );
  await server.ensureStarted();
  const tool: Tool | undefined = server
    .readyTools()
    .find((candidate) => candidate.name === 'mcp__everything__echo');
  if (tool === undefined) throw new Error(`no echo tool: ${JSON.stringify(server.status())}`);
  const turn = new AbortController();
  const memory = new TurnMemory();
  // Every upsert is published, as the loop's tree/update does; this sink only counts them.
  let upserts = 0;
  const tree = new ExecutionTree('bench-turn', (nodes) => (upserts += nodes.length));
  let n = 0;
  return {
    call: async () => {
      const toolCallId = `call_${n++}`;
      const nodeId = tree.add({
        parentId: tree.rootId,
        kind: 'tool',
        name: tool.name,
        depth: 0,
        args: ARGS,
      });
      const parsed = tool.input.safeParse(ARGS);
      if (!parsed.success) throw new Error(`echo arguments refused: ${parsed.error.message}`);
      tree.start(nodeId);
      const ctx: ToolContext = {
        signal: turn.signal,
        memory,
        workspaceRoot: process.cwd(),
        turnId: 'bench-turn',
        nodeId,
        toolCallId,
        depth: 0,
        emit: () => undefined,
        progress: (progress) => tree.setProgress(nodeId, progress),
      };
      const output: ToolOutput = await tool.execute(parsed.data, ctx);
      const content = typeof output === 'string' ? output : output.content;
      if (content !== EXPECTED) throw new Error(`Arbor echo: ${JSON.stringify(output)}`);
      tree.finish(nodeId, { status: 'done', result: content, isError: false });
    },
    close: async () => {
      turn.abort();
      await server.stop();
      if (upserts === 0) throw new Error('the tree published nothing');
    },
  };
}

interface Samples {
  ms: number[];
  cpuMicros: number;
}

async function sample(call: Call, into: Samples): Promise<void> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await call();
  into.ms.push(performance.now() - started);
  const { user, system } = process.cpuUsage(cpu);
  into.cpuMicros += user + system;
}

export interface McpCallOverheadResult {
  sdkP50Ms: number;
  arborP50Ms: number;
  ratio: number;
}

export async function mcpCallOverheadBenchmark(calls = CALLS): Promise<McpCallOverheadResult> {
  const command = process.execPath;
  const args = [everythingBin(), 'stdio'];
  const sdk = await sdkSide(command, args);
  const arbor = await arborSide(command, args);
  const sdkSamples: Samples = { ms: [], cpuMicros: 0 };
  const arborSamples: Samples = { ms: [], cpuMicros: 0 };
  try {
    for (let i = 0; i < WARMUP; i++) {
      await sdk.call();
      await arbor.call();
    }
    for (let i = 0; i < calls; i++) {
      if (i % 2 === 0) {
        await sample(sdk.call, sdkSamples);
        await sample(arbor.call, arborSamples);
      } else {
        await sample(arbor.call, arborSamples);
        await sample(sdk.call, sdkSamples);
      }
    }
  } finally {
    await sdk.close();
    await arbor.close();
  }
  const sdkP50 = percentile(sdkSamples.ms, 0.5);
  const arborP50 = percentile(arborSamples.ms, 0.5);
  const ratio = arborP50 / sdkP50;
  const line = (label: string, { ms, cpuMicros }: Samples): string =>
    `  ${label.padEnd(40)} p50 ${percentile(ms, 0.5).toFixed(3)} ms  p95 ${percentile(ms, 0.95).toFixed(3)} ms  ` +
    `this process's CPU ${(cpuMicros / ms.length).toFixed(0)} µs/call  (n=${ms.length})`;
  console.log('MCP tool call overhead: server-everything echo over stdio, one call at a time');
  console.log(line('SDK Client.callTool (baseline)', sdkSamples));
  console.log(line('Arbor (ManagedMcpServer, as the loop)', arborSamples));
  console.log(
    `  overhead at p50 ${((arborP50 - sdkP50) * 1000).toFixed(0)} µs/call; ` +
      `ratio ${ratio.toFixed(3)} (target <= ${TARGET_RATIO}) ${ratio <= TARGET_RATIO ? 'OK' : 'OVER TARGET'}`,
  );
  return { sdkP50Ms: sdkP50, arborP50Ms: arborP50, ratio };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await mcpCallOverheadBenchmark();
