/**
 * Entry point of the agent for the daemon: builds the TurnRunner a session
 * uses — the unified loop (see loop.ts; turnRunner.ts for the contract).
 */
import type { HookRunner } from '../hooks/hookRunner.js';
import type { Provider } from '../providers/provider.js';
import type { ProviderFactory } from '../providers/index.js';
import type { ProvidersConfig } from '../providers/providerConfig.js';
import { createProviderFactories } from '../providers/providerSettings.js';
import { loadScriptFile } from '../providers/scripted.js';
import type { Tool } from '../tools/tool.js';
import type { BudgetLimits } from './budgetLimits.js';
import type { SessionContextStore } from './context/sessionContext.js';
import { DEFAULT_CONTEXT_SETTINGS, type ContextSettings } from './context/contextSettings.js';
import { ALLOW_ALL_TOOLS, type ToolGate } from './toolGate.js';
import type { TurnRunner } from './turnRunner.js';
import { UnifiedTurnRunner } from './unifiedTurnRunner.js';
import type { Pricing } from './usageAccountant.js';

export interface AgentOptions {
  budgets: BudgetLimits;
  /** Default model string for sessions that name none. */
  defaultModel: string | undefined;
  /** Model of subtask loops (depth > 0); absent: a subtask runs on its parent's model. */
  subtaskModel?: string;
  /** Path of a scripted-provider script (`--provider scripted --script <file>`). */
  scriptPath: string | undefined;
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /** Tools added to every turn's toolbelt (workspace tools, client tools, MCP; tests). */
  tools?: readonly Tool[];
  /** Wraps every tool call at every depth; default: allow everything. */
  gate?: ToolGate;
  /** One provider for every turn, ignoring model strings and scripts (tests, benchmarks). */
  provider?: Provider;
  /** Real providers by provider id (`openai`, `anthropic`, `local`); default: the SDK-backed ones. */
  providerFactories?: Partial<Record<string, ProviderFactory>>;
  /** Keys, base URLs and per-model overrides of the default factories (config `providers`). */
  providers?: ProvidersConfig;
  /** Prices per call; default: unknown (cost null). */
  pricing?: Pricing;
  /** Text coalescing frame for chat/chunk, ms (default CHUNK_COALESCE_MS). */
  chunkCoalesceMs?: number;
  /** The context engine's settings (config `context`); default: DEFAULT_CONTEXT_SETTINGS. */
  context?: ContextSettings;
  /**
   * Each session's stored context (the store's): artifacts and earlier turns as the model
   * saw them. Absent: artifacts live in memory for one turn, history is the request's text.
   */
  sessionContext?: (sessionId: string) => SessionContextStore;
  /** The user's lifecycle hooks (config `hooks`); absent: none. */
  hooks?: HookRunner;
}

/** Throws a ScriptError (with a clear message) when `scriptPath` is unreadable or invalid. */
export function createTurnRunner(options: AgentOptions): TurnRunner {
  return new UnifiedTurnRunner({
    budgets: options.budgets,
    defaultModel: options.defaultModel,
    subtaskModel: options.subtaskModel,
    script: options.scriptPath === undefined ? undefined : loadScriptFile(options.scriptPath),
    log: options.log,
    tools: options.tools ?? [],
    gate: options.gate ?? ALLOW_ALL_TOOLS,
    provider: options.provider,
    providerFactories:
      options.providerFactories ??
      createProviderFactories({ settings: options.providers, log: options.log }),
    pricing: options.pricing,
    chunkCoalesceMs: options.chunkCoalesceMs,
    context: options.context ?? DEFAULT_CONTEXT_SETTINGS,
    sessionContext: options.sessionContext,
    hooks: options.hooks,
  });
}

export { DEFAULT_BUDGET_LIMITS, BudgetLimits, BudgetOverrides } from './budgetLimits.js';
export { CHUNK_COALESCE_MS } from './turnEvents.js';
export type { ToolGate, GateDecision, GateRequest } from './toolGate.js';
export type {
  TurnRunner,
  TurnRequest,
  TurnResult,
  SessionEventSink,
  HistoryMessage,
} from './turnRunner.js';
