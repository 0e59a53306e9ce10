/**
 * The opaque `session/list` cursor: the (updated_at, id) of the last session
 * of a page. The next page starts strictly after it in newest-first order, so
 * paging stays exact while sessions are added (keyset pagination, no OFFSET).
 */
import { StoreError } from './storeError.js';

export interface SessionCursor {
  updatedAt: string;
  id: string;
}

export function encodeSessionCursor(cursor: SessionCursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt, cursor.id]), 'utf8').toString('base64url');
}

export function decodeSessionCursor(text: string): SessionCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string'
  ) {
    return { updatedAt: value[0], id: value[1] };
  }
  throw new StoreError(
    'invalid_cursor',
    'The session/list cursor is not one this daemon produced.',
  );
}
