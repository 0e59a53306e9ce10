/** Lifecycle: `initialize`, `initialized`, `shutdown`, `exit` — LSP-compatible. */
import { z } from 'zod';
import {
  EmptyParams,
  JsonSchemaObject,
  Meta,
  ToolCategory,
  message,
  objectOrEmptyArray,
  PermissionMode,
} from './base.js';
import { BudgetLimitsByKind } from './budget.js';
import { notification, request } from './descriptor.js';

/** Empty object = supported; absent = unsupported. Sub-fields refine the support. */
const Supported = message({});
/** What a client sends for "supported": `{}`, or `[]` from a Lua encoder. */
const SupportedByClient = objectOrEmptyArray(Supported);

const ClientCapabilitiesObject = message({
  approvals: SupportedByClient.optional().describe('The client answers tool/approvalRequest'),
  clientTools: SupportedByClient.optional().describe(
    'The client executes the tools it declares (tool/execute)',
  ),
  conformance: SupportedByClient.optional().describe(
    'The client answers _arbor/conformance/state (conformance-suite introspection)',
  ),
  openEnums: SupportedByClient.optional().describe(
    'The client handles enum values it does not know as versioning.md#open-enums says, so the daemon may send values added after protocol 1 (1.1: stopReason max_tokens)',
  ),
  questions: SupportedByClient.optional().describe(
    'The client answers tool/question, the ask_user tool (protocol 1.1)',
  ),
  experimental: Meta.optional(),
});
/** The frame content limit a client assumes until (and unless) the daemon advertises one (transport.md#framing). */
export const DEFAULT_MAX_MESSAGE_BYTES = 8_388_608;

export const ClientCapabilities = objectOrEmptyArray(ClientCapabilitiesObject).describe(
  'What the client supports. Absent means unsupported.',
);
export type ClientCapabilities = z.infer<typeof ClientCapabilities>;

export const DaemonCapabilities = message({
  sessions: message({
    persistence: z.boolean().describe('Sessions survive a daemon restart'),
    setModel: z.boolean().optional().describe('session/setModel is served'),
  }).optional(),
  attach: message({
    replay: z.boolean().describe('session/attach honours sinceSeq'),
    replayRetention: z.number().int().nonnegative().describe('Events kept per session for replay'),
  }).optional(),
  permissionModes: z.array(PermissionMode).optional().describe('Modes the daemon accepts'),
  clientTools: Supported.optional().describe(
    'The daemon offers declared client tools to the model',
  ),
  plan: Supported.optional().describe('The daemon sends plan/update'),
  budgets: message({
    limits: BudgetLimitsByKind.describe('The limit of each budget kind a turn runs under'),
  })
    .optional()
    .describe('The effective budget limits; chat/send budgets can lower them for one turn'),
  approvals: message({
    timeoutMs: z
      .number()
      .int()
      .positive()
      .describe('How long an approval waits for an answer before it ends timed_out'),
  }).optional(),
  tools: Supported.optional().describe('The daemon serves tools/list (protocol 1.1)'),
  questions: Supported.optional().describe(
    'The model can ask the user through ask_user: tool/question, tool/questionResolved (protocol 1.1)',
  ),
  checkpoints: Supported.optional().describe(
    'Turn nodes carry changes; checkpoint/restore and checkpoint/diff are served (protocol 1.1)',
  ),
  commands: Supported.optional().describe(
    'Slash commands and skills: commands/list is served, commands/changed is sent, chat/send expands /name (protocol 1.1)',
  ),
  agents: Supported.optional().describe(
    'Agent profiles: agents/list is served, session/new takes agent (protocol 1.1)',
  ),
  chunks: message({
    coalesceMs: z
      .number()
      .int()
      .nonnegative()
      .describe('Longest time text is held before a chat/chunk'),
  }).optional(),
  maxMessageBytes: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`Largest frame body accepted; absent means ${DEFAULT_MAX_MESSAGE_BYTES}`),
  testing: message({
    scriptedProvider: Supported.optional().describe('Accepts _arbor/testing/setScript'),
  })
    .optional()
    .describe('Deterministic test tooling; never enabled in production use'),
  experimental: Meta.optional(),
}).describe('What the daemon supports. Absent means unsupported.');
export type DaemonCapabilities = z.infer<typeof DaemonCapabilities>;

export const ToolName = z
  .string()
  .regex(
    /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/,
    'tool names are 1-64 characters: letters, digits, _ and -',
  );

export const ClientToolDeclaration = message({
  name: ToolName,
  description: z.string().max(4000),
  inputSchema: JsonSchemaObject,
  category: ToolCategory,
}).describe('A tool the client runs on request (tool/execute)');
export type ClientToolDeclaration = z.infer<typeof ClientToolDeclaration>;

const ClientTools = z.array(ClientToolDeclaration).max(256);

export const Implementation = message({
  name: z.string().min(1).max(200),
  version: z.string().max(100).optional(),
});

export const InitializeParams = message({
  protocolVersion: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Newest major version the client speaks; absent means 1 (generic LSP clients)'),
  clientInfo: Implementation.optional(),
  capabilities: ClientCapabilities.default({}),
  tools: ClientTools.optional().describe('Client tools manifest'),
  token: z.string().max(1024).optional().describe('Socket token; required on sockets'),
  processId: z.number().int().nullable().optional(),
  trace: z
    .string()
    .max(20)
    .optional()
    .describe("LSP's initial trace value: off | messages | verbose; other values mean off"),
  initializationOptions: objectOrEmptyArray(
    message({
      token: z.string().max(1024).optional(),
      protocolVersion: z.number().int().positive().optional(),
      capabilities: ClientCapabilities.optional(),
      tools: ClientTools.optional(),
    }),
  )
    .optional()
    .describe(
      'Where typed LSP clients, which cannot add top-level fields, put token, protocolVersion, capabilities and tools instead',
    ),
});
export type InitializeParams = z.infer<typeof InitializeParams>;

export const InitializeResult = message({
  protocolVersion: z.number().int().positive().describe('The version both sides speak from now on'),
  serverInfo: Implementation,
  capabilities: DaemonCapabilities,
  clientId: z.string().min(1).describe('How the daemon names this connection in logs and events'),
});
export type InitializeResult = z.infer<typeof InitializeResult>;

export const Initialize = request({
  method: 'initialize',
  direction: 'clientToDaemon',
  params: InitializeParams,
  result: InitializeResult,
  summary:
    'First request: negotiates version and capabilities, declares client tools, presents the token.',
  specRef: 'lifecycle.md#initialize',
});

export const Initialized = notification({
  method: 'initialized',
  direction: 'clientToDaemon',
  params: EmptyParams,
  summary: 'The client received the initialize result; the daemon may now send requests.',
  specRef: 'lifecycle.md#initialized',
});

export const Shutdown = request({
  method: 'shutdown',
  direction: 'clientToDaemon',
  params: EmptyParams.nullable().optional(),
  result: z.null(),
  summary: 'Asks the daemon to stop serving this connection; only exit may follow.',
  specRef: 'lifecycle.md#shutdown',
});

export const Exit = notification({
  method: 'exit',
  direction: 'clientToDaemon',
  params: EmptyParams.nullable().optional(),
  summary: 'Closes the connection (stdio: the daemon process exits).',
  specRef: 'lifecycle.md#exit',
});
