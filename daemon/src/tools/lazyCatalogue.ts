/**
 * The tool catalogue, loaded on first use: the daemon starts without the
 * agent and its tools, and the first tools/list loads them as the first
 * chat/send does (server/startDaemon.ts lazyAgent). Type imports only, so
 * importing this module loads nothing.
 */
import type { ToolCatalogue, ToolCatalogueOptions, ToolCatalogueSource } from './catalogue.js';

/** `load` resolves once the agent is loaded, with what the catalogue is built from. */
export function lazyToolCatalogue(load: () => Promise<ToolCatalogueOptions>): ToolCatalogueSource {
  let pending: Promise<ToolCatalogue> | undefined;
  return {
    load: () =>
      (pending ??= Promise.all([load(), import('./catalogue.js')])
        .then(([options, catalogue]) => new catalogue.ToolCatalogue(options))
        .catch((error: unknown) => {
          pending = undefined; // retry on the next request, like the agent itself
          throw error;
        })),
  };
}
