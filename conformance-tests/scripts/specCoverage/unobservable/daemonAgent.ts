/**
 * Daemon-side sentences of the agent (turns, tree, approvals, budgets, plan,
 * cost, tools, subtasks, the scripted provider) the suite cannot observe from
 * outside, with the reason.
 */
import type { Unobservable } from './types.js';

export const UNOBSERVABLE_DAEMON_AGENT: readonly Unobservable[] = [
  {
    anchor: 'plan.md#plan-planner-isolated',
    binds: 'daemon',
    why: "What the executor's model is given never crosses the wire, and the scripted provider's replies do not depend on the messages before the user's (appendix-scripted-provider.md): a daemon that leaked the planner's transcript into the executor's messages would answer the suite exactly as one that did not. Arbor's own tests judge it (daemon/test/agent/planner.test.ts: the executor's requests hold none of the planner's messages, tool calls or results).",
  },
  {
    anchor: 'turns.md#turns-interrupted-on-restart',
    binds: 'daemon',
    why: "It needs a daemon process to die mid-turn and a second process to start on the same store, and the suite can do neither: a socket daemon is handed to it already running (it cannot stop or restart it), and a stdio --command gets a fresh {tmp} data directory per process, removed when that process exits, so no later process ever finds an earlier one's store. Arbor's own tests judge it (daemon/test/persistence/interruptedTurn.test.ts: SIGKILL mid-turn, restart, session/load says interrupted and the log replays an idle with stopReason interrupted).",
  },
  {
    anchor: 'cost.md#cost-null-unknown',
    binds: 'daemon',
    why: "The only model the suite can drive is the scripted one, whose price is known (cost 0, appendix-scripted-provider.md#appendix-scripted-provider-usage); a model with an unknown price needs a real provider, its credentials and the network, which the protocol gives a client no way to set up. Arbor's own tests judge it (daemon/test/agent/cancel.test.ts).",
  },
  {
    anchor: 'tree.md#tree-hook-node',
    binds: 'daemon',
    why: "Hooks come from the daemon's own configuration (Arbor: `hooks` in its config file, and a trusted workspace's .arbor/settings.json); the protocol has no request that sets them, so the suite cannot give a daemon a hook to run. Arbor's own tests judge it (daemon/test/hooks/hooks.test.ts).",
  },
  {
    anchor: 'tree.md#tree-hook-failure-final',
    binds: 'daemon',
    why: "Hooks come from the daemon's own configuration (Arbor: `hooks` in its config file, and a trusted workspace's .arbor/settings.json); the protocol has no request that sets them, so the suite cannot give a daemon a hook to run. Arbor's own tests judge it (daemon/test/hooks/hooks.test.ts).",
  },
  {
    anchor: 'appendix-scripted-provider.md#appendix-scripted-provider-text-chunks',
    binds: 'daemon',
    why: "The deltas pass between the scripted provider and the daemon's own loop; the same sentence lets the daemon coalesce them into one chat/chunk, so one chunk on the wire is correct whatever the provider streamed.",
  },
  {
    anchor: 'appendix-scripted-provider.md#appendix-scripted-provider-capability',
    binds: 'daemon',
    why: 'Whether a daemon was started for testing is known only to whoever started it; the suite only ever meets daemons started to be tested, where advertising the capability is right.',
  },
  {
    anchor: 'approvals.md#approvals-unknown-tool-external',
    binds: 'daemon',
    why: "The only tools the suite can give a daemon are client tools, whose category initialize requires to be one of the four (an unknown one is -32602, transport.md#transport-params-invalid); a tool of unknown category comes only from the daemon's own sources (an MCP server, a plugin), which the protocol gives a client no way to set up. Arbor's own tests judge it (daemon/test/permissions/gate.test.ts).",
  },
  {
    anchor: 'approvals.md#rules-deny-wins',
    binds: 'daemon',
    why: "Rules come from the daemon's own configuration (Arbor: its config file and the workspace's .arbor/settings.json); the protocol has no request that sets them, so the suite cannot give a daemon a rule to apply. Arbor's own tests judge it (daemon/test/permissions/rules*.test.ts).",
  },
  {
    anchor: 'approvals.md#rules-ask',
    binds: 'daemon',
    why: "Rules come from the daemon's own configuration (Arbor: its config file and the workspace's .arbor/settings.json); the protocol has no request that sets them, so the suite cannot give a daemon a rule to apply. Arbor's own tests judge it (daemon/test/permissions/rules*.test.ts).",
  },
  {
    anchor: 'approvals.md#rules-allow',
    binds: 'daemon',
    why: "Rules come from the daemon's own configuration (Arbor: its config file and the workspace's .arbor/settings.json); the protocol has no request that sets them, so the suite cannot give a daemon a rule to apply. Arbor's own tests judge it (daemon/test/permissions/rules*.test.ts).",
  },
  {
    anchor: 'approvals.md#rules-plan-still-blocks',
    binds: 'daemon',
    why: "Rules come from the daemon's own configuration (Arbor: its config file and the workspace's .arbor/settings.json); the protocol has no request that sets them, so the suite cannot give a daemon a rule to apply. Arbor's own tests judge it (daemon/test/permissions/rules*.test.ts).",
  },
  {
    anchor: 'approvals.md#rules-whole-call',
    binds: 'daemon',
    why: "Rules come from the daemon's own configuration (Arbor: its config file and the workspace's .arbor/settings.json); the protocol has no request that sets them, so the suite cannot give a daemon a rule to apply. Arbor's own tests judge it (daemon/test/permissions/rules*.test.ts).",
  },
  {
    anchor: 'approvals.md#rules-unreadable',
    binds: 'daemon',
    why: "Which file a daemon reads rules from, and what makes it unreadable, is the daemon's own; the protocol has no way to give a daemon a broken rule file. Arbor's own tests judge it (daemon/test/permissions/rulesProcess.test.ts).",
  },
  {
    anchor: 'tools.md#tools-list-rules-permission',
    binds: 'daemon',
    why: "Rules come from the daemon's own configuration (Arbor: its config file and the workspace's .arbor/settings.json); the protocol has no request that sets them, so the suite cannot give a daemon a rule to apply. Arbor's own tests judge it (daemon/test/permissions/rules*.test.ts).",
  },
  {
    anchor: 'tools.md#tools-list-rules-unreadable',
    binds: 'daemon',
    why: "Which file a daemon reads rules from, and what makes it unreadable, is the daemon's own; the protocol has no way to give a daemon a broken rule file. Arbor's own tests judge it (daemon/test/permissions/rulesProcess.test.ts).",
  },
  {
    anchor: 'approvals.md#rules-suggested',
    binds: 'daemon',
    why: "Which rule is the narrowest for a call is the daemon's judgement of its own tools, and the calls it must not suggest one for (always-ask tools, ask rules, protected paths) exist only through its configuration; the suite judges what follows from a suggestion (daemon.approvals.allow-always-saved).",
  },
  {
    anchor: 'commands.md#skills-confined',
    binds: 'daemon',
    why: "Where a daemon finds skills and what its skill-reading tool is called are the daemon's own (commands.md fixes only workspace commands), so the suite cannot give a daemon a skill nor script a call of its tool. Arbor's own tests judge it (daemon/test/commands/commands.test.ts).",
  },
];
