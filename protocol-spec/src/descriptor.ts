/**
 * A method descriptor holds everything about one protocol method in one place:
 * its literal name, direction, kind, schemas, the capability it depends on and
 * the version it appeared in. Daemon, clients and the conformance suite read
 * method names from descriptors only; no method string is typed twice.
 */
import type { z } from 'zod';

/** `both`: either side sends it (`$/cancelRequest` cancels requests of either side). */
export type Direction = 'clientToDaemon' | 'daemonToClient' | 'both';

/**
 * A dotted path into the negotiated capabilities, e.g. `client.approvals`:
 * the method may only be sent when that capability is present.
 */
export type CapabilityPath = `client.${string}` | `daemon.${string}`;

interface DescriptorBase<M extends string, P extends z.ZodType> {
  readonly method: M;
  readonly direction: Direction;
  readonly params: P;
  readonly capability: CapabilityPath | null;
  /** Protocol major version that introduced the method. */
  readonly since: number;
  /** One sentence for the meta-model and the spec's method index. */
  readonly summary: string;
  /** Anchor of the method's section in the written spec (`file.md#anchor`). */
  readonly specRef: string;
}

export interface RequestDescriptor<
  M extends string = string,
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> extends DescriptorBase<M, P> {
  readonly kind: 'request';
  readonly result: R;
}

export interface NotificationDescriptor<
  M extends string = string,
  P extends z.ZodType = z.ZodType,
> extends DescriptorBase<M, P> {
  readonly kind: 'notification';
}

export type MethodDescriptor = RequestDescriptor | NotificationDescriptor;

type RequestSpec<M extends string, P extends z.ZodType, R extends z.ZodType> = Omit<
  RequestDescriptor<M, P, R>,
  'kind' | 'capability' | 'since'
> &
  Partial<Pick<RequestDescriptor<M, P, R>, 'capability' | 'since'>>;

type NotificationSpec<M extends string, P extends z.ZodType> = Omit<
  NotificationDescriptor<M, P>,
  'kind' | 'capability' | 'since'
> &
  Partial<Pick<NotificationDescriptor<M, P>, 'capability' | 'since'>>;

export function request<const M extends string, P extends z.ZodType, R extends z.ZodType>(
  spec: RequestSpec<M, P, R>,
): RequestDescriptor<M, P, R> {
  return Object.freeze({ kind: 'request', capability: null, since: 1, ...spec });
}

export function notification<const M extends string, P extends z.ZodType>(
  spec: NotificationSpec<M, P>,
): NotificationDescriptor<M, P> {
  return Object.freeze({ kind: 'notification', capability: null, since: 1, ...spec });
}

/** Whether `side` may send the method. */
export function sentBy(descriptor: MethodDescriptor, side: 'client' | 'daemon'): boolean {
  return (
    descriptor.direction === 'both' ||
    descriptor.direction === (side === 'client' ? 'clientToDaemon' : 'daemonToClient')
  );
}

export type ParamsOf<D extends MethodDescriptor> = z.infer<D['params']>;
export type ResultOf<D extends RequestDescriptor> = z.infer<D['result']>;

/** Methods whose names start with `_` are extensions; `$/` methods are LSP's. */
export function isExtensionMethod(method: string): boolean {
  return method.startsWith('_');
}
export function isLspDollarMethod(method: string): boolean {
  return method.startsWith('$/');
}
