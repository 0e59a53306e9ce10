/**
 * Messages shaped as responses but invalid (both `result` and `error`, a
 * malformed `error`, an unusable `id`) are never answered, by either role
 * (transport.md#transport-invalid-response): the harness sends them for ids
 * it never used, then proves the connection still works.
 */
import type { Connection, ResponseMessage } from '../harness/connection.js';

/** Invalid responses, each naming an id the peer never sent (or none usable). */
const INVALID_RESPONSES = [
  '{"jsonrpc":"2.0","id":"conformance-both","result":{"decision":"allow"},"error":{"code":-32603,"message":"and an error"}}',
  '{"jsonrpc":"2.0","id":"conformance-bad-error","error":"not an object"}',
  '{"jsonrpc":"2.0","id":{"not":"an id"},"result":{},"error":{"code":1,"message":"x"}}',
] as const;

const USABLE_IDS = ['conformance-both', 'conformance-bad-error'];
/** The ids an answer to them would carry (null: the one without a usable id). */
const STRAY_IDS: ReadonlySet<unknown> = new Set([...USABLE_IDS, null]);

/**
 * Sends the invalid responses, then `probe` (a request the peer must answer);
 * returns what went wrong: an answer to one of them, or no answer to the probe.
 */
export async function sendInvalidResponses(
  conn: Connection,
  probe: () => Promise<ResponseMessage | undefined>,
): Promise<string | undefined> {
  const from = conn.messages.length;
  // An answer to them is judged here, not as a response to a request never sent.
  for (const id of USABLE_IDS) conn.tolerate(id);
  for (const raw of INVALID_RESPONSES) conn.sendRaw(raw);
  const answer = await probe();
  if (!answer) return 'after the invalid responses the probe request got no answer';
  await new Promise((r) => setTimeout(r, 100));
  const answered = conn.messages
    .slice(from)
    .filter((m) => m.kind === 'response' && STRAY_IDS.has((m.message as ResponseMessage).id));
  if (answered.length === 0) return undefined;
  return `a message shaped as a response was answered: ${JSON.stringify(answered[0]!.message).slice(0, 200)}`;
}
