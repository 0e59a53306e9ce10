/**
 * Observable MUST sentences no check judges yet: the suite's open debt,
 * published on the coverage page as "not yet judged". Remove an entry when a
 * check cites the anchor (or move it to unobservable/ with a reason); the
 * coverage test fails on a stale entry.
 */
export const GAPS: readonly string[] = [
  'tree.md#tree-planner-node',
  'tree.md#tree-planner-children',
  'plan.md#plan-planner-update',
  'plan.md#plan-planner-isolated',
  'subtasks.md#subtasks-parallel-cap',
  'subtasks.md#subtasks-parallel-entries',
  'subtasks.md#subtasks-parallel-tool-names',
  'subtasks.md#subtasks-parallel-schema',
  'subtasks.md#subtasks-parallel-concurrent',
];
