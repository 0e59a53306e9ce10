/**
 * The TurnRunner of the unified loop: sets up what one turn shares (budget,
 * tree, accountant, memory, events, abort signal), runs the root loop, and
 * ends the turn: open nodes closed, `cost/summary` sent, snapshot returned.
 */
import { setMaxListeners } from 'node:events';
import { Methods, type NodeStatus, type StopReason } from '@arbor/protocol';
import { ModelRefError } from '../providers/modelRef.js';
import { ProviderError, type Provider, type ProviderMessage } from '../providers/provider.js';
import { daemonSecrets } from '../security/secretRedactor.js';
import {
  resolveProvider,
  type ProviderFactory,
  type ResolvedProvider,
} from '../providers/index.js';
import type { Script } from '@arbor/protocol';
import { TurnMemory } from '../tools/memory.js';
import type { Tool } from '../tools/tool.js';
import { composeTurnTools } from '../tools/catalogue.js';
import { Toolbelt } from '../tools/toolbelt.js';
import { TurnCancelled } from './abort.js';
import { MemoryArtifactStore } from './context/artifacts.js';
import { ContextEngine, ContextOverflowError } from './context/contextEngine.js';
import type { ContextSettings } from './context/contextSettings.js';
import { completeExchanges, type SessionContextStore } from './context/sessionContext.js';
import { TokenCalibration } from './context/tokenCalibration.js';
import { withoutImages } from './context/toolImages.js';
import { compactor } from './context/compaction.js';
import { withBudgets, type BudgetLimits } from './budgetLimits.js';
import { HookRunner } from '../hooks/hookRunner.js';
import { ExecutionTree } from './executionTree.js';
import { AgentLoop, type LoopOutcome } from './loop.js';
import { InjectedToolArgs } from './injectedArgs.js';
import { TurnDataPolicy, TurnOnlyArtifacts } from '../agents/dataPolicy.js';
import { TurnInstructions } from './instructions/turnInstructions.js';
import { rootSystemPrompt } from './prompts.js';
import {
  agentInstructionSections,
  turnContextSettings,
  turnLimits,
  turnModel,
  turnSubtaskModel,
  turnTools,
} from '../agents/turnProfile.js';
import { READ_SKILL } from '../commands/readSkillTool.js';
import { skillsPromptLines } from '../commands/skillsPrompt.js';
import { RUN_SUBTASK } from './subtaskTools.js';
import { parallelSubtaskTools } from './parallelSubtasks/runSubtasks.js';
import { planTurn } from './planner/planner.js';
import type { ToolGate } from './toolGate.js';
import { BudgetExceededError, TurnBudget } from './turnBudget.js';
import type { Log, TurnContext } from './turnContext.js';
import { TurnEvents } from './turnEvents.js';
import type { TurnRequest, TurnResult, TurnRunner } from './turnRunner.js';
import { UsageAccountant, type Pricing } from './usageAccountant.js';

/** How much more history than the history-token budget a turn loads, for the engine to summarize. */
const HISTORY_LOAD_FACTOR = 2;

export interface UnifiedTurnRunnerOptions {
  budgets: BudgetLimits;
  defaultModel: string | undefined;
  subtaskModel: string | undefined;
  /** The daemon's script (`--provider scripted --script`), already validated. */
  script: Script | undefined;
  log: Log;
  tools: readonly Tool[];
  gate: ToolGate;
  provider: Provider | undefined;
  providerFactories: Partial<Record<string, ProviderFactory>>;
  pricing: Pricing | undefined;
  chunkCoalesceMs: number | undefined;
  context: ContextSettings;
  /** The session's stored context; absent: in-memory artifacts, the request's text history. */
  sessionContext: ((sessionId: string) => SessionContextStore) | undefined;
  /** The user's lifecycle hooks (config `hooks`); absent: none. */
  hooks: HookRunner | undefined;
}

/** A UserPromptSubmit hook denied the prompt: the turn ends before any model call. */
class PromptBlocked extends Error {}

const TURN_NODE_STATUS: Record<StopReason, NodeStatus> = {
  end_turn: 'done',
  max_iterations: 'done',
  max_tokens: 'done',
  cancelled: 'cancelled',
  budget_exceeded: 'error',
  error: 'error',
  interrupted: 'cancelled',
};

/** How the root loop's outcome ends the turn (a root loop is never structured). */
const STOP_REASON_OF: Record<LoopOutcome['kind'], StopReason> = {
  answer: 'end_turn',
  max_iterations: 'max_iterations',
  max_tokens: 'max_tokens',
  structured: 'end_turn',
  schema_not_satisfied: 'end_turn',
};

export class UnifiedTurnRunner implements TurnRunner {
  /** Per-model token correction from reported usage, for the daemon's life. */
  private readonly calibration = new TokenCalibration();
  private readonly hooks: HookRunner;

  constructor(private readonly options: UnifiedTurnRunnerOptions) {
    this.hooks = options.hooks ?? new HookRunner({ user: {}, log: options.log });
  }

  async run(request: TurnRequest): Promise<TurnResult> {
    const { options } = this;
    const { turnId } = request;
    // The agent profile's budgets lower them further, never raise them.
    const limits = turnLimits(
      request.agent,
      withBudgets(
        withBudgets(options.budgets, request.budgets, 'replace'),
        request.lowerBudgets,
        'lower',
      ),
    );
    const events = new TurnEvents(request.events, turnId, options.chunkCoalesceMs);
    const tree = new ExecutionTree(turnId, (nodes) =>
      events.emit(Methods.TreeUpdate, { turnId, nodes }),
    );

    // One signal for the whole turn: the client's cancel and every budget stop abort it.
    const controller = new AbortController();
    // Every concurrent await of the turn (tools, subtasks, streams) listens on this signal.
    setMaxListeners(0, controller.signal);
    const onCancel = (): void => controller.abort(new TurnCancelled());
    if (request.signal.aborted) onCancel();
    else request.signal.addEventListener('abort', onCancel, { once: true });

    const budget = new TurnBudget(limits, (exceeded) => {
      events.emit(Methods.BudgetExceeded, {
        turnId,
        kind: exceeded.kind,
        limit: exceeded.limit,
        observed: exceeded.observed,
        ...(exceeded.nodeId === undefined ? {} : { nodeId: exceeded.nodeId }),
      });
      controller.abort(new BudgetExceededError(exceeded));
    });
    // The wall clock also stops tools and providers that are in the middle of an await.
    let wallClock: NodeJS.Timeout | undefined;
    const armWallClock = (): void => {
      wallClock = setTimeout(
        () => {
          try {
            budget.checkWallClock(tree.rootId);
            armWallClock(); // fired a little early
          } catch {
            // reported through onExceeded
          }
        },
        Math.max(1, limits.maxWallClockMs - budget.elapsedMs + 1),
      );
    };
    armWallClock();

    const accountant = new UsageAccountant(options.pricing);
    const stored = options.sessionContext?.(request.sessionId);
    // What of the turn is kept for later turns (agents/dataPolicy.ts); undefined: all of it.
    const dataPolicy = TurnDataPolicy.of(request.agent);
    let loop: AgentLoop | undefined;
    let stopReason: StopReason;
    let error: string | undefined;
    try {
      const script = request.script ?? options.script;
      const resolve = (model: string | undefined): ResolvedProvider => {
        const resolved = options.provider
          ? { provider: options.provider, model: model ?? 'default' }
          : resolveProvider({ script, model, factories: options.providerFactories });
        return {
          provider: resolved.provider,
          model: resolved.provider.fixedModel ?? resolved.model,
        };
      };
      const llm = resolve(turnModel(request, options.defaultModel));
      const { provider } = llm;
      // A turn with a script (or the one provider of tests) runs every loop on it, whatever
      // subtaskModel says. Resolved up front: a subtask model that cannot be used fails the turn.
      const subtaskModel = turnSubtaskModel(request.agent, options.subtaskModel);
      const subtaskLlm =
        subtaskModel === undefined || script !== undefined || options.provider
          ? undefined
          : resolve(subtaskModel);
      // Read at each turn's start: an AGENTS.md changed since the last turn is what this one gets.
      const instructions = new TurnInstructions(
        request.workspaceRoot,
        (files) => tree.setInstructions(files),
        options.log,
      );
      const injectedArgs = InjectedToolArgs.of(request.agent);
      const ctx: TurnContext = {
        request,
        subtaskLlm,
        budget,
        tree,
        accountant,
        memory: new TurnMemory(),
        context: new ContextEngine({
          settings: turnContextSettings(request.agent, options.context),
          calibration: this.calibration,
          artifacts: !stored
            ? new MemoryArtifactStore()
            : dataPolicy?.dropsResults
              ? new TurnOnlyArtifacts(stored.artifacts)
              : stored.artifacts,
          turnId,
          // Only the root loop has earlier turns to summarize.
          compact: compactor({
            tree,
            budget,
            accountant,
            signal: controller.signal,
            log: options.log,
            parentNodeId: tree.rootId,
            depth: 0,
          }),
        }),
        events,
        gate: options.gate,
        hooks: this.hooks.forTurn({ request, tree, signal: controller.signal }),
        instructions,
        ...(injectedArgs && { injectedArgs }),
        signal: controller.signal,
        log: options.log,
      };
      const started = await ctx.hooks.sessionStart();
      const submitted = await ctx.hooks.userPromptSubmit();
      if ('denied' in submitted) throw new PromptBlocked(submitted.denied);
      const prompt = [request.text, started, submitted.context].filter(Boolean).join('\n\n');
      // The same composition tools/list reports (tools/catalogue.ts), so the two cannot drift.
      // Only the agent profile's tools, when it names them (agents/turnProfile.ts).
      const belt = new Toolbelt(
        turnTools(
          request.agent,
          provider.capabilities.tools
            ? composeTurnTools(
                [...options.tools, ...parallelSubtaskTools(request.agent?.profile)],
                request.tools ?? [],
              )
            : [],
        ),
      );
      // Earlier turns with their tool work as the model saw it, when the session keeps them:
      // more than fits, back to the last summary, so the context engine summarizes what does
      // not fit instead of losing it (bounded: older turns than that are left out).
      const history: ProviderMessage[] = stored
        ? stored.history(limits.maxHistoryTokens * HISTORY_LOAD_FACTOR)
        : request.history.map((message) => ({ role: message.role, content: message.content }));
      const profile = request.agent?.profile;
      // The planner's model resolves like subtaskModel: a script (or the test provider) serves every loop.
      const planNote =
        profile?.planningEnabled === true
          ? await planTurn(ctx, {
              profile,
              llm:
                profile.planningModel === undefined || script !== undefined || options.provider
                  ? llm
                  : resolve(profile.planningModel),
              belt,
              history,
              prompt,
              instructions: instructions.sections(),
            })
          : undefined;
      loop = new AgentLoop(ctx, {
        nodeId: tree.rootId,
        depth: 0,
        llm,
        system: [
          rootSystemPrompt({
            hasTools: belt.tools.length > 0,
            canSpawn: belt.get(RUN_SUBTASK) !== undefined && limits.maxDepth > 0,
            permissionMode: request.permissionMode(),
            ...(belt.get(READ_SKILL) && { skills: skillsPromptLines(request.skills ?? []) }),
          }),
          ...agentInstructionSections(request.agent),
          ...instructions.sections(),
          ...(planNote === undefined ? [] : [planNote]),
        ].join('\n\n'),
        messages: [...history, { role: 'user', content: prompt }],
        prunable: history.length,
        belt,
      });
      const outcome = await loop.run();
      stopReason = STOP_REASON_OF[outcome.kind];
    } catch (caught) {
      if (budget.exceeded) stopReason = 'budget_exceeded';
      else if (request.signal.aborted) stopReason = 'cancelled';
      else {
        stopReason = 'error';
        if (
          caught instanceof PromptBlocked ||
          caught instanceof ProviderError ||
          caught instanceof ModelRefError ||
          caught instanceof ContextOverflowError
        )
          error = caught.message;
        else {
          error = 'internal error in the agent loop';
          options.log(
            'error',
            `turn ${turnId}: ${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`,
          );
        }
      }
    } finally {
      clearTimeout(wallClock);
      request.signal.removeEventListener('abort', onCancel);
    }
    if (stored && loop) {
      try {
        // Redacted like the stored transcript (session.ts): the model's calls may carry secrets.
        stored.saveTurn(
          turnId,
          daemonSecrets.redactDeep(
            (
              dataPolicy?.transcript(completeExchanges(loop.transcript())) ??
              completeExchanges(loop.transcript())
            ).map((message) =>
              withoutImages(message, 'images go to the model only in the turn that got them'),
            ),
          ),
        );
      } catch (caught) {
        // The next turn then sees this one as text only.
        options.log('warn', `turn ${turnId}: its context was not stored: ${String(caught)}`);
      }
    }
    // Anything still running was stopped with the turn.
    if (!controller.signal.aborted) controller.abort(new TurnCancelled());

    const text = loop?.text ?? '';
    tree.closeOpen(stopReason === 'error' ? 'error' : 'cancelled');
    // After every call has stopped: what the turn changed is now on disk.
    const changes = await request.checkpoint?.finish();
    tree.finish(tree.rootId, {
      status: TURN_NODE_STATUS[stopReason],
      ...(changes && { changes }),
      ...(text.length > 0 ? { result: text } : error ? { result: error } : {}),
      ...(stopReason === 'error' ? { isError: true } : {}),
    });
    events.flush(true);
    events.emit(Methods.CostSummary, accountant.summary(turnId));
    events.close();
    return {
      stopReason,
      text,
      usage: accountant.usage,
      tree: tree.snapshot(),
      ...(error === undefined ? {} : { error }),
    };
  }
}
