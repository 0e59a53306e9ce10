/**
 * The permission gate: the ToolGate the agent calls before every tool call,
 * at every depth (approvals.md#permission-gate). It reads the session's mode
 * when the call is checked, applies the workspace's permission rules, the
 * mode × category table and its exceptions, consults the session's grants,
 * and asks the session's controllers through its ApprovalBroker.
 */
import type {
  ApprovalOutcome,
  DecidingRule,
  PermissionMode,
  RuleEffect,
  ToolCategory,
} from '@arbor/protocol';
import type { GateDecision, GateHookVerdict, GateRequest, ToolGate } from '../agent/toolGate.js';
import { isProtectedPath } from '../tools/workspace/confinement.js';
import { agentAsksAlways } from '../agents/turnProfile.js';
import {
  decideCall,
  grantsApply,
  knownCategory,
  type CallTraits,
  type GateVerdict,
} from './permissionMatrix.js';
import {
  subjectOf,
  suggestRule,
  type PermissionRules,
  type RuleSet,
  type RuleSubject,
} from './rules/index.js';

export interface PermissionGateOptions {
  /** Tool names on the always-ask (HITL) list. */
  alwaysAsk: readonly string[];
  /** The daemon's data directory: writes there are protected. */
  dataDir?: string;
  /** Allow / ask / deny rules; absent: the mode table alone decides. */
  rules?: PermissionRules;
}

export const BLOCKED_IN_PLAN_MODE = 'blocked_in_plan_mode';
export const PERMISSION_DENIED = 'permission_denied';

export function blockedResult(tool: string): string {
  return (
    `${BLOCKED_IN_PLAN_MODE}: ${tool} was not run because the session is in plan mode, ` +
    'where only read tools run. Do not try to make changes now: propose them in your answer ' +
    '(what you would change and why), so the user can review the plan and switch modes.'
  );
}

export function deniedByRuleResult(tool: string, rule: DecidingRule): string {
  return (
    `${PERMISSION_DENIED}: ${tool} was not run because the ${rule.source} permission rule ` +
    `"deny ${rule.rule}" forbids it. Do not retry it or work around it; continue without it, ` +
    'or tell the user what you need and why.'
  );
}

export function deniedByHookResult(tool: string, reason: string | undefined): string {
  return (
    `${PERMISSION_DENIED}: ${tool} was not run because a PreToolUse hook denied it: ` +
    `${reason ?? 'no reason given'}. Do not retry it or work around it; continue without it, ` +
    'or tell the user what you need and why.'
  );
}

/** A workspace whose rule file cannot be read runs nothing until it is fixed: its deny rules are unknown. */
export function unreadableRulesResult(tool: string, why: string): string {
  return (
    `${PERMISSION_DENIED}: ${tool} was not run because the workspace's permission rules cannot be read: ${why}. ` +
    'Tell the user to fix the file; no tool runs in this workspace until then.'
  );
}

export function deniedResult(tool: string, outcome: ApprovalOutcome): string {
  const why =
    outcome === 'timed_out'
      ? 'no approval arrived in time (or no one could be asked)'
      : 'the user denied it';
  return (
    `${PERMISSION_DENIED}: ${tool} was not run because ${why}. ` +
    'Do not retry the same call; continue without it, or explain what you need and why.'
  );
}

const CATEGORY_WORDS: Record<ToolCategory, string> = {
  read: 'reads data',
  write: 'changes files',
  execute:
    'runs programs (in a sandbox where one works: the workspace writable, secrets hidden, no network; otherwise with your rights)',
  external: 'reaches outside the workspace',
};

function askReason(
  name: string,
  traits: CallTraits,
  mode: PermissionMode,
  rule: DecidingRule | undefined,
  hook: GateHookVerdict | undefined,
): string {
  if (traits.alwaysAsk) return `${name} is on the always-ask list; it asks before every call`;
  if (rule?.effect === 'ask')
    return `the ${rule.source} permission rule "ask ${rule.rule}" asks before it`;
  if (hook?.decision === 'ask')
    return `a PreToolUse hook asks before it${hook.reason ? `: ${hook.reason}` : ''}`;
  if (traits.protectedPath && traits.category === 'write')
    return `${name} writes to a protected path (the workspace's .git/ or the daemon's data directory)`;
  return `${name} ${CATEGORY_WORDS[traits.category]}; the session is in ${mode} mode`;
}

const VERDICT_OF_RULE: Record<RuleEffect, (mode: PermissionMode) => GateVerdict | undefined> = {
  deny: () => 'deny',
  ask: () => 'ask',
  allow: (mode) => (mode === 'default' ? 'run' : undefined),
};

export function createPermissionGate(options: PermissionGateOptions): ToolGate {
  const alwaysAsk = new Set(options.alwaysAsk);
  return async (request: GateRequest): Promise<GateDecision> => {
    const { tool, args, turn } = request;
    const category = knownCategory(tool.category);
    const target = category === 'write' ? tool.targetPath?.(args) : undefined;
    let rules: RuleSet | undefined;
    try {
      // Read at every call: the user may edit the workspace's rules while a turn runs.
      rules = options.rules?.forWorkspace(turn.workspaceRoot);
    } catch (error) {
      return {
        allow: false,
        status: 'denied',
        approval: 'rejected',
        reason: unreadableRulesResult(tool.name, (error as Error).message),
      };
    }
    // Paths are resolved (links followed) only when a rule or a suggestion needs them.
    let subject: RuleSubject | undefined | null = null;
    const subjectOfCall = (): RuleSubject | undefined =>
      subject === null ? (subject = subjectOf(tool.name, args, turn.workspaceRoot)) : subject;
    const rule = rules && !rules.empty ? rules.decide(tool.name, subjectOfCall()) : undefined;
    const traits: CallTraits = {
      category,
      // The config's list for every turn, the agent profile's hitlTools for its turns.
      alwaysAsk: alwaysAsk.has(tool.name) || agentAsksAlways(turn, tool.name),
      protectedPath:
        target !== undefined && isProtectedPath(turn.workspaceRoot, target, options.dataDir),
      ...(rule && { rule: rule.effect }),
      ...(request.hook && { hook: request.hook.decision }),
    };
    // Read now, not at the start of the turn: the user may switch while it runs.
    const mode = turn.permissionMode();
    const verdict = decideCall(mode, traits);
    // The node names a rule only where it decided: plan mode blocks what a rule allows,
    // auto runs it anyway, a protected path asks.
    if (rule !== undefined && verdict === VERDICT_OF_RULE[rule.effect](mode)) request.setRule(rule);
    if (verdict === 'deny') {
      return {
        allow: false,
        status: 'denied',
        approval: 'rejected',
        // A deny rule wins over a hook's deny: it names what the user wrote.
        reason:
          rule?.effect === 'deny'
            ? deniedByRuleResult(tool.name, rule)
            : deniedByHookResult(tool.name, request.hook?.reason),
      };
    }
    if (verdict === 'run') return { allow: true, approval: 'not_required' };
    if (verdict === 'block') {
      return {
        allow: false,
        status: 'blocked',
        approval: 'rejected',
        reason: blockedResult(tool.name),
      };
    }

    const approvals = turn.approvals;
    const grantKey = tool.grantKey?.(args);
    if (approvals && grantsApply(traits) && approvals.grants.covers(tool.name, grantKey)) {
      return { allow: true, approval: 'not_required' };
    }
    // "Always allow" is offered wherever a session grant would be.
    const suggested =
      options.rules && grantsApply(traits) ? suggestRule(tool.name, subjectOfCall()) : undefined;
    request.awaitingApproval();
    if (approvals === undefined) {
      return {
        allow: false,
        status: 'denied',
        approval: 'timed_out',
        reason: deniedResult(tool.name, 'timed_out'),
      };
    }
    const resolution = await approvals.broker.ask(
      {
        sessionId: turn.sessionId,
        turnId: turn.turnId,
        nodeId: request.nodeId,
        toolCallId: request.toolCallId,
        name: tool.name,
        args,
        category,
        reason: askReason(tool.name, traits, mode, rule, request.hook),
        ...(suggested !== undefined && { suggestedRule: suggested }),
        ...(request.injectedArgs && { injectedArgs: request.injectedArgs }),
      },
      {
        signal: request.signal,
        releasedByAuto: decideCall('auto', traits) === 'run',
        releasedByPlan: decideCall('plan', traits) === 'block',
        // The node records `cancelled` before the loop closes it.
        onResolved: (r) => {
          if (r.outcome === 'cancelled') request.setApproval('cancelled');
        },
      },
    );
    switch (resolution.outcome) {
      case 'approved':
      case 'not_required':
        // allowAlways also grants for the session: the call is allowed even if its rule could not be saved.
        if (
          (resolution.decision === 'allowForSession' || resolution.decision === 'allowAlways') &&
          grantsApply(traits)
        ) {
          approvals.grants.grant(tool.name, grantKey);
        }
        return { allow: true, approval: 'approved' };
      case 'rejected':
        if (resolution.blockedByPlan) {
          return {
            allow: false,
            status: 'blocked',
            approval: 'rejected',
            reason: blockedResult(tool.name),
          };
        }
        return {
          allow: false,
          status: 'denied',
          approval: 'rejected',
          reason: deniedResult(tool.name, 'rejected'),
        };
      case 'timed_out':
        return {
          allow: false,
          status: 'denied',
          approval: 'timed_out',
          reason: deniedResult(tool.name, 'timed_out'),
        };
      case 'cancelled':
        return {
          allow: false,
          status: 'denied',
          approval: 'cancelled',
          reason: 'cancelled: the turn was cancelled',
        };
    }
  };
}

/** Startup check: every always-ask name must be a tool the daemon knows. */
export function unknownAlwaysAskNames(
  alwaysAsk: readonly string[],
  known: readonly string[],
): string[] {
  return alwaysAsk.filter((name) => !known.includes(name));
}
