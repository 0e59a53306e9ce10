/**
 * An ACP prompt as the one text `chat/send` takes. Arbor's model input is
 * text: a linked resource becomes a mention of its path (the agent reads it
 * with its tools), an embedded text resource is quoted in full. Images,
 * audio and binary resources are refused rather than dropped (the bridge
 * does not advertise them).
 */
import { fileURLToPath } from 'node:url';
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk';

export function promptText(blocks: readonly ContentBlock[]): string {
  const parts = blocks.map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'resource_link':
        return `@${pathOf(block.uri)}`;
      case 'resource':
        if ('text' in block.resource) {
          return `\n<resource uri="${block.resource.uri}">\n${block.resource.text}\n</resource>\n`;
        }
        throw unsupported(`a binary resource (${block.resource.uri})`);
      default:
        throw unsupported(`${block.type} content`);
    }
  });
  const text = parts.join('');
  if (text.trim() === '') throw RequestError.invalidParams(undefined, 'the prompt is empty');
  return text;
}

function pathOf(uri: string): string {
  return uri.startsWith('file://') ? fileURLToPath(uri) : uri;
}

function unsupported(what: string): RequestError {
  return RequestError.invalidParams(
    undefined,
    `Arbor takes text prompts; ${what} is not supported`,
  );
}
