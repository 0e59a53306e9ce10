/**
 * ask_user: the model asks the user a question and gets the answer as the
 * tool's result (questions.md#ask-user). It changes nothing, so it is a
 * `read` tool: it runs in plan mode too, where questions help most. Offered
 * only to a turn whose client can show questions (SessionToolsets).
 */
import { MAX_QUESTION_OPTIONS, QUESTION_MAX_CHARS } from '@arbor/protocol';
import { z } from 'zod';
import { defineTool, type ToolOutput } from './tool.js';
import type { QuestionEnd } from '../questions/questionBroker.js';

export const ASK_USER = 'ask_user';

export const askUserTool = defineTool({
  name: ASK_USER,
  description:
    'Asks the user a question and waits for the answer. Use it only when you cannot go on well without a decision or fact that only the user has (an ambiguous requirement, a choice between approaches with real trade-offs), never for what the other tools can find out. Ask one clear question; offer options when the likely answers are few (the user may still answer in their own words unless freeText is false).',
  input: z.object({
    question: z.string().min(1).max(QUESTION_MAX_CHARS).describe('The question, for the user'),
    options: z
      .array(
        z.object({
          label: z.string().min(1).max(200).describe('A short answer the user can pick'),
          description: z.string().max(500).optional().describe('What picking it means'),
        }),
      )
      .max(MAX_QUESTION_OPTIONS)
      .optional()
      .describe('Suggested answers'),
    freeText: z
      .boolean()
      .default(true)
      .describe('Whether the user may answer in their own words instead of picking an option'),
  }),
  category: 'read',
  // One question at a time, in the order the model asked them.
  lock: ASK_USER,
  async execute({ question, options, freeText }, ctx) {
    if (ctx.askUser === undefined) {
      return { content: 'Nobody can be asked in this session.', isError: true };
    }
    const hasOptions = options !== undefined && options.length > 0;
    const end = await ctx.askUser({
      question,
      ...(hasOptions && { options }),
      freeText: freeText || !hasOptions,
    });
    return resultFor(end);
  },
});

function resultFor(end: QuestionEnd): ToolOutput {
  const goOn = 'Go on with your best judgement, and tell the user what you assumed.';
  switch (end.outcome) {
    case 'answered':
      return `The user answered: ${end.answer ?? ''}`;
    case 'timed_out':
      return { content: `The user did not answer in time. ${goOn}`, isError: true };
    case 'cancelled':
      return { content: 'The question was cancelled with the turn.', isError: true };
    default:
      return {
        content: `The user could not be asked or dismissed the question. ${goOn}`,
        isError: true,
      };
  }
}
