/** What a scenario is, and the signals it uses to stop early. */
import type { Recorder } from '../checks/results.js';
import type { Role } from '../checks/registry.js';
import type { Transcript } from '../harness/transcript.js';

export interface ScenarioBase {
  recorder: Recorder;
  transcript: Transcript;
}

export interface Scenario<Ctx extends ScenarioBase> {
  id: string;
  /** The role under test: daemon scenarios play the client and vice versa. */
  role: Role;
  title: string;
  /** Every check this scenario may record; the ones it does not reach are SKIPPED. */
  checks: readonly string[];
  run(ctx: Ctx): Promise<void>;
}

/** The scenario cannot go on because of the implementation (already recorded as a FAIL). */
export class Abort extends Error {}

/** The scenario does not apply to this implementation (e.g. a capability is absent). */
export class Skip extends Error {}
