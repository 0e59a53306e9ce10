/** Daemon-side sentences of the protocol core (transport, JSON-RPC, lifecycle, versioning, sessions, errors, security, conformance) the suite cannot observe from outside, with the reason. */
import type { Unobservable } from './types.js';

/** In protocol 1 every valid `protocolVersion` (a positive integer) yields v = 1, which every daemon speaks. */
const ONLY_VERSION_1 =
  'protocol 1 is the only version: every valid protocolVersion (a positive integer) gives v = min(it, 1) = 1, which every daemon supports, so no valid initialize can tell this apart; it becomes observable once a version 2 exists';

export const UNOBSERVABLE_DAEMON_PROTOCOL: readonly Unobservable[] = [
  {
    anchor: 'versioning.md#versioning-additions-changelog',
    binds: 'specification',
    why: "It obliges the specification's authors, not an implementation: whether changelog.md records an addition with its date shows nowhere on the wire. No test checks it either; it rests on review of spec changes.",
  },
  {
    anchor: 'versioning.md#versioning-since',
    binds: 'both',
    why: `Its first half obliges the specification's authors (what a descriptor's since says; protocol-spec/test/descriptors.test.ts only checks that every since is a whole number from 1). Its second half binds both sides, but every method has since 1 (the default in protocol-spec/src/descriptor.ts, which no descriptor overrides), so none can be sent on a connection of an earlier version: ${ONLY_VERSION_1}`,
  },
  {
    anchor: 'versioning.md#versioning-anchor-stability',
    binds: 'specification',
    why: "It obliges the specification's authors, not an implementation: which requirement an anchor named before shows nowhere on the wire. No test can tell a reworded sentence from a different requirement (conformance-tests/test/registry.test.ts only checks that every anchor a check cites still exists); it rests on review of spec changes.",
  },
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
  {
    anchor: 'security.md#security-confined-race',
    binds: 'daemon',
    why: "the window between a path's check and its use is seen only by a process that swaps the path at the right instant; the suite has no hold on the daemon's timing, so a pass would say it lost the race, not that the window is closed (the settled cases, a symbolic link out of the workspace or into .git/, are judged by daemon.security.workspace-confined and daemon.security.protected-paths-resolved). Arbor's own tests race a swapping process against its tools (daemon/test/tools/confinementRace.test.ts).",
  },
  {
    anchor: 'security.md#security-command-sandbox-probe',
    binds: 'daemon',
    why: "whether the daemon tried its sandbox before relying on it shows only on a machine where the sandbox is installed but does not work, which the suite cannot arrange on the daemon's machine; what a command then meets, a sandbox or a result saying there was none, is judged by daemon.security.command-sandbox. Arbor's own tests judge the probe (daemon/test/tools/sandbox.test.ts).",
  },
];
