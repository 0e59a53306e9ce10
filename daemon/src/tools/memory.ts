/**
 * The turn's shared memory and the memory tools. One TurnMemory per turn,
 * shared by every loop: subtask results land here as `task:<id>`.
 */
import { z } from 'zod';
import { defineTool, type Tool } from './tool.js';

export class TurnMemory {
  private readonly entries = new Map<string, unknown>();

  keys(): string[] {
    return [...this.entries.keys()];
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  read(key: string): unknown {
    return this.entries.get(key);
  }

  write(key: string, value: unknown): void {
    this.entries.set(key, value);
  }

  /** A value as text for the model: strings as they are, anything else as JSON. */
  static render(value: unknown): string {
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

export const memoryList = defineTool({
  name: 'memory_list',
  description:
    "Lists the keys in this turn's shared memory (subtask results are stored as task:<id>).",
  input: z.object({}),
  // Memory tools only touch the turn's own scratch memory: nothing outside the turn changes.
  category: 'read',
  execute: (_args, { memory }) => {
    const keys = memory.keys();
    return keys.length === 0
      ? 'Memory is empty.'
      : keys
          .map((key) => `${key} (${TurnMemory.render(memory.read(key)).length} chars)`)
          .join('\n');
  },
});

export const memoryRead = defineTool({
  name: 'memory_read',
  description: "Reads one entry of this turn's shared memory.",
  input: z.object({ key: z.string().min(1).describe('The key, e.g. task:n3') }),
  category: 'read',
  execute: ({ key }, { memory }) =>
    memory.has(key)
      ? TurnMemory.render(memory.read(key))
      : {
          content: `No memory entry "${key}". Existing keys: ${memory.keys().join(', ') || 'none'}.`,
          isError: true,
        },
});

export const memoryWrite = defineTool({
  name: 'memory_write',
  description: "Stores a value in this turn's shared memory, visible to every subtask of the turn.",
  input: z.object({ key: z.string().min(1), value: z.string() }),
  category: 'read',
  execute: ({ key, value }, { memory }) => {
    memory.write(key, value);
    return `Stored ${key}.`;
  },
});

export const MEMORY_TOOLS: readonly Tool[] = [memoryList, memoryRead, memoryWrite];
