/** Every result and notification a test receives is checked against the protocol schemas. */
import assert from 'node:assert/strict';
import { findMethod } from '@arbor/protocol';
import type { z } from 'zod';

export function assertValid(schema: z.ZodType, value: unknown, what = 'value'): void {
  const parsed = schema.safeParse(value);
  assert.ok(parsed.success, `${what} does not match the protocol schema: ${parsed.error?.message}`);
}

/** A notification `{method, params}` must match its descriptor's params schema. */
export function assertValidNotification(method: string, params: unknown): void {
  const descriptor = findMethod(method);
  assert.ok(descriptor, `unknown notification ${method}`);
  assertValid(descriptor.params, params, `${method} params`);
}
