/**
 * The model's questions (ask_user) as ACP requests. An editor that offers
 * form elicitation (`clientCapabilities.elicitation.form`) gets one
 * `elicitation/create` with a single `answer` field: a choice of the options
 * when the answer must be one of them, free text otherwise. An editor without
 * it gets the options as a `session/request_permission` (one option per
 * answer, plus "Skip"); a free-text question it cannot show is dismissed, and
 * the model goes on without an answer. A question that ends without this
 * editor's answer withdraws the request, so the editor closes its prompt.
 */
import type { QuestionRequestParams } from '@arbor/protocol';
import type { Disposable, PromptKey, QuestionQueue } from '@arbor/protocol/client';
import type {
  ClientCapabilities,
  CreateElicitationRequest,
  CreateElicitationResponse,
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';

const SKIP = 'skip';
const optionId = (index: number) => `answer:${index}`;

export interface QuestionBridgeOptions {
  sessionId: string;
  questions: QuestionQueue;
  /** What the editor advertised in initialize. */
  capabilities: ClientCapabilities | undefined;
  /** The ask_user call the question belongs to, as the editor shows it. */
  describe(request: QuestionRequestParams): ToolCallUpdate;
  elicit(
    request: CreateElicitationRequest,
    cancel: AbortSignal,
  ): Promise<CreateElicitationResponse>;
  ask(request: RequestPermissionRequest, cancel: AbortSignal): Promise<RequestPermissionResponse>;
  log(message: string): void;
}

export class QuestionBridge implements Disposable {
  readonly #asking = new Map<PromptKey, AbortController>();
  readonly #subscriptions: Disposable[];

  constructor(private readonly options: QuestionBridgeOptions) {
    const { questions } = options;
    this.#subscriptions = [
      questions.on('added', ({ key, request }) => void this.#ask(key, request)),
      questions.on('removed', ({ entry }) => this.#asking.get(entry.key)?.abort()),
    ];
  }

  /** Asks the questions that were already waiting when the session was opened (session/load mid-turn). */
  askAwaiting(): void {
    for (const { key, request } of this.options.questions.awaiting()) {
      if (!this.#asking.has(key)) void this.#ask(key, request);
    }
  }

  dispose(): void {
    for (const subscription of this.#subscriptions.splice(0)) subscription.dispose();
    for (const asking of this.#asking.values()) asking.abort();
  }

  async #ask(key: PromptKey, request: QuestionRequestParams): Promise<void> {
    const { options } = this;
    const withdraw = new AbortController();
    this.#asking.set(key, withdraw);
    let answer: string | undefined;
    try {
      if (options.capabilities?.elicitation?.form) {
        answer = await this.#elicit(request, withdraw.signal);
      } else if ((request.options ?? []).length > 0) {
        answer = await this.#choose(request, withdraw.signal);
      } else {
        options.log('the editor cannot show a free-text question (no form elicitation)');
      }
    } catch (error) {
      if (withdraw.signal.aborted) return;
      options.log(`asking the question failed: ${String(error)}`);
    } finally {
      this.#asking.delete(key);
    }
    if (withdraw.signal.aborted) return;
    // No answer: dismissed, so the daemon can go on (questions.md#questions-client-answer).
    if (answer === undefined || answer === '') options.questions.cancel(key);
    else options.questions.decide(key, answer);
  }

  async #elicit(request: QuestionRequestParams, cancel: AbortSignal): Promise<string | undefined> {
    const choices = request.options ?? [];
    const field =
      !request.freeText && choices.length > 0
        ? {
            type: 'string' as const,
            title: 'Answer',
            oneOf: choices.map((choice) => ({
              const: choice.label,
              title: choice.label,
              ...(choice.description !== undefined && { description: choice.description }),
            })),
          }
        : {
            type: 'string' as const,
            title: 'Answer',
            minLength: 1,
            ...(choices.length > 0 && {
              description: `For example: ${choices.map((choice) => choice.label).join(' · ')}`,
            }),
          };
    const response = await this.options.elicit(
      {
        mode: 'form',
        sessionId: this.options.sessionId,
        toolCallId: this.options.describe(request).toolCallId,
        message: request.question,
        requestedSchema: { type: 'object', properties: { answer: field }, required: ['answer'] },
      },
      cancel,
    );
    if (response.action !== 'accept') return undefined;
    const value = (response as { content?: Record<string, unknown> | null }).content?.['answer'];
    return typeof value === 'string' ? value : undefined;
  }

  async #choose(request: QuestionRequestParams, cancel: AbortSignal): Promise<string | undefined> {
    const choices = request.options ?? [];
    const permissionOptions: PermissionOption[] = [
      ...choices.map((choice, index) => ({
        optionId: optionId(index),
        name: choice.label,
        kind: 'allow_once' as const,
      })),
      { optionId: SKIP, name: 'Skip', kind: 'reject_once' },
    ];
    const response = await this.options.ask(
      {
        sessionId: this.options.sessionId,
        toolCall: { ...this.options.describe(request), title: request.question },
        options: permissionOptions,
        _meta: { arbor: { question: request.question, options: choices } },
      },
      cancel,
    );
    if (response.outcome.outcome !== 'selected') return undefined;
    const picked = response.outcome.optionId;
    return choices.find((_, index) => optionId(index) === picked)?.label;
  }
}
