/**
 * TurnWaits: a turn is `requires_action` while anything of it waits on the
 * user — approvals and questions alike — and `running` again once nothing
 * does (approvals.md#approvals-requires-action, questions.md#questions-requires-action).
 */
export interface TurnWaitsHost {
  /** `session/state` of the turn: waiting on the user, or running again. */
  stateChanged(turnId: string, state: 'requires_action' | 'running'): void;
}

export class TurnWaits {
  /** Pending asks per turn. */
  private readonly waiting = new Map<string, number>();

  constructor(private readonly host: TurnWaitsHost) {}

  /** An ask of the turn became pending: the first one reports requires_action. */
  began(turnId: string): void {
    const count = this.waiting.get(turnId) ?? 0;
    this.waiting.set(turnId, count + 1);
    if (count === 0) this.host.stateChanged(turnId, 'requires_action');
  }

  /**
   * An ask of the turn ended. When it was the last, the turn runs again —
   * unless it ended because the turn is ending (a cancelled turn reports idle instead).
   */
  ended(turnId: string, turnGoesOn: boolean): void {
    const count = this.waiting.get(turnId);
    if (count === undefined) return;
    if (count > 1) {
      this.waiting.set(turnId, count - 1);
      return;
    }
    this.waiting.delete(turnId);
    if (turnGoesOn) this.host.stateChanged(turnId, 'running');
  }
}
