/**
 * A value as the spec defines it: members the schema does not know and `_meta`
 * (which a receiver never interprets, versioning.md) removed, so checks that
 * compare two messages never fail a daemon for extensions it may add.
 */
/** Any zod schema; structural, so the suite needs no zod of its own. */
interface Schema {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false };
}

function withoutMeta(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMeta);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== '_meta')
      .map(([key, v]) => [key, withoutMeta(v)]),
  );
}

/** `value` parsed by `schema` (zod objects drop unknown members) without `_meta`; undefined when invalid. */
export function specShape(schema: Schema, value: unknown): unknown {
  const parsed = schema.safeParse(value);
  return parsed.success ? withoutMeta(parsed.data) : undefined;
}
