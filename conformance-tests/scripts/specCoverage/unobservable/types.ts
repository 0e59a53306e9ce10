/**
 * A normative sentence no check can judge from outside the implementation,
 * and why. `binds` names who the sentence obliges: an implementation role,
 * both, whoever deploys the daemon (file modes, process supervision…), or
 * the specification's own authors (how it records and names its changes).
 */
export interface Unobservable {
  readonly anchor: string;
  readonly binds: 'daemon' | 'client' | 'both' | 'deployment' | 'specification';
  readonly why: string;
}
