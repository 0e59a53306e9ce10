/**
 * `arbor chat --json`: every protocol event of the session as one line,
 * `{"method": ..., "params": ...}`, params exactly as the client core
 * validated them against the protocol schemas. Approval requests and the
 * model's questions are events too (they are answered from the keyboard; the
 * prompt goes to stderr).
 */
import { Methods } from '@arbor/protocol';
import {
  SESSION_EVENT_METHODS,
  type ArborClient,
  type Disposable,
  type SessionView,
} from '@arbor/protocol/client';

export interface JsonLine {
  method: string;
  params: unknown;
}

export function jsonLine(method: string, params: unknown): string {
  return `${JSON.stringify({ method, params } satisfies JsonLine)}\n`;
}

/** Writes the session's events to `out` until disposed. */
export function streamJsonEvents(
  client: ArborClient,
  view: SessionView,
  out: { write(text: string): unknown },
): Disposable {
  const subscriptions: Disposable[] = SESSION_EVENT_METHODS.map((descriptor) =>
    client.onNotification(descriptor, (params) => {
      if (params.sessionId === view.sessionId) out.write(jsonLine(descriptor.method, params));
    }),
  );
  subscriptions.push(
    view.approvals.on('added', ({ request }) =>
      out.write(jsonLine(Methods.ApprovalRequest.method, request)),
    ),
    view.questions.on('added', ({ request }) =>
      out.write(jsonLine(Methods.QuestionRequest.method, request)),
    ),
  );
  return { dispose: () => subscriptions.splice(0).forEach((s) => s.dispose()) };
}
