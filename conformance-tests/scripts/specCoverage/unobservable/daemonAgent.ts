/**
 * Daemon-side sentences of the agent (turns, tree, approvals, budgets, plan,
 * cost, tools, subtasks, the scripted provider) the suite cannot observe from
 * outside, with the reason.
 */
import type { Unobservable } from './types.js';

export const UNOBSERVABLE_DAEMON_AGENT: readonly Unobservable[] = [
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
];
