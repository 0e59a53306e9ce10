/** Always on, whatever the scenario: the wire itself. */
import { citing, d, c, type CheckDef } from './define.js';

export const WIRE_CHECKS: readonly CheckDef[] = [
  // Always on, whatever the scenario: the wire itself.
  // The JSON Schema encodes turns-busy-no-end-fields (session/state is a union on `state`).
  citing(
    d(
      'daemon.wire.schema-valid',
      'MUST',
      'versioning.md#versioning-speak-negotiated',
      'every message the daemon sends validates against the JSON Schema',
    ),
    'turns.md#turns-busy-no-end-fields',
  ),
  d(
    'daemon.wire.capability-negotiated',
    'MUST',
    'versioning.md#versioning-no-method-without-capability',
    'the daemon sends no method whose capability the client did not declare',
  ),
  d(
    'daemon.wire.response-per-request',
    'MUST',
    'transport.md#transport-response-per-request',
    'every request gets exactly one response',
  ),
  d(
    'daemon.wire.stdout-frames-only',
    'MUST',
    'transport.md#transport-stdout-frames-only',
    'in stdio mode the daemon writes nothing but frames to stdout',
  ),
  c(
    'client.wire.schema-valid',
    'MUST',
    'versioning.md#versioning-speak-negotiated',
    'every message the client sends validates against the JSON Schema',
  ),
  c(
    'client.wire.capability-negotiated',
    'MUST',
    'versioning.md#versioning-no-method-without-capability',
    'the client sends no method whose capability the daemon did not advertise',
  ),
  c(
    'client.wire.response-per-request',
    'MUST',
    'transport.md#transport-response-per-request',
    'every request gets exactly one response',
  ),
];
