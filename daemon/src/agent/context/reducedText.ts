/**
 * The shortened forms of text the engine gives the model instead of the
 * original: a reduced tool result (head and tail), an offloaded one (a
 * preview), a trimmed user message. Each ends with a marker saying what was
 * left out and, for tool results, where the full text is kept.
 */

/** Characters kept of a reduced result: its start and its end say the most. */
const REDUCED_HEAD_CHARS = 400;
const REDUCED_TAIL_CHARS = 200;
/** Characters of an offloaded result shown in place, at most. */
const OFFLOAD_PREVIEW_CHARS = 2_000;
/** Room the offload marker takes, in UTF-8 bytes (two ids and the figures). */
const OFFLOAD_MARKER_BYTES = 400;
/** A UTF-16 code unit is at most 3 bytes of UTF-8. */
const MAX_BYTES_PER_CHAR = 3;

function cut(text: string, end: number): string {
  // Never split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

function reducedMarker(tokens: number, artifactId: string): string {
  return `[reduced: ${tokens} tokens, full result kept as artifact ${artifactId}]`;
}

export function reducedVersion(content: string, tokens: number, artifactId: string): string {
  const marker = reducedMarker(tokens, artifactId);
  if (content.length <= REDUCED_HEAD_CHARS + REDUCED_TAIL_CHARS) return `${content}\n${marker}`;
  const tailStart = content.length - REDUCED_TAIL_CHARS;
  const tailFrom = /[\uDC00-\uDFFF]/.test(content[tailStart] ?? '') ? tailStart + 1 : tailStart;
  return `${cut(content, REDUCED_HEAD_CHARS)}\n[…]\n${content.slice(tailFrom)}\n${marker}`;
}

/** The preview stays within `maxBytes` (the tool_result_bytes budget), marker included. */
export function offloadedVersion(
  content: string,
  tokens: number,
  artifactId: string,
  maxBytes: number,
): string {
  const room = Math.floor((maxBytes - OFFLOAD_MARKER_BYTES) / MAX_BYTES_PER_CHAR);
  const shown = cut(content, Math.max(0, Math.min(OFFLOAD_PREVIEW_CHARS, room)));
  return (
    `${shown}\n[offloaded: ${tokens} tokens, ${content.length} characters; the first ${shown.length} are shown. ` +
    `The full result is kept as artifact ${artifactId}: read the rest with read_artifact {"id": "${artifactId}", "offset": ${shown.length}}]`
  );
}

const OFFLOADED = /\n\[offloaded: (\d+) tokens, [^\]]*? artifact (art_[\w-]+): read the rest/;

/** The artifact an offloaded result's marker names, if the text is one. */
export function offloadedArtifact(content: string): { id: string; tokens: number } | undefined {
  const match = OFFLOADED.exec(content.slice(-400));
  return match ? { id: match[2]!, tokens: Number(match[1]) } : undefined;
}

function trimmedMarker(tokens: number, keptChars: number, window: number): string {
  return `\n[trimmed: this message is ${tokens} tokens, too long for the model's context window of ${window} tokens; only its first ${keptChars} characters are shown]`;
}

/** The first `keptChars` characters and the marker. */
export function trimmedMessage(
  content: string,
  keptChars: number,
  tokens: number,
  window: number,
): string {
  const kept = cut(content, keptChars);
  return kept + trimmedMarker(tokens, kept.length, window);
}
