/**
 * What every client connection shares: the sessions, the logger, the limits
 * and the capabilities this daemon advertises.
 */
import type { BudgetLimitsByKind, DaemonCapabilities } from '@arbor/protocol';
import type { AgentProfiles } from '../agents/agentProfiles.js';
import type { Logger } from '../logging/logger.js';
import type { SessionManager } from '../session/sessionManager.js';
import type { ToolCatalogueSource } from '../tools/catalogue.js';
import type { ConnectionLimits } from './connectionLimits.js';

export interface DaemonContext {
  sessions: SessionManager;
  log: Logger;
  maxMessageBytes: number;
  /** Events the store keeps per session for replay (capabilities.attach.replayRetention). */
  replayRetention: number;
  /** `_arbor/testing/*` methods are served (`--provider scripted` or `--testing`). */
  testing: boolean;
  daemonVersion: string;
  /** Allocates the name a connection has in logs and in `initialize`'s result. */
  nextClientId(): string;
  /** The budget limits turns run under (capabilities.budgets.limits), when known. */
  budgetLimits?: BudgetLimitsByKind;
  /** How long an approval waits (capabilities.approvals.timeoutMs), when known. */
  approvalTimeoutMs?: number;
  /** Overrides of DEFAULT_CONNECTION_LIMITS. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Serves tools/list (advertised as `capabilities.tools`); absent: the method is not served. */
  tools?: ToolCatalogueSource;
  /** Sessions take workspace checkpoints and serve checkpoint/* (`capabilities.checkpoints`). */
  checkpoints?: boolean;
  /** Sessions have slash commands and skills and serve commands/list (`capabilities.commands`). */
  commands?: boolean;
  /** Agent profiles: agents/list is served and session/new takes `agent` (`capabilities.agents`). */
  agents?: AgentProfiles;
}

export function daemonCapabilities(context: DaemonContext): DaemonCapabilities {
  return {
    sessions: { persistence: true, setModel: true },
    attach: { replay: true, replayRetention: context.replayRetention },
    permissionModes: ['plan', 'default', 'auto'],
    clientTools: {},
    plan: {},
    // The daemon's toolsets offer ask_user to turns of clients that answer questions.
    ...(context.tools && { tools: {}, questions: {} }),
    ...(context.checkpoints && { checkpoints: {} }),
    ...(context.commands && { commands: {} }),
    ...(context.agents && { agents: {} }),
    maxMessageBytes: context.maxMessageBytes,
    ...(context.budgetLimits && { budgets: { limits: context.budgetLimits } }),
    ...(context.approvalTimeoutMs !== undefined && {
      approvals: { timeoutMs: context.approvalTimeoutMs },
    }),
    ...(context.testing && { testing: { scriptedProvider: {} } }),
  };
}

export function clientIdAllocator(): () => string {
  let next = 1;
  return () => `client-${next++}`;
}
