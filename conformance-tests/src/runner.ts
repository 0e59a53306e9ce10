/** Runs scenarios in parallel, each with its own recorder and transcript. */
import { Recorder, type Observation } from './checks/results.js';
import { Transcript } from './harness/transcript.js';
import { Abort, Skip, type Scenario, type ScenarioBase } from './scenarios/scenario.js';

export interface ScenarioRun {
  id: string;
  recorder: Recorder;
  transcript: Transcript;
  durationMs: number;
}

export interface RunOutput {
  runs: ScenarioRun[];
  observations: Observation[];
  harnessErrors: string[];
}

export async function runScenarios<Ctx extends ScenarioBase>(
  scenarios: readonly Scenario<Ctx>[],
  makeContext: (
    base: ScenarioBase,
    scenario: Scenario<Ctx>,
  ) => Promise<{ ctx: Ctx; dispose: () => Promise<void> }>,
  concurrency: number,
): Promise<RunOutput> {
  const runs: ScenarioRun[] = [];
  const queue = [...scenarios];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift())
      runs.push(await runOne(next, makeContext));
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, scenarios.length)) }, worker),
  );
  const order = new Map(scenarios.map((s, i) => [s.id, i]));
  runs.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return {
    runs,
    observations: runs.flatMap((r) => r.recorder.observations),
    harnessErrors: runs.flatMap((r) => r.recorder.harnessErrors.map((e) => `[${r.id}] ${e}`)),
  };
}

async function runOne<Ctx extends ScenarioBase>(
  scenario: Scenario<Ctx>,
  makeContext: (
    base: ScenarioBase,
    scenario: Scenario<Ctx>,
  ) => Promise<{ ctx: Ctx; dispose: () => Promise<void> }>,
): Promise<ScenarioRun> {
  const recorder = new Recorder(scenario.id);
  const transcript = new Transcript();
  const started = Date.now();
  let reason = 'not reached';
  let made: { ctx: Ctx; dispose: () => Promise<void> } | undefined;
  try {
    made = await makeContext({ recorder, transcript }, scenario);
    await scenario.run(made.ctx);
  } catch (error) {
    if (error instanceof Skip) reason = error.message;
    else if (error instanceof Abort) reason = `not reached: ${error.message}`;
    else
      recorder.harnessError(
        `scenario ${scenario.id} threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
  } finally {
    try {
      await made?.dispose();
    } catch (error) {
      recorder.harnessError(`cleanup of ${scenario.id} failed: ${String(error)}`);
    }
  }
  for (const check of scenario.checks) if (!recorder.recorded(check)) recorder.skip(check, reason);
  transcript.note('harness', `scenario ${scenario.id} finished`);
  return { id: scenario.id, recorder, transcript, durationMs: Date.now() - started };
}
