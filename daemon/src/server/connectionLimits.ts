/**
 * What one client connection may cost the daemon (security.md#security-bounded-connections):
 * a client that reads nothing, or a stranger without the token, must never
 * grow the daemon's memory without bound or hold a connection forever.
 */
export interface ConnectionLimits {
  /**
   * Bytes written to a client and not yet read by it. Over it, the client is
   * detached from its sessions with `session/detached` (reason
   * `slow_consumer`); its events stay stored and it re-attaches from its seq.
   */
  maxQueuedBytes: number;
  /** Largest frame a socket connection may send before it presented the token. */
  preAuthMaxMessageBytes: number;
  /** A socket connection that has not authenticated by then is closed. */
  authTimeoutMs: number;
  /** Socket connections not yet authenticated at once; more are closed on arrival. */
  maxUnauthenticated: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxQueuedBytes: 16 * 1024 * 1024,
  // initialize carries the client tools manifest (up to 256 declarations), so not tiny.
  preAuthMaxMessageBytes: 1024 * 1024,
  authTimeoutMs: 10_000,
  maxUnauthenticated: 32,
};
