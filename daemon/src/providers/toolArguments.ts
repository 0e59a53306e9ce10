/**
 * Streamed tool arguments to a value. Empty arguments (a call without
 * parameters) are `{}`; text that is not JSON stays a string, so the tool's
 * argument check rejects it with a message the model can act on.
 */
export function parseArguments(text: string): unknown {
  if (text.trim().length === 0) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
