/** Tool results as the model sees them: normalised, and truncated to the byte budget. */
import type { ToolOutput } from '../tools/tool.js';

export interface ToolResult {
  content: string;
  isError: boolean;
}

export function normalizeOutput(output: ToolOutput): ToolResult {
  if (typeof output === 'string') return { content: output, isError: false };
  return { content: String(output.content), isError: output.isError === true };
}

export function truncationMarker(bytes: number, limit: number): string {
  return `\n\n[truncated by Arbor: the result was ${bytes} bytes, over the ${limit}-byte limit]`;
}

/** Keeps at most `limitBytes` UTF-8 bytes, marker included, cutting on a character boundary. */
export function truncateResult(content: string, limitBytes: number): string {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes <= limitBytes) return content;
  const marker = truncationMarker(bytes, limitBytes);
  const room = Math.max(0, limitBytes - Buffer.byteLength(marker, 'utf8'));
  const kept = Buffer.from(content, 'utf8')
    .subarray(0, room)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  return kept + marker;
}
