/**
 * What the editor has been told about each tool call: the first sight of a
 * call is a `tool_call`, later changes are `tool_call_update`s carrying only
 * the fields that changed, and nothing is sent when nothing changed (tree
 * upserts also report usage the editor has no field for).
 */
import type { SessionUpdate, ToolCall, ToolCallUpdate } from '@agentclientprotocol/sdk';

export class ToolCallLedger {
  readonly #sent = new Map<string, ToolCall>();

  /** The update that brings the editor to `call`, or undefined when it already shows it. */
  update(call: ToolCall): SessionUpdate | undefined {
    const previous = this.#sent.get(call.toolCallId);
    this.#sent.set(call.toolCallId, call);
    if (!previous) return { sessionUpdate: 'tool_call', ...call };
    const changed: ToolCallUpdate = { toolCallId: call.toolCallId };
    let any = false;
    for (const key of Object.keys(call) as (keyof ToolCall)[]) {
      if (key === 'toolCallId') continue;
      if (JSON.stringify(call[key]) === JSON.stringify(previous[key])) continue;
      (changed as Record<string, unknown>)[key] = call[key];
      any = true;
    }
    return any ? { sessionUpdate: 'tool_call_update', ...changed } : undefined;
  }
}
