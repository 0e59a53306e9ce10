/** Daemon-side sentences of the protocol core (transport, JSON-RPC, lifecycle, versioning, sessions, errors, security, conformance) the suite cannot observe from outside, with the reason. */
import type { Unobservable } from './types.js';

export const UNOBSERVABLE_DAEMON_PROTOCOL: readonly Unobservable[] = [];
