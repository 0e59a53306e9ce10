/**
 * Routes client-to-daemon methods to handlers registered by descriptor. The
 * descriptor's zod schema parses the params before the handler runs, so a
 * handler only ever sees typed, validated params.
 */
import {
  sentBy,
  type MethodDescriptor,
  type NotificationDescriptor,
  type ParamsOf,
  type RequestDescriptor,
  type ResultOf,
} from '@arbor/protocol';
import type { z } from 'zod';
import { RpcError, rpcErrors } from '../rpcError.js';

export interface CancellationSignal {
  readonly isCancellationRequested: boolean;
}

export type RequestHandler<D extends RequestDescriptor, C> = (
  params: ParamsOf<D>,
  context: C,
  cancellation: CancellationSignal,
) => ResultOf<D> | Promise<ResultOf<D>>;

export type NotificationHandler<D extends NotificationDescriptor, C> = (
  params: ParamsOf<D>,
  context: C,
) => void;

export class MethodRouter<C> {
  private readonly requests = new Map<
    string,
    (raw: unknown, c: C, s: CancellationSignal) => unknown
  >();
  private readonly notifications = new Map<string, (raw: unknown, c: C) => void>();

  onRequest<D extends RequestDescriptor>(descriptor: D, handler: RequestHandler<D, C>): this {
    assertClientToDaemon(descriptor);
    this.requests.set(descriptor.method, (raw, context, cancellation) =>
      handler(parseParams(descriptor, raw), context, cancellation),
    );
    return this;
  }

  onNotification<D extends NotificationDescriptor>(
    descriptor: D,
    handler: NotificationHandler<D, C>,
  ): this {
    assertClientToDaemon(descriptor);
    this.notifications.set(descriptor.method, (raw, context) =>
      handler(parseParams(descriptor, raw), context),
    );
    return this;
  }

  hasRequest(method: string): boolean {
    return this.requests.has(method);
  }

  /** Resolves with the result or rejects with an RpcError; never anything else. */
  async handleRequest(
    method: string,
    rawParams: unknown,
    context: C,
    cancellation: CancellationSignal,
  ): Promise<unknown> {
    const handler = this.requests.get(method);
    if (!handler) throw rpcErrors.methodNotFound(method);
    if (cancellation.isCancellationRequested) throw rpcErrors.cancelled();
    const result = await handler(rawParams, context, cancellation);
    // LSP: a cancelled request answers RequestCancelled even if work finished.
    if (cancellation.isCancellationRequested) throw rpcErrors.cancelled();
    return result;
  }

  /** Unknown notifications are ignored (the spec says so); invalid ones throw. */
  handleNotification(method: string, rawParams: unknown, context: C): boolean {
    const handler = this.notifications.get(method);
    if (!handler) return false;
    handler(rawParams, context);
    return true;
  }
}

function assertClientToDaemon(descriptor: MethodDescriptor): void {
  if (!sentBy(descriptor, 'client')) {
    throw new Error(`${descriptor.method} is sent by the daemon; it cannot be handled here`);
  }
}

/**
 * transport.md#transport-null-params: `params` absent or `null` mean the
 * same, and a method whose params are an object reads them as `{}` (so a
 * method with no required member works, and one with required members
 * names what is missing).
 */
export function parseParams<D extends MethodDescriptor>(descriptor: D, raw: unknown): ParamsOf<D> {
  const schema = descriptor.params as z.ZodType;
  let parsed = schema.safeParse(raw ?? undefined);
  if (!parsed.success && (raw === null || raw === undefined)) parsed = schema.safeParse({});
  if (parsed.success) return parsed.data as ParamsOf<D>;
  throw rpcErrors.invalidParams(
    `invalid params for ${descriptor.method}: ${describeIssues(parsed.error)}`,
  );
}

/** `path: message; ...` — zod's messages name expectations, never the values sent. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'params'}: ${issue.message}`)
    .join('; ');
}

export function isRpcError(error: unknown): error is RpcError {
  return error instanceof RpcError;
}
