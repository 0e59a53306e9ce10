/**
 * Approvals are logged with a digest of the tool arguments, never the
 * arguments: they may hold file contents, commands or secrets. The digest is
 * stable across key order, so the same call always gets the same digest.
 */
import { createHash } from 'node:crypto';

/** sha256 (hex) of the arguments as canonical JSON (object keys sorted, at every depth). */
export function digestArgs(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
      return sorted;
    }
    return v;
  });
}
