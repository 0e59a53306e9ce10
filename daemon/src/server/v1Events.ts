/**
 * Enum values added after protocol 1 reach only clients that opted in with
 * `capabilities.openEnums` (versioning.md#versioning-new-values-gated); every
 * other client gets the v1 value the spec names as their stand-in. The store
 * and the replay log keep the real value: the mapping is per connection.
 */
import {
  Methods,
  V1_STOP_REASONS,
  type ClientCapabilities,
  type StopReason,
} from '@arbor/protocol';
import type { SessionEvent } from '../session/eventBus.js';

type V1StopReason = (typeof V1_STOP_REASONS)[number];

/** max_tokens: the answer ended, cut off; a v1 client reads it as an ordinary end. */
const V1_STOP_REASON: Record<Exclude<StopReason, V1StopReason>, V1StopReason> = {
  max_tokens: 'end_turn',
};

function isV1StopReason(reason: StopReason): reason is V1StopReason {
  return (V1_STOP_REASONS as readonly string[]).includes(reason);
}

/** The event as this client may receive it. */
export function eventForClient(
  event: SessionEvent,
  capabilities: ClientCapabilities,
): SessionEvent {
  if (capabilities.openEnums !== undefined || event.method !== Methods.SessionState.method)
    return event;
  const stopReason = event.params['stopReason'] as StopReason | undefined;
  if (stopReason === undefined || isV1StopReason(stopReason)) return event;
  return { ...event, params: { ...event.params, stopReason: V1_STOP_REASON[stopReason] } };
}
