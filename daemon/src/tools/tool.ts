/**
 * The tool base. A tool declares its input as a zod schema (the model gets it
 * as JSON Schema), a permission category, whether it may run alongside other
 * calls, and optionally an exclusive lock name: calls holding the same lock run
 * one at a time, in the order the model emitted them.
 */
import type { NodeProgress, NotificationDescriptor, ParamsOf, ToolCategory } from '@arbor/protocol';
import { z } from 'zod';
import type { ToolDefinition, ToolImage } from '../providers/provider.js';
import type { ArtifactStore } from '../agent/context/artifacts.js';
import type { TurnMemory } from './memory.js';
import type { QuestionEnd } from '../questions/questionBroker.js';

/** What ask_user asks; the call's ids are the loop's. */
export interface UserQuestion {
  question: string;
  options?: { label: string; description?: string }[];
  freeText: boolean;
}

/** A session event a tool sends (plan/update), minus what the session stamps on. */
export type ToolEventParams<D extends NotificationDescriptor> = Omit<
  ParamsOf<D>,
  'sessionId' | 'seq'
>;

export interface ToolContext {
  /** Aborts when the turn is cancelled or runs out of budget; tools must stop promptly. */
  signal: AbortSignal;
  /** The turn's shared memory, the same at every depth. */
  memory: TurnMemory;
  /** The session's artifacts (tool results kept out of the context), for read_artifact. */
  artifacts?: ArtifactStore;
  workspaceRoot: string;
  turnId: string;
  /** The tree node of this call. */
  nodeId: string;
  toolCallId: string;
  /** Depth of the loop that made the call (0 at the root). */
  depth: number;
  /** Sends a session event in order with the turn's other events (todo_write's plan/update). */
  emit<D extends NotificationDescriptor>(descriptor: D, params: ToolEventParams<D>): void;
  /** Shows how far a running call is (an MCP server's progress) in its tree node. */
  progress?(progress: NodeProgress): void;
  /** Shows what a running call writes (a command's output) in its tree node as it arrives. */
  output?(text: string): void;
  /** Asks the session's controllers (ask_user); absent when the turn has nobody to ask. */
  askUser?(question: UserQuestion): Promise<QuestionEnd>;
}

/** What the model sees. A plain string is a successful result. */
export type ToolOutput =
  string | { content: string; isError?: boolean; images?: readonly ToolImage[] };

export interface Tool<I = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<I>;
  readonly category: ToolCategory;
  /** May run concurrently with other calls of the same model turn. */
  readonly parallelSafe: boolean;
  /** Calls sharing this lock run serially, in emitted order. */
  readonly lock?: string;
  /** JSON Schema offered to the model instead of the one derived from `input` (client tools). */
  readonly inputJsonSchema?: Record<string, unknown>;
  /** Who provides it, as tools/list reports it: `client`, `mcp:<server>`; absent: the daemon. */
  readonly origin?: string;
  /** The file a call changes, for the gate's protected-path check (write tools). */
  targetPath?(args: I): string | undefined;
  /**
   * How an allow-for-session grant matches later calls: a grant covers calls
   * with the same key. Absent: a grant covers every call of the tool.
   */
  grantKey?(args: I): string;
  execute(args: I, ctx: ToolContext): Promise<ToolOutput>;
}

export interface ToolSpec<I> {
  name: string;
  description: string;
  input: z.ZodType<I>;
  category: ToolCategory;
  parallelSafe?: boolean;
  lock?: string;
  inputJsonSchema?: Record<string, unknown>;
  origin?: string;
  targetPath?(args: I): string | undefined;
  grantKey?(args: I): string;
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
    ...(spec.inputJsonSchema === undefined ? {} : { inputJsonSchema: spec.inputJsonSchema }),
    ...(spec.origin === undefined ? {} : { origin: spec.origin }),
    ...(spec.targetPath === undefined ? {} : { targetPath: spec.targetPath }),
    ...(spec.grantKey === undefined ? {} : { grantKey: spec.grantKey }),
    execute: async (args, ctx) => spec.execute(args, ctx),
  };
}

const definitions = new WeakMap<Tool, ToolDefinition>();

/** The tool as offered to the model (JSON Schema computed once per tool). */
export function toolDefinition(tool: Tool): ToolDefinition {
  let definition = definitions.get(tool);
  if (definition === undefined && tool.inputJsonSchema !== undefined) {
    definition = {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputJsonSchema,
    };
    definitions.set(tool, definition);
  }
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
