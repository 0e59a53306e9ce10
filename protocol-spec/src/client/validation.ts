/** Checks a message part against its descriptor's schema without throwing. */
import type { z } from 'zod';
import { parseOpen } from '../openEnums.js';
import { ProtocolValidationError, type MessageOrigin } from './clientErrors.js';

export type Validated<T> = { ok: true; value: T } | { ok: false; error: ProtocolValidationError };

export function validateMessage<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: { method: string; part: 'params' | 'result'; origin: MessageOrigin },
): Validated<z.output<S>> {
  // What the daemon sends is read with open enums (versioning.md#open-enums).
  const parsed = where.origin === 'daemon' ? parseOpen(schema, value) : schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    error: new ProtocolValidationError(where.method, where.part, where.origin, parsed.error.issues),
  };
}
