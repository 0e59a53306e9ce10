/** Errors the client core reports: what went wrong, in the protocol's own words. */
import type { z } from 'zod';
import type { CapabilityPath } from '../descriptor.js';

/** Which side produced the bad message. */
export type MessageOrigin = 'daemon' | 'client';

/**
 * A message failed its zod schema. From the daemon: the message was ignored
 * (or answered -32602 when it was a request). From the client: nothing was sent.
 */
export class ProtocolValidationError extends Error {
  override readonly name = 'ProtocolValidationError';
  constructor(
    readonly method: string,
    readonly part: 'params' | 'result',
    readonly origin: MessageOrigin,
    readonly issues: z.ZodError['issues'],
  ) {
    super(
      `${origin === 'daemon' ? 'Daemon' : 'Client'} sent invalid ${part} for ${method}: ` +
        issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; '),
    );
  }
}

/** The daemon answered `initialize` with a protocol version this client does not speak. */
export class UnsupportedDaemonVersionError extends Error {
  override readonly name = 'UnsupportedDaemonVersionError';
  constructor(
    readonly daemonVersion: number,
    readonly supported: readonly number[],
  ) {
    super(
      `The daemon speaks protocol version ${daemonVersion}; this client speaks ${supported.join(', ')}`,
    );
  }
}

/** A method was used whose capability the other side did not offer in `initialize`. */
export class CapabilityNotNegotiatedError extends Error {
  override readonly name = 'CapabilityNotNegotiatedError';
  constructor(
    readonly method: string,
    readonly capability: CapabilityPath,
  ) {
    super(`${method} needs capability ${capability}, which was not negotiated`);
  }
}

/** A method used in the wrong lifecycle phase or the wrong direction. */
export class ClientStateError extends Error {
  override readonly name = 'ClientStateError';
}

/**
 * A message longer than the daemon accepts (`maxMessageBytes`): it was not
 * sent, since the daemon would answer -33003 (transport.md#transport-client-respects-max).
 */
export class MessageTooLargeError extends Error {
  override readonly name = 'MessageTooLargeError';
  constructor(
    readonly method: string,
    readonly bytes: number,
    readonly maxMessageBytes: number,
  ) {
    super(
      `${method} not sent: its message is ${bytes} bytes, more than the daemon accepts (${maxMessageBytes})`,
    );
  }
}
