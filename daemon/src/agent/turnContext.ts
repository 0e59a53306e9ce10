/** What every loop of one turn shares, by identity. */
import type { Provider } from '../providers/provider.js';
import type { TurnMemory } from '../tools/memory.js';
import type { ExecutionTree } from './executionTree.js';
import type { ToolGate } from './toolGate.js';
import type { TurnBudget } from './turnBudget.js';
import type { TurnEvents } from './turnEvents.js';
import type { TurnRequest } from './turnRunner.js';
import type { UsageAccountant } from './usageAccountant.js';

export type Log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

export interface TurnContext {
  request: TurnRequest;
  provider: Provider;
  model: string;
  budget: TurnBudget;
  tree: ExecutionTree;
  accountant: UsageAccountant;
  memory: TurnMemory;
  events: TurnEvents;
  gate: ToolGate;
  /** Aborts on cancel and on any budget stop; reaches every await of the turn. */
  signal: AbortSignal;
  log: Log;
}
