/**
 * Building blocks shared by every message of the Arbor Agent Protocol.
 *
 * Objects are non-strict on purpose: the spec says unknown fields are ignored,
 * so zod's default "strip" behaviour is the protocol's behaviour. Closed enums
 * are strict: an unknown permission mode is an error, never a silent default.
 */
import { z } from 'zod';

/** The protocol's major version. Everything else is negotiated by capabilities. */
export const PROTOCOL_VERSION = 1 as const;
/** Every major version this package can speak, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [1];

/** `_meta` may ride on every object; its content belongs to whoever put it there. */
export const Meta = z.record(z.string(), z.unknown()).describe('Free-form extension data');

/** Adds the optional `_meta` field every protocol object may carry. */
export function message<T extends z.ZodRawShape>(shape: T) {
  return z.object({ ...shape, _meta: Meta.optional() });
}

export const Id = z.string().min(1).max(200);
export const SessionId = Id.describe('Opaque session identifier chosen by the daemon');
export const TurnId = Id.describe('Opaque turn identifier chosen by the daemon');
export const NodeId = Id.describe('Execution-tree node identifier, unique within a turn');
export const ToolCallId = Id.describe('Identifier of one tool call, unique within a turn');

/** Per-session event sequence number: strictly increasing, starting at 1. */
export const Seq = z.number().int().positive();
/** ISO 8601 timestamp in UTC. */
export const Timestamp = z.iso.datetime({ offset: true });
export const NonNegativeInt = z.number().int().nonnegative();

/** Fields every daemon notification about a session carries. */
export const sessionEvent = {
  sessionId: SessionId,
  seq: Seq,
};

export const PermissionMode = z
  .enum(['plan', 'default', 'auto'])
  .describe(
    'plan: only read tools run; default: others ask; auto: all run (except always-ask tools)',
  );
export type PermissionMode = z.infer<typeof PermissionMode>;

export const ToolCategory = z
  .enum(['read', 'write', 'execute', 'external'])
  .describe('What a tool may do; unknown tools count as external');
export type ToolCategory = z.infer<typeof ToolCategory>;

/** The stop reasons of protocol 1; a client that did not opt in to open enums only sees these. */
export const V1_STOP_REASONS = [
  'end_turn',
  'cancelled',
  'budget_exceeded',
  'max_iterations',
  'error',
  'interrupted',
] as const;

export const StopReason = z
  .enum([...V1_STOP_REASONS, 'max_tokens'])
  .describe('Why a turn ended; max_tokens (1.1): the model hit its output-token limit');
export type StopReason = z.infer<typeof StopReason>;

export const Usage = message({
  inputTokens: NonNegativeInt.describe('Every input token, cache reads and writes included'),
  outputTokens: NonNegativeInt,
  cachedInputTokens: NonNegativeInt.optional().describe(
    'The part of inputTokens read from the provider’s prompt cache',
  ),
  cacheWriteInputTokens: NonNegativeInt.optional().describe(
    'The part of inputTokens written to the provider’s prompt cache (1.1)',
  ),
  reasoningTokens: NonNegativeInt.optional(),
}).describe('Token usage');
export type Usage = z.infer<typeof Usage>;

/** Cost in US dollars; null when the model's price is unknown. */
export const Cost = z.number().nonnegative().nullable();

export const ChatContext = message({
  kind: z.enum(['thread', 'editor']).describe('editor: the client offers its editor tools'),
}).describe('Where the chat happens; decides which tools the daemon composes');
export type ChatContext = z.infer<typeof ChatContext>;

/** A JSON Schema object, as used for tool inputs. Only its shape as an object is checked. */
export const JsonSchemaObject = z.record(z.string(), z.unknown()).describe('A JSON Schema');

/** Request params or results that carry nothing yet but may grow. */
export const Empty = message({});

/**
 * An object whose members are all optional, where a client may also send an
 * empty array: Lua's JSON encoders (Neovim's LSP client among them) cannot
 * tell an empty table `{}` from `[]`. Parsed, `[]` is `{}` (defaults applied).
 */
export function objectOrEmptyArray<T extends z.ZodObject>(schema: T) {
  const fromEmptyArray = z
    .array(z.never())
    .max(0)
    .transform((): z.output<T> => schema.parse({}));
  return z.union([schema, fromEmptyArray]);
}

/** Params of a method that takes none but may grow: `{}` (or `[]`, see above). */
export const EmptyParams = objectOrEmptyArray(Empty);
