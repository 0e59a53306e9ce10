/**
 * `npm run bench -w daemon`: every daemon benchmark (reports, not tests).
 * Each area owns its file; this runner only calls them in turn.
 */
import { acpStreamingBenchmark } from './acpStreaming.js';
import { checkpointsBenchmark } from './checkpoints.js';
import { coldStartBenchmark } from './coldStart.js';
import { contextEngineBenchmark } from './contextEngine.js';
import { manySessionsBenchmark } from './manySessions.js';
import { mcpCallOverheadBenchmark } from './mcpCallOverhead.js';
import { benchParallelSubtasks } from './parallelSubtasks.js';
import { searchCodeBenchmark } from './searchCode.js';
import { storeBenchmark } from './store.js';
import { streamingBenchmark } from './streaming.js';
import { turnLatencyBenchmark } from './turnLatency.js';
import { watcherBenchmark } from './watcher.js';

await coldStartBenchmark();

const subtasks = await benchParallelSubtasks();
console.log(
  `parallel subtasks: wall ${subtasks.wallMs.toFixed(1)} ms, critical path ${subtasks.criticalPathMs} ms, ` +
    `ratio ${subtasks.ratio.toFixed(3)} (target <= 1.15) ${subtasks.ratio <= 1.15 ? 'OK' : 'OVER TARGET'}`,
);

await streamingBenchmark();

await turnLatencyBenchmark();

await manySessionsBenchmark();

storeBenchmark();

await contextEngineBenchmark();

watcherBenchmark();

await searchCodeBenchmark();

await mcpCallOverheadBenchmark();

await acpStreamingBenchmark();

await checkpointsBenchmark();
