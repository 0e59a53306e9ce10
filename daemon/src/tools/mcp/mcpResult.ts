/**
 * A tools/call result as the model reads it. Tool results are text here
 * (ToolOutput), so content blocks the model cannot get as text — images,
 * audio, binary resources — become a one-line note saying what was left out.
 * `structuredContent` is given as JSON when the server sent no text with it
 * (servers are asked to send its JSON as text too, which is then enough).
 * Everything is redacted of the daemon's secrets, the servers' own included.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { daemonSecrets } from '../../security/secretRedactor.js';
import type { ToolOutput } from '../tool.js';

export function mcpResultOutput(result: CallToolResult): ToolOutput {
  const parts = result.content.map(describeBlock);
  const hasText = result.content.some((block) => block.type === 'text');
  if (result.structuredContent !== undefined && !hasText)
    parts.push(JSON.stringify(result.structuredContent));
  const content = daemonSecrets.redact(parts.join('\n') || '(no content)');
  return result.isError === true ? { content, isError: true } : content;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes: not shown, this model gets text only]`;
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
