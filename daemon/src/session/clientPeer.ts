/**
 * A client connection as a session sees it: an event subscriber that can
 * also be asked for approvals and questions and run its declared tools. The server's
 * ClientConnection implements it; plain subscribers (tests) may not.
 */
import type { ClientCapabilities } from '@arbor/protocol';
import type { ApprovalPeer } from '../permissions/approvalBroker.js';
import type { QuestionPeer } from '../questions/questionBroker.js';
import type { ToolSender } from '../tools/toolset.js';
import type { EventSubscriber } from './eventBus.js';

export interface ClientPeer extends EventSubscriber, ApprovalPeer, QuestionPeer, ToolSender {
  readonly capabilities: ClientCapabilities;
}

export function asClientPeer(subscriber: EventSubscriber): ClientPeer | undefined {
  return 'requestApproval' in subscriber && 'executeTool' in subscriber
    ? (subscriber as ClientPeer)
    : undefined;
}
