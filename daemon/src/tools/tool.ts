/**
 * The tool base. A tool declares its input as a zod schema (the model gets it
 * as JSON Schema), a permission category, whether it may run alongside other
 * calls, and optionally an exclusive lock name: calls holding the same lock run
 * one at a time, in the order the model emitted them.
 */
import type { ToolCategory } from '@arbor/protocol';
import { z } from 'zod';
import type { ToolDefinition } from '../providers/provider.js';
import type { TurnMemory } from './memory.js';

export interface ToolContext {
  /** Aborts when the turn is cancelled or runs out of budget; tools must stop promptly. */
  signal: AbortSignal;
  /** The turn's shared memory, the same at every depth. */
  memory: TurnMemory;
  workspaceRoot: string;
  turnId: string;
  /** The tree node of this call. */
  nodeId: string;
  toolCallId: string;
  /** Depth of the loop that made the call (0 at the root). */
  depth: number;
}

/** What the model sees. A plain string is a successful result. */
export type ToolOutput = string | { content: string; isError?: boolean };

export interface Tool<I = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<I>;
  readonly category: ToolCategory;
  /** May run concurrently with other calls of the same model turn. */
  readonly parallelSafe: boolean;
  /** Calls sharing this lock run serially, in emitted order. */
  readonly lock?: string;
  execute(args: I, ctx: ToolContext): Promise<ToolOutput>;
}

export interface ToolSpec<I> {
  name: string;
  description: string;
  input: z.ZodType<I>;
  category: ToolCategory;
  parallelSafe?: boolean;
  lock?: string;
  execute(args: I, ctx: ToolContext): Promise<ToolOutput> | ToolOutput;
}

/** Builds a tool; parallel-safe unless it says otherwise. */
export function defineTool<I>(spec: ToolSpec<I>): Tool<I> {
  return {
    name: spec.name,
    description: spec.description,
    input: spec.input,
    category: spec.category,
    parallelSafe: spec.parallelSafe ?? true,
    ...(spec.lock === undefined ? {} : { lock: spec.lock }),
    execute: async (args, ctx) => spec.execute(args, ctx),
  };
}

const definitions = new WeakMap<Tool, ToolDefinition>();

/** The tool as offered to the model (JSON Schema computed once per tool). */
export function toolDefinition(tool: Tool): ToolDefinition {
  let definition = definitions.get(tool);
  if (definition === undefined) {
    const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    delete schema.$schema;
    definition = { name: tool.name, description: tool.description, inputSchema: schema };
    definitions.set(tool, definition);
  }
  return definition;
}
