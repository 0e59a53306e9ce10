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
    // argsPreview and resultPreview have maxLength 500 (code points); daemon-long-preview sends 600.
    'tree.md#tree-preview-limit',
    // The schema lists each enum's values, closed: a value it does not list is invalid.
    'versioning.md#versioning-closed-enums',
  ),
  citing(
    d(
      'daemon.wire.capability-negotiated',
      'MUST',
      'versioning.md#versioning-no-method-without-capability',
      'the daemon sends no method whose capability the client did not declare',
    ),
    // A capability the client left out is unsupported: the daemon sends nothing it gates. (That a
    // present `{}` counts is judged where the suite declares `approvals: {}` and `clientTools: {}`.)
    'versioning.md#versioning-absent-unsupported',
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
  citing(
    d(
      'daemon.wire.frames',
      'MUST',
      'transport.md#transport-content-length-required',
      'every frame the daemon sends has one Content-Length counting its content in UTF-8 bytes, a header part of at most 8192 bytes and UTF-8 JSON content',
    ),
    'transport.md#transport-content-length-utf8-bytes',
    'transport.md#transport-header-limit',
    'transport.md#transport-content-utf8',
  ),
  d(
    'daemon.wire.ids-unique',
    'MUST',
    'transport.md#transport-id-unique',
    'the daemon never sends a request with the id of one of its requests still unanswered',
  ),
  citing(
    c(
      'client.wire.schema-valid',
      'MUST',
      'versioning.md#versioning-speak-negotiated',
      'every message the client sends validates against the JSON Schema',
    ),
    // The schema lists each enum's values, closed: a value it does not list is invalid.
    'versioning.md#versioning-closed-enums',
  ),
  citing(
    c(
      'client.wire.capability-negotiated',
      'MUST',
      'versioning.md#versioning-no-method-without-capability',
      'the client sends no method whose capability the daemon did not advertise',
    ),
    // The suite's daemon advertises no `tools`: a client that calls tools/list took it as supported.
    'versioning.md#versioning-absent-unsupported',
  ),
  c(
    'client.wire.response-per-request',
    'MUST',
    'transport.md#transport-response-per-request',
    'every request gets exactly one response',
  ),
  citing(
    c(
      'client.wire.frames',
      'MUST',
      'transport.md#transport-content-length-required',
      'every frame the client sends has one Content-Length counting its content in UTF-8 bytes, a header part of at most 8192 bytes and UTF-8 JSON content',
    ),
    'transport.md#transport-content-length-utf8-bytes',
    'transport.md#transport-header-limit',
    'transport.md#transport-content-utf8',
  ),
  c(
    'client.wire.ids-unique',
    'MUST',
    'transport.md#transport-id-unique',
    'the client never sends a request with the id of one of its requests still unanswered',
  ),
];
