/** Client-side sentences the suite cannot observe from outside, with the reason. */
import type { Unobservable } from './types.js';

export const UNOBSERVABLE_CLIENT: readonly Unobservable[] = [
  {
    anchor: 'conformance.md#conformance-state-same-view',
    binds: 'client',
    why: 'Which of its internal states a client answers from is invisible on the wire; the suite can only compare the answers with the events it sent (client.conformance.state-after-applied and the view checks), which a faithful separate copy would pass too.',
  },
  {
    anchor: 'cost.md#cost-client-null',
    binds: 'client',
    why: 'How a client renders a cost to its user is not on the wire, and ConformanceStateResult carries no cost, so no answer can reveal a null cost shown as free.',
  },
  {
    anchor: 'tools.md#tools-origin-open',
    binds: 'client',
    why: 'Whether and when a client calls tools/list is its own choice: the driver convention has it attach to a session and follow it, so the suite cannot make a client read a tools/list result. (The schema keeps origin an open string, so a client validating with it accepts any value.)',
  },
  {
    anchor: 'security.md#security-token-read-by-client',
    binds: 'client',
    why: 'Where a client keeps the token (its own command lines, URLs it opens, its log files) is outside the protocol; the suite sees only that initialize carries the right token (client.lifecycle.token).',
  },
  {
    anchor: 'approvals.md#approvals-client-shows-injected',
    binds: 'client',
    why: "What a client shows its user with an approval is not on the wire: the suite sees only the decision it sends; Arbor's client is judged by its own webview test (extension/test/webview/runtimeControls.webview.test.ts).",
  },
  {
    anchor: 'approvals.md#rules-client-shows-rule',
    binds: 'client',
    why: 'What a client shows its user before they choose is not on the wire: the suite sees only the decision it sends (client.approvals.always-only-offered).',
  },
  {
    anchor: 'commands.md#commands-changed-client',
    binds: 'client',
    why: "Which commands a client offers its user is not on the wire, and _arbor/conformance/state does not report them; Arbor's client core is judged by its own tests (protocol-spec/test/client/commandList.test.ts).",
  },
];
