/**
 * How an Arbor turn's stopReason reads in ACP. ACP has no "error" stop
 * reason: a failed turn answers `session/prompt` with an error instead, so
 * the editor shows it as one.
 */
import type { StopReason as ArborStopReason } from '@arbor/protocol';
import type { StopReason as AcpStopReason } from '@agentclientprotocol/sdk';

export type PromptEnd = { stopReason: AcpStopReason } | { failure: string };

/**
 * `cancelRequested`: the client sent `session/cancel` for this prompt. ACP
 * requires the prompt then to end `cancelled`, whatever the turn raced to.
 */
export function promptEndFor(
  stopReason: ArborStopReason,
  cancelRequested: boolean,
  errorMessage?: string,
): PromptEnd {
  if (cancelRequested && stopReason !== 'end_turn') return { stopReason: 'cancelled' };
  switch (stopReason) {
    case 'end_turn':
    case 'cancelled':
    case 'max_tokens':
      return { stopReason };
    // A turn limit reached: ACP's name for "the agent stopped at its request budget".
    case 'budget_exceeded':
    case 'max_iterations':
      return { stopReason: 'max_turn_requests' };
    case 'error':
      return { failure: errorMessage ?? 'the turn failed' };
    case 'interrupted':
      return { failure: 'the daemon stopped while the turn ran' };
    default:
      // A stop reason of a later protocol version (open enums): say which, never guess.
      return { failure: `the turn ended: ${String(stopReason)}` };
  }
}
