/**
 * An MCP server's tools as Arbor tools (the shape of clientTools.ts): named
 * `mcp__<server>__<tool>`, offered with the server's JSON Schema, arguments
 * checked against it before any request, origin `mcp:<server>`, and a
 * permission category from the tool's annotations unless the config says
 * otherwise — so the gate, approvals and plan mode treat them like any tool.
 * A tool whose schema is unusable is left out, and said so in the status.
 */
import type { ToolCategory } from '@arbor/protocol';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ValidateFunction } from 'ajv';
import { z } from 'zod';
import { cutText } from '../../agent/executionTree.js';
import type { McpServerConfig } from '../../config/mcpConfig.js';
import { defineTool, type Tool, type ToolContext, type ToolOutput } from '../tool.js';
import { mcpOrigin, mcpToolName } from './mcpToolNames.js';

/** ToolInfo.description's limit in the protocol. */
const MAX_DESCRIPTION_CHARS = 4000;
/** A schema this large would crowd the model's context; such a tool is left out. */
const MAX_SCHEMA_BYTES = 32 * 1024;

/** Runs a call of the server's tool `name` (its own name, not the model's). */
export type McpToolCall = (name: string, args: unknown, ctx: ToolContext) => Promise<ToolOutput>;

export interface McpToolset {
  tools: Tool[];
  /** Tools not offered, each with why. */
  leftOut: string[];
}

export function createMcpTools(
  server: string,
  config: McpServerConfig,
  infos: readonly McpToolInfo[],
  call: McpToolCall,
): McpToolset {
  // logger off: an unknown `format` is ignored without a console line per tool.
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
  const taken = new Set<string>();
  const tools: Tool[] = [];
  const leftOut: string[] = [];
  for (const info of infos) {
    const schema = offeredSchema(info);
    const validate = compile(ajv, schema);
    if (typeof validate === 'string') {
      leftOut.push(`${info.name} (${validate})`);
      continue;
    }
    const input = z.unknown().superRefine((value, ctx) => {
      if (validate(value)) return;
      for (const e of validate.errors ?? []) {
        ctx.addIssue({
          code: 'custom',
          message: `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}`,
        });
      }
    });
    const category = config.toolCategories?.[info.name] ?? config.category ?? categoryOf(info);
    tools.push(
      defineTool({
        name: mcpToolName(server, info.name, taken),
        description: describe(info),
        input,
        inputJsonSchema: schema,
        category,
        // Reads may overlap; anything else runs alone, in the order the model asked.
        parallelSafe: category === 'read',
        origin: mcpOrigin(server),
        execute: (args, ctx) => call(info.name, args ?? {}, ctx),
      }) as Tool,
    );
  }
  return { tools, leftOut };
}

/** readOnlyHint: read; destructiveHint: write; anything else may reach outside: external. */
export function categoryOf(info: McpToolInfo): ToolCategory {
  if (info.annotations?.readOnlyHint === true) return 'read';
  if (info.annotations?.destructiveHint === true) return 'write';
  return 'external';
}

function offeredSchema(info: McpToolInfo): Record<string, unknown> {
  // Providers take a plain object schema; the dialect marker is of no use to them.
  const { $schema: _dialect, ...schema } = info.inputSchema as Record<string, unknown>;
  return schema;
}

function compile(ajv: Ajv, schema: Record<string, unknown>): ValidateFunction | string {
  if (Buffer.byteLength(JSON.stringify(schema), 'utf8') > MAX_SCHEMA_BYTES)
    return `inputSchema larger than ${MAX_SCHEMA_BYTES} bytes`;
  try {
    return ajv.compile(schema);
  } catch (error) {
    return `invalid inputSchema: ${(error as Error).message}`;
  }
}

function describe(info: McpToolInfo): string {
  return cutText(
    info.description ?? info.title ?? info.annotations?.title ?? info.name,
    MAX_DESCRIPTION_CHARS,
  );
}
