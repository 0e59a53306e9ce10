/** Daemon-side sentences of the protocol core (transport, JSON-RPC, lifecycle, versioning, sessions, errors, security, conformance) the suite cannot observe from outside, with the reason. */
import type { Unobservable } from './types.js';

/** In protocol 1 every valid `protocolVersion` (a positive integer) yields v = 1, which every daemon speaks. */
const ONLY_VERSION_1 =
  'protocol 1 is the only version: every valid protocolVersion (a positive integer) gives v = min(it, 1) = 1, which every daemon supports, so no valid initialize can tell this apart; it becomes observable once a version 2 exists';

export const UNOBSERVABLE_DAEMON_PROTOCOL: readonly Unobservable[] = [
  { anchor: 'versioning.md#versioning-unsupported', binds: 'daemon', why: ONLY_VERSION_1 },
  {
    anchor: 'versioning.md#versioning-top-level-wins',
    binds: 'daemon',
    why: `${ONLY_VERSION_1} (the two places would have to name different supported versions)`,
  },
  {
    anchor: 'transport.md#transport-loopback-only',
    binds: 'daemon',
    why: 'the suite is given a running daemon or a command that starts one; how a daemon is told where to listen is its own command line, so the suite cannot ask it to bind another address',
  },
  {
    anchor: 'security.md#security-data-dir-mode',
    binds: 'deployment',
    why: 'the data directory is not part of the protocol: the suite does not know where it is, and its mode is set by whoever installs and starts the daemon',
  },
  {
    anchor: 'security.md#security-data-files-mode',
    binds: 'deployment',
    why: 'files in the data directory are never named on the wire, so the suite cannot find them to check their mode',
  },
  {
    anchor: 'security.md#security-token-generated',
    binds: 'deployment',
    why: 'the suite is handed the token (--token-file); how it was generated, its entropy and the file it came from are outside the protocol',
  },
  {
    anchor: 'security.md#security-no-secrets-in-logs',
    binds: 'daemon',
    why: "a daemon's logs are not on the wire and have no specified place, so the suite cannot read them",
  },
  {
    anchor: 'security.md#security-testing-off',
    binds: 'daemon',
    why: 'the suite runs against a daemon started for testing (it needs the scripted provider); it cannot start the same daemon without testing to see the capability absent',
  },
];
