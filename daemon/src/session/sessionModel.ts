/**
 * The model a session is given (session/new, session/setModel): checked, and
 * as it may be stored and shown — a `local:` URL's credentials stay in this
 * process only (security.md#security-model-credentials-stripped).
 */
import { withoutModelCredentials } from '../providers/localCredentials.js';
import { ModelRefError, parseModelRef } from '../providers/modelRef.js';
import { rpcErrors } from '../rpcError.js';

/** -33011 when malformed or of a provider this daemon does not know (sessions.md#sessions-new-invalid-model). */
export function acceptedModel(model: string): string {
  try {
    parseModelRef(model);
  } catch (error) {
    if (error instanceof ModelRefError) throw rpcErrors.invalidModel(error.message);
    throw error;
  }
  return withoutModelCredentials(model);
}
