/**
 * Questions (protocol 1.1): the model's `ask_user` tool asks the session's
 * controllers a question; the first valid answer is the tool's result.
 * The lifecycle is the approvals' (first answer wins, re-sent on attach,
 * cancelled with the turn), so a client that handles one handles the other.
 */
import { z } from 'zod';
import { NodeId, SessionId, ToolCallId, TurnId, message, sessionEvent } from './base.js';
import { notification, request } from './descriptor.js';
import { ANSWER_MAX_CHARS } from './limits.js';

export { ANSWER_MAX_CHARS };
export const QUESTION_MAX_CHARS = 4_000;
export const MAX_QUESTION_OPTIONS = 12;

export const QuestionOption = message({
  label: z.string().min(1).max(200).describe('What the user picks; the answer when picked'),
  description: z.string().max(500).optional().describe('What picking it means, for the user'),
});
export type QuestionOption = z.infer<typeof QuestionOption>;

export const QuestionRequestParams = message({
  sessionId: SessionId,
  turnId: TurnId,
  nodeId: NodeId,
  toolCallId: ToolCallId,
  question: z.string().min(1).max(QUESTION_MAX_CHARS).describe('The question, for the user'),
  options: z
    .array(QuestionOption)
    .max(MAX_QUESTION_OPTIONS)
    .optional()
    .describe('Suggested answers; absent or empty: a free-text question'),
  freeText: z
    .boolean()
    .describe(
      'Whether an answer other than an option label is accepted (always true without options)',
    ),
});
export type QuestionRequestParams = z.infer<typeof QuestionRequestParams>;

export const QuestionRequestResult = message({
  answer: z
    .string()
    .min(1)
    .max(ANSWER_MAX_CHARS)
    .describe("The user's answer: an option's label, or their own words when freeText"),
});
export type QuestionRequestResult = z.infer<typeof QuestionRequestResult>;

export const QuestionRequest = request({
  method: 'tool/question',
  direction: 'daemonToClient',
  params: QuestionRequestParams,
  result: QuestionRequestResult,
  capability: 'client.questions',
  summary: "Asks a controller client the model's question (ask_user); the first valid answer wins.",
  specRef: 'questions.md#question-request',
});

export const QuestionOutcome = z
  .enum(['answered', 'unanswered', 'timed_out', 'cancelled'])
  .describe('How a question ended');
export type QuestionOutcome = z.infer<typeof QuestionOutcome>;

export const QuestionResolvedParams = message({
  ...sessionEvent,
  turnId: TurnId,
  toolCallId: ToolCallId,
  outcome: QuestionOutcome,
  answer: z
    .string()
    .max(ANSWER_MAX_CHARS)
    .optional()
    .describe('The answer that applied, when a client answered'),
  answeredBy: z.string().optional().describe('clientId of the answering client'),
});
export type QuestionResolvedParams = z.infer<typeof QuestionResolvedParams>;

export const QuestionResolved = notification({
  method: 'tool/questionResolved',
  direction: 'daemonToClient',
  params: QuestionResolvedParams,
  summary: 'Tells every attached client how a question ended, so other question cards close.',
  specRef: 'questions.md#question-resolved',
});
