/** Tool results as the model sees them: normalised, and truncated to the byte budget. */
import type { ApprovalOutcome } from '@arbor/protocol';
import type { ToolImage } from '../providers/provider.js';
import type { ToolOutput } from '../tools/tool.js';

export interface ToolResult {
  content: string;
  isError: boolean;
  images?: readonly ToolImage[];
  /** How the permission gate decided the call (tool-result metadata). */
  approval?: ApprovalOutcome;
}

export function normalizeOutput(output: ToolOutput): ToolResult {
  if (typeof output === 'string') return { content: output, isError: false };
  return {
    content: String(output.content),
    isError: output.isError === true,
    ...(output.images && output.images.length > 0 ? { images: output.images } : {}),
  };
}

export function truncationMarker(keptBytes: number, totalBytes: number): string {
  return `\n[… truncated: ${keptBytes} of ${totalBytes} bytes shown]`;
}

/** Keeps at most `limitBytes` UTF-8 bytes, marker included, cut at a code-point boundary. */
export function truncateResult(content: string, limitBytes: number): string {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes <= limitBytes) return content;
  // The marker's own size depends on the kept size; reserve room for its longest form.
  const room = Math.max(
    0,
    limitBytes - Buffer.byteLength(truncationMarker(limitBytes, bytes), 'utf8'),
  );
  let keptBytes = 0;
  let end = 0;
  for (const point of content) {
    const size = Buffer.byteLength(point, 'utf8');
    if (keptBytes + size > room) break;
    keptBytes += size;
    end += point.length;
  }
  return content.slice(0, end) + truncationMarker(keptBytes, bytes);
}
