/**
 * QuestionBroker: asks a session's controllers the model's questions
 * (`ask_user`) and ends each exactly once — by the first valid answer, every
 * controller failing to give one, the timeout or the turn's cancellation
 * (questions.md#question-lifecycle). The asking is ControllerAsks', shared
 * with approvals; what counts as an answer and the `tool/questionResolved`
 * broadcast are the broker's.
 */
import {
  Methods,
  QuestionRequestResult,
  type NotificationDescriptor,
  type ParamsOf,
  type QuestionOutcome,
  type QuestionRequestParams,
} from '@arbor/protocol';
import { ControllerAsks, type AskEnd, type AskPeer } from '../session/asks/controllerAsks.js';
import type { TurnWaits } from '../session/asks/turnWaits.js';

/** A controller connection that answers `tool/question`. */
export interface QuestionPeer extends AskPeer {
  /** Sends `tool/question`; rejects on an error response or a closed connection. */
  askQuestion(params: QuestionRequestParams, cancel: AbortSignal): Promise<unknown>;
}

export interface QuestionBrokerHost {
  /** Controllers attached right now that negotiated `client.questions`. */
  controllers(): QuestionPeer[];
  isController(clientId: string): boolean;
  emit<D extends NotificationDescriptor>(
    descriptor: D,
    params: Omit<ParamsOf<D>, 'sessionId' | 'seq'>,
  ): void;
  waits: TurnWaits;
  timeoutMs: number;
}

/** How a question ended, as `tool/questionResolved` reports it. */
export interface QuestionEnd {
  outcome: QuestionOutcome;
  answer?: string;
  answeredBy?: string;
}

export class QuestionBroker {
  private readonly asks: ControllerAsks<QuestionRequestParams, string, never, null, QuestionPeer>;

  constructor(private readonly host: QuestionBrokerHost) {
    this.asks = new ControllerAsks({
      controllers: () => host.controllers(),
      isController: (clientId) => host.isController(clientId),
      send: (peer, params, cancel) => peer.askQuestion(params, cancel),
      validAnswer,
      ended: (params, end) => {
        const ended = questionEnd(end);
        host.emit(Methods.QuestionResolved, {
          turnId: params.turnId,
          toolCallId: params.toolCallId,
          ...ended,
        });
      },
      waits: host.waits,
      timeoutMs: host.timeoutMs,
    });
  }

  /** Params of every pending question, for attach snapshots. */
  pending(): QuestionRequestParams[] {
    return this.asks.pending();
  }

  async ask(params: QuestionRequestParams, signal: AbortSignal): Promise<QuestionEnd> {
    return questionEnd(await this.asks.ask(params, { signal, tag: null }));
  }

  controllerAttached(peer: QuestionPeer): void {
    this.asks.controllerAttached(peer);
  }

  controllerLeft(peer: AskPeer): void {
    this.asks.controllerLeft(peer);
  }
}

/** questions.md#questions-valid-answer: with options only, the answer is one of their labels. */
function validAnswer(result: unknown, params: QuestionRequestParams): string | undefined {
  const parsed = QuestionRequestResult.safeParse(result);
  if (!parsed.success) return undefined;
  const { answer } = parsed.data;
  if (!params.freeText && !(params.options ?? []).some((option) => option.label === answer)) {
    return undefined;
  }
  return answer;
}

function questionEnd(end: AskEnd<string, never>): QuestionEnd {
  switch (end.kind) {
    case 'answered':
      return { outcome: 'answered', answer: end.answer, answeredBy: end.clientId };
    case 'noValidAnswer':
    case 'nobody':
      return { outcome: 'unanswered' };
    case 'timedOut':
      return { outcome: 'timed_out' };
    case 'cancelled':
    case 'released':
      return { outcome: 'cancelled' };
  }
}
