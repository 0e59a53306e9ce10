/**
 * A tools/call result as the model reads it: text, with images attached
 * (each also named in the text, where it came; the context engine leaves them
 * out with a note for a model that reads no images). Content the model cannot
 * get — audio, binary resources, images of another type or too large — becomes
 * a one-line note saying what was left out. `structuredContent` is given as
 * JSON when the server sent no text with it (servers are asked to send its
 * JSON as text too, which is then enough). Text is redacted of the daemon's
 * secrets, the servers' own included.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { daemonSecrets } from '../../security/secretRedactor.js';
import {
  MAX_IMAGE_BYTES,
  MAX_IMAGES_PER_RESULT,
  MODEL_IMAGE_TYPES,
  type ToolImage,
} from '../../providers/provider.js';
import type { ToolOutput } from '../tool.js';

export function mcpResultOutput(result: CallToolResult): ToolOutput {
  const images: ToolImage[] = [];
  const parts = result.content.map((block) => describeBlock(block, images));
  const hasText = result.content.some((block) => block.type === 'text');
  if (result.structuredContent !== undefined && !hasText)
    parts.push(JSON.stringify(result.structuredContent));
  const content = daemonSecrets.redact(parts.join('\n') || '(no content)');
  if (images.length === 0) return result.isError === true ? { content, isError: true } : content;
  return { content, images, ...(result.isError === true ? { isError: true } : {}) };
}

/** The block as text; an image the model can be given is also added to `images`. */
function describeBlock(block: ContentBlock, images: ToolImage[]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image': {
      const bytes = base64Bytes(block.data);
      const what = `[image ${block.mimeType}, ${bytes} bytes`;
      if (!MODEL_IMAGE_TYPES.has(block.mimeType))
        return `${what}: not shown, not a type models read]`;
      if (bytes > MAX_IMAGE_BYTES) return `${what}: not shown, over ${MAX_IMAGE_BYTES} bytes]`;
      if (images.length >= MAX_IMAGES_PER_RESULT)
        return `${what}: not shown, only ${MAX_IMAGES_PER_RESULT} images per result]`;
      images.push({ mimeType: block.mimeType, data: block.data });
      return `${what}, attached]`;
    }
    case 'audio':
      return `[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes: not shown, models here get no audio]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource)
        return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]\n${resource.text}`;
      return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}, ${base64Bytes(resource.blob)} bytes of binary data: not shown]`;
    }
    case 'resource_link':
      return `[resource link ${block.uri}${block.name ? ` "${block.name}"` : ''}${block.description ? `: ${block.description}` : ''}]`;
    default:
      return `[${(block as { type: string }).type} content: not shown]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
