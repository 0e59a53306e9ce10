/**
 * Every check the suite can report: one id per normative spec sentence, the
 * anchor of that sentence, and a tier. MUST and CAPABILITY failures fail a
 * run; SHOULD failures fail it only with --strict; INFO never does.
 * CAPABILITY checks are evaluated only when the capability they need was
 * negotiated; otherwise they are SKIPPED, never PASSED.
 */

export type Tier = 'MUST' | 'CAPABILITY' | 'SHOULD' | 'INFO';
export type Role = 'daemon' | 'client';

export interface CheckDef {
  readonly id: string;
  readonly tier: Tier;
  /** Which implementation the check judges. */
  readonly role: Role;
  /** `file.md#anchor` in protocol-spec/spec. */
  readonly spec: string;
  /** The requirement, in a few words. */
  readonly title: string;
  /** For CAPABILITY checks: the capability that must be negotiated. */
  readonly capability?: string;
  /**
   * Further anchors this check judges besides `spec`, when one observation
   * decides several sentences (the coverage matrix counts them all).
   */
  readonly cites?: readonly string[];
}

function check(def: CheckDef): CheckDef {
  return Object.freeze(def);
}

export const d = (
  id: string,
  tier: Tier,
  spec: string,
  title: string,
  capability?: string,
): CheckDef =>
  check({ id, tier, role: 'daemon', spec, title, ...(capability ? { capability } : {}) });
export const c = (
  id: string,
  tier: Tier,
  spec: string,
  title: string,
  capability?: string,
): CheckDef =>
  check({ id, tier, role: 'client', spec, title, ...(capability ? { capability } : {}) });

/** The same check, judging `anchors` too (see CheckDef.cites). */
export const citing = (def: CheckDef, ...anchors: string[]): CheckDef =>
  check({ ...def, cites: [...(def.cites ?? []), ...anchors] });
