/** What every loop of one turn shares, by identity. */
import type { TurnHooks } from '../hooks/hookRunner.js';
import type { ResolvedProvider } from '../providers/index.js';
import type { TurnMemory } from '../tools/memory.js';
import type { ContextEngine } from './context/contextEngine.js';
import type { ExecutionTree } from './executionTree.js';
import type { InjectedToolArgs } from './injectedArgs.js';
import type { TurnInstructions } from './instructions/turnInstructions.js';
import type { ToolGate } from './toolGate.js';
import type { TurnBudget } from './turnBudget.js';
import type { TurnEvents } from './turnEvents.js';
import type { TurnRequest } from './turnRunner.js';
import type { UsageAccountant } from './usageAccountant.js';

export type Log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

export interface TurnContext {
  request: TurnRequest;
  /**
   * What subtask loops (any depth > 0) run on (config `subtaskModel`);
   * undefined: a subtask runs on its parent loop's provider and model.
   */
  subtaskLlm: ResolvedProvider | undefined;
  budget: TurnBudget;
  tree: ExecutionTree;
  accountant: UsageAccountant;
  memory: TurnMemory;
  /** Builds every loop's request under the model's window; keeps the session's artifacts. */
  context: ContextEngine;
  events: TurnEvents;
  gate: ToolGate;
  /** The workspace's instructions files (AGENTS.md): in every system prompt, nested ones with writes. */
  instructions?: TurnInstructions;
  /** The agent profile's injected tool arguments; undefined when it has none. */
  injectedArgs?: InjectedToolArgs;
  /** The user's lifecycle hooks, bound to this turn. */
  hooks: TurnHooks;
  /** Aborts on cancel and on any budget stop; reaches every await of the turn. */
  signal: AbortSignal;
  log: Log;
}
