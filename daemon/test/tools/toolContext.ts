/** The ToolContext a tool gets when a test calls it directly, outside any turn. */
import { TurnMemory } from '../../src/tools/memory.js';
import type { ToolContext } from '../../src/tools/tool.js';

export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    memory: new TurnMemory(),
    workspaceRoot: '/',
    turnId: 'turn-1',
    nodeId: 'n1',
    toolCallId: 'c1',
    depth: 0,
    emit: () => undefined,
    ...overrides,
  };
}
