/**
 * todo_write (category read): the agent keeps its plan as a todo list; each
 * call replaces the whole list and goes out to every attached client as
 * `plan/update` (plan.md).
 */
import { Methods } from '@arbor/protocol';
import { z } from 'zod';
import { defineTool, type Tool } from '../tool.js';

const TodoEntry = z.object({
  id: z.string().min(1).max(200).describe('Stable id of the step across updates'),
  content: z.string().min(1).max(2000),
  status: z.enum(['pending', 'in_progress', 'completed', 'cancelled']),
});

export const todoWriteTool = defineTool({
  name: 'todo_write',
  description:
    'Keeps your plan as a todo list the user sees. Each call replaces the whole list: send every step with its status. An empty list clears the plan.',
  input: z.object({ todos: z.array(TodoEntry).max(200) }),
  category: 'read',
  lock: 'plan',
  execute: ({ todos }, ctx) => {
    const ids = new Set(todos.map((t) => t.id));
    if (ids.size !== todos.length)
      return { content: 'Every step needs a distinct id.', isError: true };
    ctx.emit(Methods.PlanUpdate, { turnId: ctx.turnId, entries: todos });
    const done = todos.filter((t) => t.status === 'completed').length;
    return `Plan updated: ${todos.length} step(s), ${done} completed.`;
  },
}) as Tool;
