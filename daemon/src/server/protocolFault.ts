/**
 * A protocol failure detected before a message reaches the JSON-RPC
 * connection (bad frame, bad JSON, bad envelope). It is answered with an error
 * response the connection never sees.
 */
import { ArborErrorCodes, JsonRpcErrorCodes, type MessageTooLargeData } from '@arbor/protocol';

export type JsonRpcIdOrNull = string | number | null;

export interface ProtocolFault {
  code: number;
  message: string;
  /** The error's `data`, when its code defines one (errors.md). */
  data?: MessageTooLargeData;
  /** The request's id when it could be read, else null (JSON-RPC 2.0 §5). */
  id: JsonRpcIdOrNull;
  /** The stream cannot be trusted any more: answer, then close the connection. */
  fatal: boolean;
}

export const faults = {
  parseError: (message: string): ProtocolFault => ({
    code: JsonRpcErrorCodes.ParseError,
    message,
    id: null,
    fatal: false,
  }),
  invalidRequest: (message: string, id: JsonRpcIdOrNull = null): ProtocolFault => ({
    code: JsonRpcErrorCodes.InvalidRequest,
    message,
    id,
    fatal: false,
  }),
  tooLarge: (length: number, max: number): ProtocolFault => ({
    code: ArborErrorCodes.MessageTooLarge,
    message: `message of ${length} bytes exceeds the maximum of ${max} bytes; it was discarded`,
    data: { maxMessageBytes: max, contentLength: length },
    id: null,
    fatal: false,
  }),
  unreadableHeader: (reason: string): ProtocolFault => ({
    code: JsonRpcErrorCodes.ParseError,
    message: `unreadable frame header (${reason}); closing the connection`,
    id: null,
    fatal: true,
  }),
};
