/**
 * Toolbelt composition: the tools one loop may offer the model, by name.
 * Subtasks get a subset of their parent's belt.
 */
import type { Tool } from './tool.js';

export class Toolbelt {
  private readonly byName: ReadonlyMap<string, Tool>;

  constructor(readonly tools: readonly Tool[]) {
    const byName = new Map<string, Tool>();
    for (const tool of tools) {
      if (byName.has(tool.name)) throw new Error(`two tools are named "${tool.name}"`);
      byName.set(tool.name, tool);
    }
    this.byName = byName;
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  /** The tools named, plus the `always` ones; unknown names are returned, not ignored. */
  subset(
    names: readonly string[],
    always: readonly string[] = [],
  ): { belt: Toolbelt } | { unknown: string[] } {
    const unknown = names.filter((name) => !this.byName.has(name));
    if (unknown.length > 0) return { unknown };
    const wanted = new Set([...names, ...always]);
    return { belt: new Toolbelt(this.tools.filter((tool) => wanted.has(tool.name))) };
  }

  without(names: readonly string[]): Toolbelt {
    return new Toolbelt(this.tools.filter((tool) => !names.includes(tool.name)));
  }
}

/** The belt of a turn: built-in tools first, then the ones the daemon adds (workspace, client, MCP). */
export function composeToolbelt(...groups: readonly (readonly Tool[])[]): Toolbelt {
  return new Toolbelt(groups.flat());
}
