/**
 * How deep a JSON text nests, found by one linear scan of its bytes before
 * JSON.parse: parsing (and later validating) a body of millions of nested
 * arrays blocks the event loop for seconds and can overflow the stack, so
 * such a body is refused unread (transport.md#transport-max-depth).
 */

/** Deepest nesting of arrays and objects any Arbor message needs, with room to spare. */
export const MAX_JSON_DEPTH = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/** True when `bytes` (UTF-8 JSON) opens more than `limit` arrays/objects at once. */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPEN.has(c)) {
      if (++depth > limit) return true;
    } else if (CLOSE.has(c)) depth--;
  }
  return false;
}
