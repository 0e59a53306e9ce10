/**
 * LSP's `$/` methods that vscode-jsonrpc handles but does not export by name.
 * They belong to LSP, not to the Arbor protocol's descriptors.
 */
import { LogTraceNotification, SetTraceNotification } from 'vscode-jsonrpc';

export const LspMethods = {
  cancelRequest: '$/cancelRequest',
  progress: '$/progress',
  setTrace: SetTraceNotification.type.method,
  logTrace: LogTraceNotification.type.method,
} as const;
