/**
 * The effective configuration: defaults, then the config file, then
 * environment variables, then command-line flags (flags win).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConnectionLimits } from '../server/connectionLimits.js';
import type { z } from 'zod';
import { BudgetLimits } from '../agent/budgetLimits.js';
import type { LogLevel } from '../logging/logger.js';
import {
  ConfigFile,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_SESSION_IDLE_EVICT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  type SandboxConfig,
  type UserPermissions,
  type WebFetchConfig,
} from './configSchema.js';
import type { UserHooks } from '../hooks/hookConfig.js';
import type { AgentProfile } from '../agents/agentProfile.js';
import { resolveMcpConfig, type McpConfig } from './mcpConfig.js';
import {
  DEFAULT_CONTEXT_SETTINGS,
  type ContextSettings,
} from '../agent/context/contextSettings.js';

export interface DaemonConfig {
  dataDir: string;
  logLevel: LogLevel;
  maxMessageBytes: number;
  listen: string | undefined;
  model: string | undefined;
  /** Model of subtask loops (depth > 0); undefined: a subtask runs on its parent's model. */
  subtaskModel: string | undefined;
  provider: 'scripted' | undefined;
  script: string | undefined;
  budgets: BudgetLimits;
  approvalTimeoutMs: number;
  /** How long an idle loaded session stays in memory (SessionManager.evictIdle). */
  sessionIdleEvictMs: number;
  alwaysAsk: string[];
  /** The user's permission rules (approvals.md#permission-rules). */
  permissions: UserPermissions;
  /** The user's lifecycle hooks (hooks/). */
  hooks: UserHooks;
  /** Provider keys, base URLs and per-model overrides (config file only: keys stay out of argv). */
  providers: ConfigFile['providers'];
  /** The context engine's settings, defaults filled in. */
  context: ContextSettings;
  /** run_command's sandbox, defaults filled in. */
  sandbox: Required<SandboxConfig>;
  /** web_fetch's settings, defaults filled in. */
  webFetch: Required<WebFetchConfig>;
  /** Overrides of DEFAULT_CONNECTION_LIMITS. */
  connectionLimits: Partial<ConnectionLimits>;
  /** MCP servers of the config file and the MCP settings, defaults filled in. */
  mcp: McpConfig;
  /** Take workspace checkpoints around turns (checkpoints.md); default true. */
  checkpoints: boolean;
  /** The config's agent profiles, defaults filled in (agents/agentProfiles.ts adds the workspace's). */
  agents: Record<string, AgentProfile>;
  /** The profile of sessions created without one; a key of `agents`. */
  defaultAgent: string | undefined;
}

/** Thrown for any configuration problem; the CLI prints the message and exits 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The settings flags and environment variables can carry. */
export type ConfigOverrides = Partial<
  Pick<
    ConfigFile,
    'dataDir' | 'logLevel' | 'listen' | 'model' | 'subtaskModel' | 'provider' | 'script'
  >
>;

export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success)
    throw new ConfigError(`invalid config file ${path}:\n${formatIssues(parsed.error)}`);
  return parsed.data;
}

/** One line per problem, with the key's path, e.g. `budgets.maxDepht: unrecognized key`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .flatMap((issue) => {
      const base = issue.path.map(String);
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => `  ${[...base, key].join('.')}: unknown key`);
      }
      return [`  ${base.join('.') || '(root)'}: ${issue.message}`];
    })
    .join('\n');
}

export function configFromEnv(env: NodeJS.ProcessEnv): ConfigOverrides {
  const out: ConfigOverrides = {};
  if (env['ARBOR_DATA_DIR']) out.dataDir = env['ARBOR_DATA_DIR'];
  if (env['ARBOR_LOG_LEVEL']) out.logLevel = env['ARBOR_LOG_LEVEL'] as LogLevel;
  if (env['ARBOR_MODEL']) out.model = env['ARBOR_MODEL'];
  if (env['ARBOR_SUBTASK_MODEL']) out.subtaskModel = env['ARBOR_SUBTASK_MODEL'];
  return out;
}

export function resolveConfig(
  file: ConfigFile,
  env: ConfigOverrides,
  flags: ConfigOverrides,
): DaemonConfig {
  const pick = <K extends keyof ConfigOverrides>(key: K): ConfigOverrides[K] =>
    flags[key] ?? env[key] ?? file[key];
  const check = ConfigFile.safeParse(withoutUndefined({ ...env, ...flags }));
  if (!check.success) throw new ConfigError(`invalid option:\n${formatIssues(check.error)}`);
  const budgets = BudgetLimits.safeParse(file.budgets ?? {});
  if (!budgets.success) throw new ConfigError(`invalid budgets:\n${formatIssues(budgets.error)}`);
  return {
    dataDir: resolve(pick('dataDir') ?? join(homedir(), '.arbor')),
    logLevel: pick('logLevel') ?? 'info',
    maxMessageBytes: file.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    listen: pick('listen'),
    model: pick('model'),
    subtaskModel: pick('subtaskModel'),
    provider: pick('provider'),
    script: pick('script'),
    budgets: budgets.data,
    approvalTimeoutMs: file.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    sessionIdleEvictMs: file.sessionIdleEvictMs ?? DEFAULT_SESSION_IDLE_EVICT_MS,
    alwaysAsk: file.alwaysAsk ?? [],
    permissions: file.permissions ?? {},
    hooks: file.hooks ?? {},
    providers: file.providers,
    sandbox: {
      mode: file.sandbox?.mode ?? 'auto',
      network: file.sandbox?.network ?? false,
      allowEnv: file.sandbox?.allowEnv ?? [],
    },
    webFetch: {
      allowPrivateNetworks: file.webFetch?.allowPrivateNetworks ?? false,
      privateNetworkAllowlist: file.webFetch?.privateNetworkAllowlist ?? [],
    },
    context: file.context ?? DEFAULT_CONTEXT_SETTINGS,
    connectionLimits: file.connections ?? {},
    mcp: resolveMcpConfig(file.mcpServers, file.mcp),
    checkpoints: file.checkpoints?.enabled ?? true,
    agents: file.agents ?? {},
    defaultAgent: file.defaultAgent,
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
