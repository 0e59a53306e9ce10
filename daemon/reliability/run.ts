/**
 * `npm run reliability`: bounded hostile scenarios against the built daemon,
 * each a spawned `arbor daemon --listen` driven over raw frames. Every
 * scenario prints its figures and a verdict — OK, OVER TARGET (a memory or
 * latency target missed), FAILED (an invariant broken: a crash, a hang, a seq
 * gap, an escape, a lost turn) or SKIPPED — and a summary table ends the run.
 * The exit code is 1 when a scenario FAILED (with --strict also when one is
 * OVER TARGET), else 0.
 *
 *   node --import tsx reliability/run.ts [--quick] [--only fuzz,race] [--fuzz-frames N] [--seed N] [--strict]
 *
 * Environment: RELIABILITY_SCALE=quick|full (as --quick), RELIABILITY_FUZZ_FRAMES,
 * RELIABILITY_SEED. See reliability/README.md.
 */
import { parseArgs } from 'node:util';
import { diskFullScenario } from './diskFull.js';
import { fuzzScenario } from './fuzz.js';
import { preAuthScenario } from './preAuth.js';
import { raceScenario } from './race.js';
import { slowConsumerScenario } from './slowConsumer.js';
import { stallScenario } from './stall.js';
import { assertBuilt, type Scale, type ScenarioResult } from './support.js';

const SCENARIOS: Record<string, (scale: Scale) => Promise<ScenarioResult>> = {
  fuzz: fuzzScenario,
  race: raceScenario,
  'slow-consumer': slowConsumerScenario,
  'pre-auth': preAuthScenario,
  'disk-full': diskFullScenario,
  stall: stallScenario,
};

const SCALES: Record<'full' | 'quick', Omit<Scale, 'seed'>> = {
  full: { name: 'full', fuzzFrames: 5000, raceCalls: 1000, slowTurns: 50, stallTurns: 5 },
  quick: { name: 'quick', fuzzFrames: 2000, raceCalls: 1000, slowTurns: 24, stallTurns: 2 },
};

function positiveInt(value: string | undefined, what: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error(`${what}: not a non-negative integer: ${value}`);
  return n;
}

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    'fuzz-frames': { type: 'string' },
    seed: { type: 'string' },
    strict: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(
    'usage: reliability/run.ts [--quick] [--only <names>] [--fuzz-frames N] [--seed N] [--strict]\n' +
      `scenarios: ${Object.keys(SCENARIOS).join(', ')}`,
  );
  process.exit(0);
}
const envScale = process.env['RELIABILITY_SCALE'];
if (envScale !== undefined && envScale !== '' && envScale !== 'quick' && envScale !== 'full')
  throw new Error(`RELIABILITY_SCALE must be quick or full, not ${envScale}`);
const base = SCALES[values.quick || envScale === 'quick' ? 'quick' : 'full'];
const scale: Scale = {
  ...base,
  fuzzFrames:
    positiveInt(values['fuzz-frames'], '--fuzz-frames') ??
    positiveInt(process.env['RELIABILITY_FUZZ_FRAMES'], 'RELIABILITY_FUZZ_FRAMES') ??
    base.fuzzFrames,
  seed:
    positiveInt(values.seed, '--seed') ??
    positiveInt(process.env['RELIABILITY_SEED'], 'RELIABILITY_SEED') ??
    Date.now() % 1_000_000,
};
const only = values.only?.split(',').map((s) => s.trim());
for (const name of only ?? []) {
  if (!(name in SCENARIOS))
    throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
}

assertBuilt();
console.log(
  `reliability (${scale.name}): seed ${scale.seed}, ${scale.fuzzFrames} fuzz frames, ` +
    `${scale.raceCalls} race calls, ${scale.slowTurns} slow-consumer turns, ${scale.stallTurns} stall turns`,
);

interface Row {
  name: string;
  result: ScenarioResult;
  seconds: number;
}
const rows: Row[] = [];
const runStarted = performance.now();
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  if (only && !only.includes(name)) continue;
  console.log(`\n${name}:`);
  const started = performance.now();
  let result: ScenarioResult;
  try {
    result = await scenario(scale);
  } catch (error) {
    const reason = error instanceof Error ? (error.stack ?? error.message) : String(error);
    result = { verdict: 'FAILED', summary: 'the scenario did not finish', reasons: [reason] };
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`  => ${result.verdict} (${seconds.toFixed(1)} s)`);
  for (const reason of result.reasons) console.log(`     ${reason.split('\n').join('\n     ')}`);
  rows.push({ name, result, seconds });
}

const total = (performance.now() - runStarted) / 1000;
const nameWidth = Math.max(8, ...rows.map((r) => r.name.length));
const verdictWidth = 11;
console.log(`\nsummary (${scale.name}, seed ${scale.seed}):`);
console.log(
  `  ${'scenario'.padEnd(nameWidth)}  ${'verdict'.padEnd(verdictWidth)}  ${'time'.padStart(7)}  figures`,
);
for (const { name, result, seconds } of rows) {
  console.log(
    `  ${name.padEnd(nameWidth)}  ${result.verdict.padEnd(verdictWidth)}  ${`${seconds.toFixed(1)} s`.padStart(7)}  ${result.summary}`,
  );
}
console.log(
  `  ${'total'.padEnd(nameWidth)}  ${''.padEnd(verdictWidth)}  ${`${total.toFixed(1)} s`.padStart(7)}`,
);

const failed = rows.filter((r) => r.result.verdict === 'FAILED').length;
const over = rows.filter((r) => r.result.verdict === 'OVER TARGET').length;
if (failed > 0 || (values.strict && over > 0)) {
  console.log(`\n${failed} FAILED, ${over} OVER TARGET`);
  process.exitCode = 1;
}
