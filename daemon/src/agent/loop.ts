/**
 * The unified agent loop, the same code at every depth. Each iteration makes
 * one LLM call and runs the tool calls the model emitted; the model decides
 * whether to answer, call tools, or decompose with run_subtask (which recurses
 * into a new AgentLoop one level deeper). The loop ends when the model answers
 * without tools (or, in a structured subtask, calls finish_subtask).
 */
import type { InjectedArgs, Usage } from '@arbor/protocol';
import type { ValidateFunction } from 'ajv';
import { z } from 'zod';
import {
  ProviderError,
  type NativeMessage,
  type ProviderMessage,
  type ProviderToolCall,
  type ToolDefinition,
} from '../providers/provider.js';
import { toolDefinition, type ToolOutput, type UserQuestion } from '../tools/tool.js';
import { knownCategory } from '../permissions/permissionMatrix.js';
import type { QuestionEnd } from '../questions/questionBroker.js';
import type { ResolvedProvider } from '../providers/index.js';
import type { Toolbelt } from '../tools/toolbelt.js';
import { abortable, raceAbort } from './abort.js';
import { boundArguments, RefusedArguments } from './boundedArguments.js';
import { fairly } from './fairStream.js';
import { subtaskSystemPrompt } from './prompts.js';
import type { NodeProgress } from '@arbor/protocol';
import { agentInstructionSections, showsProgress } from '../agents/turnProfile.js';
import {
  FINISH_SUBTASK,
  MAX_SCHEMA_RETRIES,
  RUN_SUBTASK,
  RunSubtaskArgs,
  compileOutputSchema,
  describeErrors,
  finishSubtaskDefinition,
} from './subtaskTools.js';
import { MEMORY_TOOLS } from '../tools/memory.js';
import {
  RUN_SUBTASKS,
  runParallelSubtasks,
  type SubtaskEnd,
  type SubtaskSpec,
} from './parallelSubtasks/runSubtasks.js';
import { ContextOverflowError, type AssembledRequest } from './context/contextEngine.js';
import { normalizeOutput, truncateResult, type ToolResult } from './toolResult.js';
import { scheduleCalls } from './toolScheduler.js';
import { BudgetExceededError } from './turnBudget.js';
import type { TurnContext } from './turnContext.js';
import type { QuestionAsker } from './turnRunner.js';
import { addUsage } from './usageAccountant.js';

export interface StructuredOutput {
  schema: Record<string, unknown>;
  validate: ValidateFunction;
}

export interface LoopParams {
  /** The turn node (root) or the subtask node this loop runs in. */
  nodeId: string;
  depth: number;
  /** The provider and model this loop's LLM calls go to (and are accounted under). */
  llm: ResolvedProvider;
  system: string;
  /** Root: the session history and the user message; subtask: the instructions only. */
  messages: ProviderMessage[];
  /** How many leading messages (earlier turns) may be dropped to fit the history-token limit. */
  prunable: number;
  belt: Toolbelt;
  /** Set for a structured subtask: it ends through finish_subtask. */
  structured?: StructuredOutput;
  /** The loop's text is not streamed to clients (the planner's: its plan goes out as plan/update). */
  silent?: boolean;
}

export type LoopOutcome =
  | { kind: 'answer'; text: string }
  | { kind: 'max_iterations'; text: string }
  /** The model hit its output-token limit: `text` ends where the model was cut off. */
  | { kind: 'max_tokens'; text: string }
  | { kind: 'structured'; value: unknown }
  | { kind: 'schema_not_satisfied'; message: string; errors: string[] };

interface ModelReply {
  text: string;
  toolCalls: ProviderToolCall[];
  /** The provider's own form of the message (e.g. thinking blocks), kept verbatim in history. */
  native?: NativeMessage;
  /** The model was cut off at its output-token limit. */
  truncated: boolean;
}

/** One tool call of a model turn, with its tree node. */
interface PlannedCall {
  call: ProviderToolCall;
  nodeId: string;
  parallelSafe: boolean;
  lock: string | undefined;
  /** What the model gave besides the tool's arguments, split off `call` (agent/injectedArgs.ts). */
  injected?: InjectedArgs;
  result?: ToolResult;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class AgentLoop {
  /** Assistant text of this loop so far (partial while streaming). */
  text = '';
  private readonly messages: ProviderMessage[];
  private prunable: number;
  /** The summary that replaced the earlier turns, when this loop compacted them. */
  private summary: ProviderMessage | undefined;
  private finished: { value: unknown } | undefined;
  private schemaFailures = 0;
  private lastSchemaErrors: string[] = [];

  constructor(
    private readonly ctx: TurnContext,
    private readonly params: LoopParams,
  ) {
    this.messages = [...params.messages];
    this.prunable = params.prunable;
  }

  async run(): Promise<LoopOutcome> {
    const { budget, signal } = this.ctx;
    const { provider } = this.params.llm;
    const maxIterations = budget.limits.maxIterationsPerLevel;
    for (let iteration = 1; iteration <= maxIterations; iteration++) {
      signal.throwIfAborted();
      // One call away from the limit: the last call goes out without tools so the model answers.
      const lastCall = iteration === maxIterations;
      const offered = this.offeredTools(lastCall);
      const reply = await this.callModel(offered);
      const offeredNames = new Set(offered.map((tool) => tool.name));
      // A cut-off reply's tool calls may be cut off too: none of them runs (half an edit is worse than none).
      const calls = offered.length > 0 && !reply.truncated ? reply.toolCalls : [];
      this.messages.push({
        role: 'assistant',
        content: reply.text,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
        ...(reply.native ? { native: reply.native } : {}),
      });

      if (reply.truncated) return { kind: 'max_tokens', text: this.text };
      if (calls.length === 0) {
        if (this.params.structured === undefined) {
          // A Stop hook may send the root loop back to work, with its reason as a note.
          const note =
            this.params.depth === 0 && !lastCall && (await this.ctx.hooks.stop(this.text));
          if (note) {
            this.messages.push({ role: 'user', content: note });
            continue;
          }
          const cutShort = lastCall && this.offeredTools(false).length > 0;
          return { kind: cutShort ? 'max_iterations' : 'answer', text: this.text };
        }
        // An answer without tool calls ends any loop; a structured subtask had to end through finish_subtask.
        return this.schemaNotSatisfied(
          `the subtask ended without calling ${FINISH_SUBTASK}${lastCall ? ` (iteration limit ${maxIterations})` : ''}`,
        );
      }

      // Without parallel tool calls the model gets one tool per turn; extra calls are refused, not run.
      const runnable = provider.capabilities.parallelToolCalls ? calls : calls.slice(0, 1);
      const results = await this.runToolCalls(runnable, lastCall ? offeredNames : undefined);
      for (const [index, call] of calls.entries()) {
        const result = results[index] ?? {
          content:
            'Not run: this model takes one tool call per turn. Call it again in your next turn.',
          isError: true,
        };
        this.messages.push({
          role: 'tool',
          toolCallId: call.id,
          name: call.name,
          content: result.content,
          isError: result.isError,
          ...(result.images === undefined ? {} : { images: result.images }),
          ...(result.approval === undefined ? {} : { metadata: { approval: result.approval } }),
        });
      }
      if (this.finished) return { kind: 'structured', value: this.finished.value };
      if (this.schemaFailures > MAX_SCHEMA_RETRIES) {
        return this.schemaNotSatisfied(
          `the result did not match the output schema after ${MAX_SCHEMA_RETRIES} retries`,
        );
      }
      if (lastCall && this.params.structured) {
        return this.schemaNotSatisfied(
          `${FINISH_SUBTASK} was not called within ${maxIterations} iterations`,
        );
      }
    }
    // Not reached: the last iteration always returns.
    return { kind: 'max_iterations', text: this.text };
  }

  /**
   * The running turn as the model was last sent it (reduced where it was),
   * from its user message on; first the summary of the earlier turns when
   * this turn compacted them, so later turns start from it.
   */
  transcript(): ProviderMessage[] {
    const turn = this.messages
      .slice(this.prunable)
      .map((message) => this.ctx.context.sentForm(message));
    return this.summary && this.messages.includes(this.summary) ? [this.summary, ...turn] : turn;
  }

  private schemaNotSatisfied(message: string): LoopOutcome {
    return { kind: 'schema_not_satisfied', message, errors: this.lastSchemaErrors };
  }

  /** The tools offered to the model on this call. */
  private offeredTools(lastCall: boolean): ToolDefinition[] {
    const { budget } = this.ctx;
    if (!this.params.llm.provider.capabilities.tools) return [];
    const finish = this.params.structured
      ? [finishSubtaskDefinition(this.params.structured.schema)]
      : [];
    if (lastCall) return finish;
    const atDepthLimit = this.params.depth >= budget.limits.maxDepth;
    const tools = this.params.belt.tools
      .filter(
        (tool) => !((tool.name === RUN_SUBTASK || tool.name === RUN_SUBTASKS) && atDepthLimit),
      )
      .map((tool) => toolDefinition(tool));
    const offered = [...tools, ...finish];
    const { injectedArgs } = this.ctx;
    return injectedArgs ? offered.map((tool) => injectedArgs.offer(tool)) : offered;
  }

  /** One LLM call: budget checks, streaming text to the tree node, usage to the accountant. */
  private async callModel(tools: ToolDefinition[]): Promise<ModelReply> {
    const { budget, signal, events, accountant, tree } = this.ctx;
    const { nodeId, system } = this.params;
    const { provider, model } = this.params.llm;
    budget.beforeLlmCall(nodeId);
    const assembled = await this.assemble(tools);

    const reply: ModelReply = { text: '', toolCalls: [], truncated: false };
    let usage: Usage | undefined;
    const separator = this.text.length > 0 ? '\n\n' : '';
    const request = {
      model,
      system,
      messages: assembled.messages,
      ...(tools.length > 0
        ? { tools, parallelToolCalls: provider.capabilities.parallelToolCalls }
        : {}),
    };
    try {
      for await (const event of abortable(fairly(provider.stream(request, signal)), signal)) {
        if (event.type === 'text') {
          if (event.text.length === 0) continue;
          // Successive answers of one loop read as paragraphs, on the wire and in the stored text.
          const delta = reply.text.length === 0 ? separator + event.text : event.text;
          reply.text += event.text;
          this.text += delta;
          if (this.params.silent !== true) events.text(nodeId, delta);
        } else if (event.type === 'tool_call') {
          reply.toolCalls.push({ ...event.call, arguments: boundArguments(event.call.arguments) });
        } else if (event.type === 'usage') {
          usage = addUsage(usage, event.usage);
        } else if (event.type === 'native') {
          reply.native = event.native;
        } else if (event.type === 'stop') {
          reply.truncated = event.reason === 'max_tokens';
        }
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof ProviderError) throw error;
      throw new ProviderError(`${provider.id}: ${errorMessage(error)}`, { cause: error });
    } finally {
      const spent = usage ?? { inputTokens: 0, outputTokens: 0 };
      const cost = accountant.record(provider, model, spent);
      if (usage) tree.addUsage(nodeId, usage, cost);
      // The root loop's conversation is the session's (cost.md#cost-context-last-call).
      // A provider that reports no usage: the engine's count of what was sent stands in.
      if (this.params.depth === 0)
        accountant.recordContext(
          usage ?? { inputTokens: assembled.tokens, outputTokens: 0 },
          provider.capabilities.contextWindow,
        );
      this.ctx.context.observeUsage(this.params.llm, assembled, spent.inputTokens);
    }
    return reply;
  }

  /**
   * The request the context engine builds to fit the model's window (it may
   * throw ContextOverflowError). Earlier turns it dropped stay dropped for
   * the rest of the loop; the history-token budget still applies on top.
   */
  private async assemble(tools: readonly ToolDefinition[]): Promise<AssembledRequest> {
    const { budget, context } = this.ctx;
    const { limits, counts } = budget;
    let assembled: AssembledRequest;
    try {
      assembled = await context.assemble({
        llm: this.params.llm,
        system: this.params.system,
        tools,
        messages: this.messages,
        prunable: this.prunable,
        historyTokenLimit: limits.maxHistoryTokens,
        budgetLeft: {
          llmCalls: limits.maxLlmCalls - counts.llmCalls,
          toolCalls: limits.maxToolCalls - counts.toolCalls,
          seconds: Math.max(0, Math.round((limits.maxWallClockMs - budget.elapsedMs) / 1000)),
        },
      });
    } catch (caught) {
      // What cannot fit ends the turn as the history_tokens budget (budgets.md#budget-kinds).
      if (caught instanceof ContextOverflowError) {
        this.ctx.log('warn', caught.message);
        budget.checkHistoryTokens(caught.limit, caught.tokens, this.params.nodeId);
      }
      throw caught;
    }
    if (assembled.summary) {
      this.messages.splice(0, assembled.dropped, assembled.summary);
      this.prunable += 1 - assembled.dropped;
      this.summary = assembled.summary;
    } else {
      this.messages.splice(0, assembled.dropped);
      this.prunable -= assembled.dropped;
    }
    budget.checkHistoryTokens(limits.maxHistoryTokens, assembled.tokens, this.params.nodeId);
    return assembled;
  }

  /**
   * Runs one model turn's tool calls; every call gets a tree node (announced
   * `pending` in emitted order) and a result. `onlyNames`: on the tool-less
   * last call of a structured subtask, anything but finish_subtask is refused.
   */
  private async runToolCalls(
    calls: readonly ProviderToolCall[],
    onlyNames?: ReadonlySet<string>,
  ): Promise<ToolResult[]> {
    const { tree, budget, signal } = this.ctx;
    const planned: PlannedCall[] = calls.map((sent) => {
      const { call, injected } = this.splitInjected(sent);
      const isSubtask =
        call.name === RUN_SUBTASK && this.params.belt.get(RUN_SUBTASK) !== undefined;
      const tool = this.params.belt.get(call.name);
      const title = isSubtask ? (call.arguments as { title?: unknown } | null)?.title : undefined;
      const nodeId = tree.add({
        parentId: this.params.nodeId,
        kind: isSubtask ? 'subtask' : 'tool',
        name: call.name.slice(0, 200) || 'unknown',
        ...(typeof title === 'string' ? { title } : {}),
        depth: this.params.depth,
        args: call.arguments,
        ...(injected && { injectedArgs: injected }),
      });
      return {
        call,
        nodeId,
        parallelSafe: tool?.parallelSafe ?? true,
        lock: tool?.lock,
        ...(injected && { injected }),
      };
    });

    await scheduleCalls(
      planned,
      { maxParallel: budget.limits.maxParallel, signal },
      async (item) => {
        item.result = await this.runOneCall(item, onlyNames);
      },
    );
    // By position: ids come from the model and are not trusted to be unique.
    return planned.map((item) => item.result ?? { content: 'No result.', isError: true });
  }

  /** The call without the profile's injected arguments, and those apart (agent/injectedArgs.ts). */
  private splitInjected(call: ProviderToolCall): {
    call: ProviderToolCall;
    injected?: InjectedArgs;
  } {
    const { injectedArgs } = this.ctx;
    if (!injectedArgs) return { call };
    const tool = this.params.belt.get(call.name);
    const definition =
      call.name === FINISH_SUBTASK && this.params.structured
        ? finishSubtaskDefinition(this.params.structured.schema)
        : tool && toolDefinition(tool);
    const split = injectedArgs.split(definition, call.arguments);
    return {
      call: { ...call, arguments: split.args },
      ...(split.injected && { injected: split.injected }),
    };
  }

  /** Runs one call to its result. Only a turn stop (cancel, budget) escapes as an exception. */
  private async runOneCall(
    item: PlannedCall,
    onlyNames?: ReadonlySet<string>,
  ): Promise<ToolResult> {
    const { tree, signal } = this.ctx;
    const { call, nodeId } = item;
    try {
      let outcome: ToolResult & { status?: 'denied' | 'blocked' | 'cancelled' };
      if (call.arguments instanceof RefusedArguments) {
        tree.start(nodeId);
        outcome = { content: `Not run: ${call.arguments.reason}.`, isError: true };
      } else if (onlyNames && !onlyNames.has(call.name)) {
        tree.start(nodeId);
        outcome = {
          content: `Not run: only ${[...onlyNames].join(', ')} may be called now.`,
          isError: true,
        };
      } else if (call.name === FINISH_SUBTASK && this.params.structured) {
        tree.start(nodeId);
        outcome = this.finishSubtask(call.arguments, this.params.structured);
      } else if (call.name === RUN_SUBTASK && this.params.belt.get(RUN_SUBTASK)) {
        outcome = await this.runSubtask(call, nodeId);
      } else if (call.name === RUN_SUBTASKS && this.params.belt.get(RUN_SUBTASKS)) {
        outcome = await runParallelSubtasks(call.arguments, {
          tree,
          budget: this.ctx.budget,
          signal,
          nodeId,
          depth: this.params.depth,
          maxJobs: this.ctx.request.agent?.profile.maxParallelSubagents ?? 1,
          childSafe: this.params.belt.without([RUN_SUBTASKS]),
          spawn: (spec, jobNodeId, belt) => this.spawnSubtask(spec, jobNodeId, belt),
        });
      } else {
        outcome = await this.runTool(call, nodeId, item.injected);
      }
      const { maxToolResultBytes } = this.ctx.budget.limits;
      const shown = truncateResult(outcome.content, maxToolResultBytes);
      // A large result goes to an artifact whole; the model gets a preview and its id.
      const offloaded = await this.ctx.context.offload(
        this.params.llm,
        call.id,
        outcome.content,
        maxToolResultBytes,
      );
      const result: ToolResult = {
        content: offloaded?.preview ?? shown,
        isError: outcome.isError,
        ...(outcome.images === undefined ? {} : { images: outcome.images }),
        ...(outcome.approval === undefined ? {} : { approval: outcome.approval }),
      };
      tree.finish(nodeId, {
        status: outcome.status ?? (result.isError ? 'error' : 'done'),
        result: shown,
        isError: result.isError,
        ...(offloaded && { artifactId: offloaded.artifactId }),
      });
      return result;
    } catch (error) {
      if (error instanceof BudgetExceededError && error.exceedance.nodeId === nodeId) {
        tree.finish(nodeId, { status: 'error', result: error.message, isError: true });
      } else if (signal.aborted) {
        tree.finish(nodeId, { status: 'cancelled' });
      }
      if (signal.aborted) throw signal.reason;
      // Not reached for tools (runTool catches); a bug in the loop itself.
      const content = `Internal error while running ${call.name}: ${errorMessage(error)}`;
      tree.finish(nodeId, { status: 'error', result: content, isError: true });
      return { content, isError: true };
    }
  }

  private async runTool(
    call: ProviderToolCall,
    nodeId: string,
    injected: InjectedArgs | undefined,
  ): Promise<ToolResult & { status?: 'denied' | 'blocked' | 'cancelled' }> {
    const { budget, tree, signal, gate, memory, request } = this.ctx;
    budget.beforeToolCall(nodeId);
    // The node stays pending through the permission check: a call that waits for
    // approval, or is denied, never shows as running.
    const tool = this.params.belt.get(call.name);
    if (tool === undefined) {
      return {
        content: `Unknown tool "${call.name}". Available tools: ${this.params.belt.names.join(', ') || 'none'}.`,
        isError: true,
      };
    }
    const parsed = tool.input.safeParse(call.arguments);
    if (!parsed.success) {
      return {
        content: `Invalid arguments for ${tool.name}:\n${z.prettifyError(parsed.error)}`,
        isError: true,
      };
    }
    const hookCall = {
      tool,
      args: parsed.data,
      nodeId,
      toolCallId: call.id,
      depth: this.params.depth,
    };
    const hooked = await this.ctx.hooks.preToolUse(hookCall);
    if ('invalid' in hooked) return { content: hooked.invalid, isError: true };
    const args = hooked.args;

    const decision = await raceAbort(
      gate({
        turn: request,
        tool,
        args,
        ...(hooked.verdict && { hook: hooked.verdict }),
        nodeId,
        toolCallId: call.id,
        depth: this.params.depth,
        signal,
        ...(injected && { injectedArgs: injected }),
        awaitingApproval: () => tree.awaitApproval(nodeId, call.id),
        setApproval: (approval) => tree.setApproval(nodeId, approval),
        setRule: (rule) => tree.setRule(nodeId, rule),
      }),
      signal,
    );
    const approval = decision.approval;
    if (!decision.allow) {
      if (approval !== undefined) tree.setApproval(nodeId, approval);
      return {
        content: decision.reason,
        isError: true,
        status: decision.status,
        ...(approval === undefined ? {} : { approval }),
      };
    }
    // A call that may change the workspace: the turn's checkpoint is taken before the first one.
    if (request.checkpoint && knownCategory(tool.category) !== 'read') {
      await raceAbort(request.checkpoint.beforeChange(), signal);
    }
    tree.start(nodeId);
    if (approval !== undefined) tree.setApproval(nodeId, approval);

    const { questions } = request;
    let output: ToolOutput;
    try {
      output = await raceAbort(
        tool.execute(args, {
          signal,
          memory,
          artifacts: this.ctx.context.artifacts,
          workspaceRoot: request.workspaceRoot,
          turnId: request.turnId,
          nodeId,
          toolCallId: call.id,
          depth: this.params.depth,
          emit: (descriptor, params) => this.ctx.events.emit(descriptor, params),
          // An agent profile may hide MCP servers' progress (emitMcpProgress: false).
          ...(showsProgress(request.agent, tool.name) && {
            progress: (progress: NodeProgress) => tree.setProgress(nodeId, progress),
          }),
          output: (text) => tree.appendOutput(nodeId, text),
          ...(questions && {
            askUser: (question) => this.askUser(questions, question, nodeId, call.id),
          }),
        }),
        signal,
      );
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      // A failing tool is a result the model can react to; its siblings go on.
      return {
        content: `Tool ${tool.name} failed: ${errorMessage(error)}`,
        isError: true,
        ...(approval === undefined ? {} : { approval }),
      };
    }
    const afterHooks = await this.ctx.hooks.postToolUse(
      { ...hookCall, args },
      normalizeOutput(output),
    );
    // A nested AGENTS.md applies to the file the call wrote: the model reads it with the result.
    const result = this.ctx.instructions?.afterTool(tool, args, afterHooks) ?? afterHooks;
    return { ...result, ...(approval === undefined ? {} : { approval }) };
  }

  /** ask_user: the node waits on the user like an approval (questions.md#questions-node-awaiting). */
  private async askUser(
    questions: QuestionAsker,
    question: UserQuestion,
    nodeId: string,
    toolCallId: string,
  ): Promise<QuestionEnd> {
    const { tree, signal, request } = this.ctx;
    tree.setStatus(nodeId, 'awaiting_approval');
    try {
      return await questions.ask(
        { sessionId: request.sessionId, turnId: request.turnId, nodeId, toolCallId, ...question },
        signal,
      );
    } finally {
      if (!signal.aborted) tree.setStatus(nodeId, 'running');
    }
  }

  private finishSubtask(payload: unknown, structured: StructuredOutput): ToolResult {
    if (this.finished) return { content: 'The result was already accepted.', isError: false };
    if (structured.validate(payload)) {
      this.finished = { value: payload };
      return { content: 'Result accepted.', isError: false };
    }
    this.schemaFailures += 1;
    this.lastSchemaErrors = describeErrors(structured.validate);
    const left = MAX_SCHEMA_RETRIES - this.schemaFailures + 1;
    return {
      content:
        `The result does not match the output schema:\n- ${this.lastSchemaErrors.join('\n- ')}\n` +
        (left > 0
          ? `Correct it and call ${FINISH_SUBTASK} again (${left} ${left === 1 ? 'retry' : 'retries'} left).`
          : 'No retries left.'),
      isError: true,
    };
  }

  /** run_subtask: checks, then a child loop one level deeper with isolated history. */
  private async runSubtask(call: ProviderToolCall, nodeId: string): Promise<ToolResult> {
    const parsed = RunSubtaskArgs.safeParse(call.arguments);
    this.ctx.tree.start(nodeId);
    if (!parsed.success) {
      return {
        content: `Invalid arguments for ${RUN_SUBTASK}:\n${z.prettifyError(parsed.error)}`,
        isError: true,
      };
    }
    return (await this.spawnSubtask(parsed.data, nodeId, this.params.belt)).result;
  }

  /**
   * One subtask in `nodeId` (already started), `caller` being the tools it may
   * narrow: run_subtask's and each run_subtasks job's. Checks, then a child
   * loop one level deeper with isolated history; its result goes to memory.
   */
  private async spawnSubtask(
    args: SubtaskSpec,
    nodeId: string,
    caller: Toolbelt,
  ): Promise<SubtaskEnd> {
    const { budget, memory, log } = this.ctx;
    const failed = (content: string): SubtaskEnd => ({
      ok: false,
      result: { content, isError: true },
    });
    if (!budget.beforeSubtaskSpawn(nodeId, this.params.depth)) {
      return failed(
        `Depth limit reached: subtasks nest at most ${budget.limits.maxDepth} levels deep. Do this work here, without ${RUN_SUBTASK}.`,
      );
    }

    let belt = caller;
    if (args.tools !== undefined) {
      const subset = belt.subset(
        args.tools,
        MEMORY_TOOLS.map((tool) => tool.name),
      );
      if ('unknown' in subset) {
        return failed(
          `Unknown tools for the subtask: ${subset.unknown.join(', ')}. Available: ${belt.names.join(', ')}.`,
        );
      }
      belt = subset.belt;
    }
    let structured: StructuredOutput | undefined;
    if (args.output_schema !== undefined) {
      const validate = compileOutputSchema(args.output_schema);
      if (typeof validate === 'string') return failed(validate);
      structured = { schema: args.output_schema, validate };
    }

    const depth = this.params.depth + 1;
    const child = new AgentLoop(this.ctx, {
      nodeId,
      depth,
      llm: this.ctx.subtaskLlm ?? this.params.llm,
      system: [
        subtaskSystemPrompt({
          title: args.title,
          canSpawn: depth < budget.limits.maxDepth && belt.get(RUN_SUBTASK) !== undefined,
          structured: structured !== undefined,
          permissionMode: this.ctx.request.permissionMode(),
        }),
        // The agent profile's instructions bind its subtasks too.
        ...agentInstructionSections(this.ctx.request.agent),
        ...(args.framing ? [args.framing] : []),
        // The workspace's instructions (AGENTS.md) bind every loop, not only the root's.
        ...(this.ctx.instructions?.sections() ?? []),
      ].join('\n\n'),
      messages: [{ role: 'user', content: args.instructions }],
      prunable: 0,
      belt,
      ...(structured ? { structured } : {}),
    });

    let result: ToolResult;
    let stored: unknown;
    let ok = false;
    try {
      const outcome = await child.run();
      switch (outcome.kind) {
        case 'answer':
          result = { content: outcome.text, isError: false };
          stored = outcome.text;
          ok = true;
          break;
        case 'structured':
          result = { content: JSON.stringify(outcome.value), isError: false };
          stored = outcome.value;
          ok = true;
          break;
        case 'max_iterations':
          stored = { error: 'max_iterations', text: outcome.text };
          result = {
            content: `The subtask stopped at its iteration limit (${budget.limits.maxIterationsPerLevel}). Its last answer:\n${outcome.text}`,
            isError: true,
          };
          break;
        case 'max_tokens':
          stored = { error: 'max_tokens', text: outcome.text };
          result = {
            content: `The subtask's answer was cut off at the model's output-token limit:\n${outcome.text}`,
            isError: true,
          };
          break;
        case 'schema_not_satisfied':
          stored = {
            error: 'schema_not_satisfied',
            message: outcome.message,
            errors: outcome.errors,
          };
          result = { content: JSON.stringify(stored), isError: true };
          break;
      }
    } catch (error) {
      if (this.ctx.signal.aborted) {
        // The subtask whose limit was hit is an error, not cancelled like the rest of the turn;
        // said here, before the turn's end closes open nodes (a run_subtasks job has no call of its own).
        if (error instanceof BudgetExceededError && error.exceedance.nodeId === nodeId)
          this.ctx.tree.finish(nodeId, { status: 'error', result: error.message, isError: true });
        throw error;
      }
      // A subtask whose model failed is a failed tool call for the parent; the turn goes on.
      log('warn', `subtask ${nodeId} failed: ${errorMessage(error)}`);
      stored = { error: 'subtask_failed', message: errorMessage(error) };
      result = { content: `The subtask failed: ${errorMessage(error)}`, isError: true };
    }
    memory.write(`task:${nodeId}`, stored);
    return ok ? { ok, value: stored, result } : { ok, result };
  }
}
