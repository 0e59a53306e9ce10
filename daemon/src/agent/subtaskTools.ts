/**
 * run_subtask and finish_subtask. Both are intercepted by the loop (they need
 * the loop's state: depth, budget, tree); their Tool objects only carry the
 * schema the model sees. finish_subtask exists only in a structured subtask,
 * with the parent's `output_schema` as its input schema, validated with Ajv.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { z } from 'zod';
import type { ToolDefinition } from '../providers/provider.js';
import { defineTool } from '../tools/tool.js';

export const RUN_SUBTASK = 'run_subtask';
export const FINISH_SUBTASK = 'finish_subtask';
/** Invalid finish_subtask payloads fed back before the subtask fails with schema_not_satisfied. */
export const MAX_SCHEMA_RETRIES = 3;

export const RunSubtaskArgs = z.object({
  title: z.string().min(1).max(500).describe('Short label shown to the user'),
  instructions: z
    .string()
    .min(1)
    .describe('Everything the subtask needs to know; it sees nothing else'),
  tools: z.array(z.string()).optional().describe('Restrict the subtask to these of your tools'),
  output_schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'JSON Schema of a structured result; the subtask must return it through finish_subtask',
    ),
});
export type RunSubtaskArgs = z.infer<typeof RunSubtaskArgs>;

export const runSubtaskTool = defineTool({
  name: RUN_SUBTASK,
  description:
    'Runs a subtask with its own fresh context and returns its result. Several calls in one turn run concurrently.',
  input: RunSubtaskArgs,
  category: 'read',
  execute: () => {
    throw new Error('run_subtask is executed by the agent loop');
  },
});

export function finishSubtaskDefinition(outputSchema: Record<string, unknown>): ToolDefinition {
  return {
    name: FINISH_SUBTASK,
    description: 'Ends this subtask with its structured result. The arguments are the result.',
    inputSchema: outputSchema,
  };
}

/** Compiles an output_schema; a string explains why it is not a usable JSON Schema. */
export function compileOutputSchema(schema: Record<string, unknown>): ValidateFunction | string {
  try {
    // One Ajv per schema: schemas come from the model, so nothing is cached across subtasks.
    return new Ajv({ allErrors: true, strict: false }).compile(schema);
  } catch (error) {
    return `output_schema is not a valid JSON Schema: ${(error as Error).message}`;
  }
}

export function describeErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`,
  );
}
