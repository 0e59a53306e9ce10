/**
 * Images tools return (an MCP server's screenshot, a chart) go to a model
 * that reads images, in the turn that got them only: a model without vision,
 * a stored transcript and every later turn get the result's text with a note
 * instead, so base64 never piles up in the store or in later requests.
 */
import type { ProviderMessage, ToolImage } from '../../providers/provider.js';

/** What one image costs in a request, roughly: Anthropic counts ~1,600 tokens for a 1.15-megapixel image. */
export const IMAGE_TOKENS = 1_600;

type ToolMessage = ProviderMessage & { role: 'tool' };

export function imagesOf(message: ProviderMessage): readonly ToolImage[] {
  return message.role === 'tool' ? (message.images ?? []) : [];
}

/** The message as text only, saying why its images were left out; unchanged when it has none. */
export function withoutImages(message: ProviderMessage, why: string): ProviderMessage {
  if (message.role !== 'tool' || !message.images?.length) return message;
  const { images, ...text } = message;
  const count = images.length === 1 ? 'an image' : `${images.length} images`;
  return {
    ...text,
    content: `${message.content}\n[${count} left out: ${why}]`,
  } satisfies ToolMessage;
}
