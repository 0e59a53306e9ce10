/**
 * Tools: `tools/list`, what a model may call — the daemon's built-in tools,
 * and for a session the whole toolset a turn of the requesting client gets,
 * with what the session's permission mode does with a call of each.
 */
import { z } from 'zod';
import { JsonSchemaObject, SessionId, ToolCategory, message, objectOrEmptyArray } from './base.js';
import { request } from './descriptor.js';
import { ToolName } from './lifecycle.js';
import { PermissionRuleInfo } from './permissionRules.js';

export const ToolOrigin = z
  .string()
  .min(1)
  .max(200)
  .describe(
    'Who provides the tool: daemon, client (declared by the requesting client) or mcp:<server>. Open: other values may come',
  );

export const ToolPermission = z
  .enum(['run', 'ask', 'block'])
  .describe(
    "What the session's current permission mode does with a call of the tool: run at once, ask a controller, or block",
  );
export type ToolPermission = z.infer<typeof ToolPermission>;

export const ToolInfo = message({
  name: ToolName.describe('The name the model calls the tool by'),
  description: z.string().max(4000).describe('The description the model is given'),
  category: ToolCategory,
  inputSchema: JsonSchemaObject.describe(
    'JSON Schema of the arguments object, exactly as the model is offered it',
  ),
  parallelSafe: z
    .boolean()
    .describe('Calls may run concurrently with the other calls of the same model reply'),
  origin: ToolOrigin,
  permission: ToolPermission.optional().describe(
    'Present exactly when the request named a session',
  ),
}).describe('A tool a model may call');
export type ToolInfo = z.infer<typeof ToolInfo>;

export const ToolsListParams = message({
  sessionId: SessionId.optional().describe(
    "Absent: the daemon's built-in tools. Present: every tool a turn of this client in that session offers the model",
  ),
});
export const ToolServerStatus = z
  .enum(['starting', 'ready', 'error', 'disabled'])
  .describe(
    'starting: not ready yet; ready: its tools are listed; error: it failed (see message); disabled: configured but not started (see message)',
  );
export type ToolServerStatus = z.infer<typeof ToolServerStatus>;

export const ToolServer = message({
  origin: ToolOrigin.describe('mcp:<name>: the origin its tools carry'),
  status: ToolServerStatus,
  message: z
    .string()
    .max(2000)
    .optional()
    .describe('Why it is in error or disabled; what of it was left out when ready'),
  toolCount: z.number().int().nonnegative().optional().describe('Tools it offers, when ready'),
}).describe('A server the daemon takes tools from for the session (an MCP server)');
export type ToolServer = z.infer<typeof ToolServer>;

export const ToolsListResult = message({
  tools: z.array(ToolInfo).describe('In the order the model is offered them; names are unique'),
  servers: z
    .array(ToolServer)
    .max(200)
    .optional()
    .describe(
      "With sessionId, from a daemon that takes tools from servers (protocol 1.1): each server of the session's workspace and its status",
    ),
  rules: z
    .array(PermissionRuleInfo)
    .max(2000)
    .optional()
    .describe(
      "With sessionId, from a daemon with permission rules (protocol 1.1): every rule in force for the session's workspace, deny rules first",
    ),
  rulesError: z
    .string()
    .max(2000)
    .optional()
    .describe(
      "With sessionId (protocol 1.1): why the workspace's rule file cannot be read; every call is refused until it is fixed",
    ),
});
export type ToolsListResult = z.infer<typeof ToolsListResult>;

export const ToolsList = request({
  method: 'tools/list',
  direction: 'clientToDaemon',
  // Params may be omitted (or `[]` from a Lua encoder): the built-in tools.
  params: objectOrEmptyArray(ToolsListParams).default({}),
  result: ToolsListResult,
  capability: 'daemon.tools',
  since: 1,
  summary:
    "Lists the tools a model may call: the daemon's built-in tools, or a session's whole toolset with each tool's permission.",
  specRef: 'tools.md#tools-list',
});
