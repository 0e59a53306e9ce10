/** `tools/list` into a ToolCatalogue (toolCatalogue.ts). */
import { Methods } from '../methods.js';
import type { ArborClient } from './arborClient.js';
import { ToolCatalogue } from './toolCatalogue.js';

/** The session's toolset (or the built-in tools without a session); empty when the daemon cannot list tools. */
export async function loadToolCatalogue(
  client: ArborClient,
  sessionId?: string,
): Promise<ToolCatalogue> {
  const capability = Methods.ToolsList.capability;
  if (capability && !client.hasCapability(capability)) return new ToolCatalogue();
  const { tools, servers } = await client.request(
    Methods.ToolsList,
    sessionId === undefined ? {} : { sessionId },
  );
  return new ToolCatalogue(tools, servers);
}
