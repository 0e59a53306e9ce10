/**
 * The daemon's config file (`--config <file>`, JSON). Strict: an unknown key
 * is an error naming its path, so a typo never silently does nothing.
 * `daemon/schema/config.schema.json` is generated from this schema.
 */
import { z } from 'zod';
import { UserHooks } from '../hooks/hookConfig.js';
import { UserPermissions } from '../permissions/rules/ruleLists.js';
import { BudgetOverrides } from '../agent/budgetLimits.js';
import { ContextSettings } from '../agent/context/contextSettings.js';
import { LOG_LEVELS } from '../logging/logger.js';
import { ProvidersConfig } from '../providers/providerConfig.js';
import { ConnectionLimits } from '../server/connectionLimits.js';
import { parseNetwork } from '../tools/web/addressPolicy.js';
import { McpServers, McpSettings } from './mcpConfig.js';
import { ModelString } from './modelString.js';
import { AgentName, AgentProfile } from '../agents/agentProfile.js';

/** Default largest frame body, in bytes (8 MiB), as the spec gives it. */
export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How long a tool call waits for an approval before it is timed out. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 600_000;
/** How long a loaded session with no client and no turn stays in memory before it is dropped. */
export const DEFAULT_SESSION_IDLE_EVICT_MS = 600_000;

/** Names of environment variables, as `sandbox.allowEnv` lists them. */
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not an environment variable name');

/** How run_command is confined (security.md#command-sandbox). */
export const SandboxConfig = z
  .object({
    mode: z
      .enum(['auto', 'off'])
      .optional()
      .describe(
        'auto (default): run_command runs in a bubblewrap sandbox when bwrap works here; off: never',
      ),
    network: z
      .boolean()
      .optional()
      .describe('Sandboxed commands may use the network (default false: no network)'),
    allowEnv: z
      .array(EnvName)
      .optional()
      .describe('Environment variables commands get although their names look like secrets'),
  })
  .strict();
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** What web_fetch may reach (security.md#web-fetch). */
export const WebFetchConfig = z
  .object({
    allowPrivateNetworks: z
      .boolean()
      .optional()
      .describe(
        'web_fetch may connect to loopback, private, link-local and other non-public addresses (default false)',
      ),
    privateNetworkAllowlist: z
      .array(
        z
          .string()
          .refine((entry) => parseNetwork(entry) !== undefined, 'not an IP address or CIDR subnet'),
      )
      .optional()
      .describe(
        'Non-public addresses or CIDR subnets web_fetch may connect to all the same, e.g. "10.1.0.0/16" for an intranet',
      ),
  })
  .strict();
export type WebFetchConfig = z.infer<typeof WebFetchConfig>;

export const ConfigFile = z
  .object({
    $schema: z.string().optional().describe('Editors may point this at config.schema.json'),
    dataDir: z
      .string()
      .min(1)
      .optional()
      .describe('Where the daemon keeps its token, logs and store (default ~/.arbor)'),
    logLevel: z.enum(LOG_LEVELS).optional(),
    maxMessageBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .optional()
      .describe('Largest accepted frame body in bytes (default 8388608)'),
    listen: z.string().min(1).optional().describe('Unix socket path or 127.0.0.1:port'),
    model: z
      .string()
      .min(1)
      .optional()
      .describe('Default model (provider:model) for sessions that name none'),
    subtaskModel: ModelString.optional().describe(
      "Model (provider:model) of every subtask, at any depth; default: the parent loop's model",
    ),
    providers: ProvidersConfig.optional().describe(
      'openai / anthropic / local: keys, base URLs, retries, per-model capability overrides',
    ),
    provider: z.enum(['scripted']).optional().describe('Force the deterministic scripted provider'),
    script: z.string().min(1).optional().describe('Script file of the scripted provider'),
    budgets: BudgetOverrides.optional(),
    context: ContextSettings.optional().describe(
      'The context engine: budget awareness, when tool results are offloaded to artifacts or reduced',
    ),
    approvalTimeoutMs: z.number().int().positive().optional(),
    sessionIdleEvictMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'How long a loaded session with no attached client and no running turn stays in memory (default 600000 ms); it is loaded again from the store on its next use',
      ),
    alwaysAsk: z
      .array(z.string().min(1))
      .optional()
      .describe('Tools that ask for approval even in auto mode'),
    permissions: UserPermissions.optional().describe(
      'Permission rules: allow / ask / deny by tool and argument pattern, e.g. {"allow": ["run_command(npm test:*)"], "deny": ["read_file(.env)"]}',
    ),
    hooks: UserHooks.optional().describe(
      'Lifecycle hooks: {"PreToolUse": [{"matcher": "run_command", "command": "./check.sh", "timeoutMs": 10000}], ...}; workspaceFile: also run those of .arbor/settings.json',
    ),
    sandbox: SandboxConfig.optional().describe(
      'run_command sandbox (bubblewrap): mode, network, environment variables let through',
    ),
    webFetch: WebFetchConfig.optional().describe(
      'web_fetch: which private networks it may reach (none by default)',
    ),
    checkpoints: z
      .object({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            "Snapshot the workspace (its files not ignored by .gitignore, in a git repository of Arbor's own under the data dir) around each turn that changes it, for undo",
          ),
      })
      .strict()
      .optional()
      .describe(
        'Workspace checkpoints: per-turn changed files, checkpoint/restore, checkpoint/diff',
      ),
    mcpServers: McpServers.optional().describe(
      'MCP servers whose tools every session gets, as mcp__<server>__<tool>: {command, args?, env?, cwd?} or {url, headers?}',
    ),
    mcp: McpSettings.optional().describe(
      'MCP timeouts, the workspace file .arbor/mcp.json, progress in the tree',
    ),
    agents: z
      .record(AgentName, AgentProfile)
      .optional()
      .describe(
        'Agent profiles sessions may run with (session/new agent): {name: {description, instructions, model, tools, hitlTools, budgets, ...}}; .arbor/agents/<name>.json of a workspace adds more',
      ),
    defaultAgent: AgentName.optional().describe(
      'The profile (a key of agents) of sessions created without one',
    ),
    connections: ConnectionLimits.partial()
      .optional()
      .describe(
        'What one client connection may cost: unread bytes before a slow client is detached, pre-authentication frame limit, deadline and count',
      ),
  })
  .strict();
export type ConfigFile = z.infer<typeof ConfigFile>;
export type { UserPermissions };
