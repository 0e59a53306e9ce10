/**
 * A normative sentence no check can judge from outside the implementation,
 * and why. `binds` names who the sentence obliges: an implementation role,
 * both, or whoever deploys the daemon (file modes, process supervision…).
 */
export interface Unobservable {
  readonly anchor: string;
  readonly binds: 'daemon' | 'client' | 'both' | 'deployment';
  readonly why: string;
}
