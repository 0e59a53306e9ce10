/**
 * QuestionQueue: the model's questions (`ask_user`) to one session that have
 * not ended yet (a PromptQueue; see there for the rules). A question ends
 * with `tool/questionResolved` (questions.md#questions-client-resolved).
 */
import type { QuestionOutcome, QuestionRequestParams } from '../question.js';
import { PromptQueue, type PendingPrompt, type PromptEnd } from './promptQueue.js';

/** How a question was resolved (`tool/questionResolved`). */
export interface QuestionResolution {
  outcome: QuestionOutcome;
  answer?: string;
  answeredBy?: string;
}

export type PendingQuestion = PendingPrompt<QuestionRequestParams, string>;
export type QuestionEnd = PromptEnd<QuestionResolution>;

export class QuestionQueue extends PromptQueue<QuestionRequestParams, string, QuestionResolution> {
  /** `tool/questionResolved`: the question ended, wherever it was answered. */
  resolved(params: {
    turnId: string;
    toolCallId: string;
    outcome: QuestionOutcome;
    answer?: string | undefined;
    answeredBy?: string | undefined;
  }): boolean {
    const resolution: QuestionResolution = { outcome: params.outcome };
    if (params.answer !== undefined) resolution.answer = params.answer;
    if (params.answeredBy !== undefined) resolution.answeredBy = params.answeredBy;
    return this.end(params, resolution);
  }
}
