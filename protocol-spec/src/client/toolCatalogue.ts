/**
 * ToolCatalogue: what a client knows about the tools of a session from
 * `tools/list` (tools.md#tools-list) — each tool's category and the shape of
 * its arguments — so a tool card shows what the call is about (the file, the
 * command, the pattern) from the tool's own schema instead of guessing by name.
 * A daemon without the capability gives an empty catalogue: cards fall back
 * to the raw argument preview. Loaded with loadToolCatalogue (toolsList.ts);
 * this module has no wire and no schemas (client/view.ts).
 */
import type { ToolCategory } from '../base.js';
import type { ToolInfo, ToolServer } from '../tools.js';

export class ToolCatalogue {
  readonly #tools = new Map<string, ToolInfo>();
  /** The session's tool servers (tools.md#tools-list-servers); empty when the daemon reports none. */
  readonly servers: readonly ToolServer[];

  constructor(tools: readonly ToolInfo[] = [], servers: readonly ToolServer[] = []) {
    for (const tool of tools) this.#tools.set(tool.name, tool);
    this.servers = servers;
  }

  get size(): number {
    return this.#tools.size;
  }

  get(name: string): ToolInfo | undefined {
    return this.#tools.get(name);
  }

  /** The listed tools, in the order the daemon listed them. */
  list(): ToolInfo[] {
    return [...this.#tools.values()];
  }

  /** The servers whose tools are missing (not ready), for a client to say why. */
  unavailableServers(): ToolServer[] {
    return this.servers.filter((server) => server.status !== 'ready');
  }

  /** The tool's category; undefined when the catalogue does not know it. */
  categoryOf(name: string): ToolCategory | undefined {
    return this.#tools.get(name)?.category;
  }

  /**
   * What a call is about, in one line: the value of the first string argument
   * its schema requires (`path`, `command`, `pattern`, `title`…), else the
   * first string argument given. undefined when the tool is unknown or the
   * preview is not a whole JSON object (it may be cut short), so the caller
   * shows the raw preview instead.
   */
  summarize(name: string, argsPreview: string | undefined): string | undefined {
    const schema = this.#tools.get(name)?.inputSchema;
    if (!schema || argsPreview === undefined) return undefined;
    let args: unknown;
    try {
      args = JSON.parse(argsPreview);
    } catch {
      return undefined;
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined;
    const given = args as Record<string, unknown>;
    const properties = (schema['properties'] ?? {}) as Record<string, { type?: unknown }>;
    const required = new Set(Array.isArray(schema['required']) ? schema['required'] : []);
    const strings = Object.keys(properties).filter(
      (key) => properties[key]?.type === 'string' && typeof given[key] === 'string',
    );
    const key = strings.find((k) => required.has(k)) ?? strings[0];
    const value = key === undefined ? undefined : (given[key] as string).trim();
    return value ? value.split('\n', 1)[0] : undefined;
  }
}
