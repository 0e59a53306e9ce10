/** The execution tree: one node per turn, tool call and subtask, sent as upserts. */
import { z } from 'zod';
import {
  Cost,
  NodeId,
  NonNegativeInt,
  Timestamp,
  ToolCallId,
  TurnId,
  Usage,
  message,
  sessionEvent,
} from './base.js';
import { ApprovalOutcome } from './approvalTypes.js';
import { TurnChanges } from './checkpoint.js';
import { DecidingRule } from './permissionRules.js';
import { notification } from './descriptor.js';

/** Longest args/result preview the daemon sends, in Unicode code points. */
export const PREVIEW_MAX_CHARS = 500;
const Preview = z.string().max(PREVIEW_MAX_CHARS);
/** Longest tool output a node carries: the end of what the tool wrote, in Unicode code points. */
export const OUTPUT_MAX_CHARS = 4_000;

export const NodeKind = z
  .enum(['turn', 'tool', 'subtask', 'compaction', 'hook', 'planner'])
  .describe(
    'compaction (protocol 1.1): earlier conversation summarized by a model call; hook (protocol 1.1): a user-configured lifecycle hook command run; planner (protocol 1.1): the planner pre-pass of an agent profile, before the first executor model call',
  );
export type NodeKind = z.infer<typeof NodeKind>;

export const NodeStatus = z
  .enum([
    'pending',
    'awaiting_approval',
    'running',
    'done',
    'error',
    'cancelled',
    'denied',
    'blocked',
  ])
  .describe('pending/awaiting_approval/running are live; the others are final');
export type NodeStatus = z.infer<typeof NodeStatus>;
export const FINAL_NODE_STATUSES: readonly NodeStatus[] = [
  'done',
  'error',
  'cancelled',
  'denied',
  'blocked',
];

export const NodeProgress = message({
  progress: z.number().nonnegative().describe('Work done so far, in the unit of total'),
  total: z.number().positive().optional().describe('Work in all, when known'),
  message: z.string().max(PREVIEW_MAX_CHARS).optional().describe('What is being done now'),
}).describe('How far a running node is (protocol 1.1)');
export type NodeProgress = z.infer<typeof NodeProgress>;

/** Most injected arguments one node carries: a profile names few, the rest is noise. */
export const INJECTED_ARGS_MAX = 32;
export const InjectedArgs = z
  .record(z.string().min(1).max(64), Preview)
  .refine((args) => Object.keys(args).length <= INJECTED_ARGS_MAX, {
    message: `at most ${INJECTED_ARGS_MAX} injected arguments`,
  })
  .describe(
    'Arguments the agent profile asks the model to give with every tool call (e.g. a reason), never passed to the tool; values are previews, cut at 500 characters (protocol 1.1)',
  );
export type InjectedArgs = z.infer<typeof InjectedArgs>;

/** A workspace instructions file the model had in a turn (AGENTS.md, .arbor/instructions.md). */
export const InstructionsFile = message({
  path: z.string().min(1).max(500).describe('Relative to the workspace root, with / separators'),
  chars: NonNegativeInt.describe('How many characters of it the model got'),
  truncated: z
    .boolean()
    .optional()
    .describe('true: the file was longer than the daemon gives the model; it got the start'),
}).describe('An instructions file the model had in the turn (protocol 1.1)');
export type InstructionsFile = z.infer<typeof InstructionsFile>;

export const ExecutionTreeNode = message({
  id: NodeId,
  parentId: NodeId.nullable().describe('null only for the turn node'),
  kind: NodeKind,
  name: z
    .string()
    .min(1)
    .max(200)
    .describe('Tool name; "turn" for the turn node; "run_subtask" for subtasks'),
  title: z.string().max(500).optional().describe('Subtask title or a short label'),
  status: NodeStatus,
  depth: z.number().int().min(0).max(16).describe('0 for the turn and its direct tool calls'),
  argsPreview: Preview.optional(),
  resultPreview: Preview.optional(),
  isError: z.boolean().optional(),
  startedAt: Timestamp.optional(),
  completedAt: Timestamp.optional().describe('When the node got its final status (protocol 1.1)'),
  durationMs: NonNegativeInt.optional(),
  approval: ApprovalOutcome.optional().describe('How the permission gate decided this call'),
  approvalId: ToolCallId.optional().describe(
    'The toolCallId of the tool/approvalRequest that asked the user about this call; absent when nobody was asked (protocol 1.1)',
  ),
  injectedArgs: InjectedArgs.optional(),
  instructions: z
    .array(InstructionsFile)
    .max(64)
    .optional()
    .describe(
      'Only on a turn node: the workspace instructions files the model had in the turn (protocol 1.1)',
    ),
  rule: DecidingRule.optional().describe(
    'The permission rule that decided this call, when one did (protocol 1.1)',
  ),
  usage: Usage.optional().describe('Tokens spent inside this node, rolled up from its children'),
  cost: Cost.optional(),
  output: z
    .string()
    .max(OUTPUT_MAX_CHARS)
    .optional()
    .describe(
      "A running tool's output so far, its last 4,000 characters (a command's stdout and stderr as they arrive); kept when it ends (protocol 1.1)",
    ),
  artifactId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'The whole result, kept as an artifact of the session because it was too large for the model, which got its start (protocol 1.1)',
    ),
  changes: TurnChanges.optional().describe(
    'Only on a turn node, in its final upsert: the workspace files the turn changed (protocol 1.1, daemon.checkpoints)',
  ),
  progress: NodeProgress.nullable()
    .optional()
    .describe('How far the running node is; null once it is not running (protocol 1.1)'),
});
export type ExecutionTreeNode = z.infer<typeof ExecutionTreeNode>;

export const ExecutionTreeSnapshot = message({
  version: z.literal(1),
  nodes: z.array(ExecutionTreeNode).describe('Flat list, parents before children'),
});
export type ExecutionTreeSnapshot = z.infer<typeof ExecutionTreeSnapshot>;

export const TreeUpdateParams = message({
  ...sessionEvent,
  turnId: TurnId,
  nodes: z
    .array(ExecutionTreeNode)
    .min(1)
    .describe('Upserts by id: optional fields absent here keep their earlier value'),
});
export type TreeUpdateParams = z.infer<typeof TreeUpdateParams>;

export const TreeUpdate = notification({
  method: 'tree/update',
  direction: 'daemonToClient',
  params: TreeUpdateParams,
  summary: 'Upserts execution-tree nodes; a parent is always announced before its children.',
  specRef: 'tree.md#tree-update',
});
