/**
 * Arbor's plan as ACP plan entries. ACP has no priorities in Arbor's plan and
 * no "cancelled" status: every entry is medium, and a cancelled step shows as
 * completed with "(cancelled)" so it is neither lost nor shown as still to do.
 */
import type { PlanEntry as ArborPlanEntry } from '@arbor/protocol';
import type { PlanEntry as AcpPlanEntry } from '@agentclientprotocol/sdk';

export function planEntriesOf(entries: readonly ArborPlanEntry[]): AcpPlanEntry[] {
  return entries.map((entry): AcpPlanEntry => {
    const meta = { arbor: { id: entry.id, status: entry.status } };
    if (entry.status === 'cancelled') {
      return {
        content: `${entry.content} (cancelled)`,
        priority: 'medium',
        status: 'completed',
        _meta: meta,
      };
    }
    return { content: entry.content, priority: 'medium', status: entry.status, _meta: meta };
  });
}
