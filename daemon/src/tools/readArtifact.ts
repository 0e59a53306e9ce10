/**
 * read_artifact: pages through a tool result the context engine kept out of
 * the model's context (offloaded when it was too large, or reduced later).
 * Offsets and lengths count characters (UTF-16 code units) of the full text.
 */
import { z } from 'zod';
import { defineTool } from './tool.js';

export const READ_ARTIFACT = 'read_artifact';
/** Characters returned when the call names no length, and the most one call returns. */
export const ARTIFACT_PAGE_CHARS = 8_000;
export const MAX_ARTIFACT_PAGE_CHARS = 32_000;

export const readArtifactTool = defineTool({
  name: READ_ARTIFACT,
  description:
    'Reads part of an artifact: a tool result too large to keep in the conversation, named by its id in a [reduced: …] or [offloaded: …] marker. Page through it with offset and length (characters).',
  input: z.object({
    id: z.string().min(1).describe('The artifact id, e.g. art_…'),
    offset: z.number().int().nonnegative().default(0).describe('First character to read'),
    length: z
      .number()
      .int()
      .positive()
      .max(MAX_ARTIFACT_PAGE_CHARS)
      .default(ARTIFACT_PAGE_CHARS)
      .describe('How many characters to read'),
  }),
  category: 'read',
  execute: ({ id, offset, length }, { artifacts }) => {
    const artifact = artifacts?.get(id);
    if (artifact === undefined) {
      return { content: `No artifact "${id}" in this session.`, isError: true };
    }
    const total = artifact.content.length;
    if (offset >= total && total > 0) {
      return {
        content: `Offset ${offset} is past the end of artifact ${id} (${total} characters).`,
        isError: true,
      };
    }
    // Never split a surrogate pair at either end of the page.
    const start = offset > 0 && isLowSurrogate(artifact.content, offset) ? offset - 1 : offset;
    let end = Math.min(total, start + length);
    if (end < total && isLowSurrogate(artifact.content, end)) end -= 1;
    const more =
      end < total ? `; more: read_artifact {"id": "${id}", "offset": ${end}}` : '; this is the end';
    return `[artifact ${id}: characters ${start}–${end} of ${total}${more}]\n${artifact.content.slice(start, end)}`;
  },
});

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}
