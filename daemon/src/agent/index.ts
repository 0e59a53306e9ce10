/**
 * Entry point of the agent for the daemon: builds the TurnRunner a session
 * uses. (Replaced by the unified loop; see turnRunner.ts for the contract.)
 */
import type { BudgetLimits } from './budgetLimits.js';
import type { TurnRunner } from './turnRunner.js';

export interface AgentOptions {
  budgets: BudgetLimits;
  /** Default model string for sessions that name none. */
  defaultModel: string | undefined;
  /** Path of a scripted-provider script (`--provider scripted --script <file>`). */
  scriptPath: string | undefined;
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

export function createTurnRunner(_options: AgentOptions): TurnRunner {
  throw new Error('the agent loop is not built yet');
}
