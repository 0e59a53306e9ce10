/**
 * Credentials in a `local:` model's URL (`local:x@http://user:pass@host/v1`).
 * A session stores and shows its model without them
 * (security.md#security-model-ref-no-keys); this process keeps them in
 * memory, by server URL, for the local provider, until it exits. After a
 * restart a stored session's server gets only what the config and
 * environment give: `providers.local.apiKey` / ARBOR_LOCAL_API_KEY, or a
 * default `model` with credentials in the config file or ARBOR_MODEL.
 */
import { daemonSecrets } from '../security/secretRedactor.js';
import { splitUrlCredentials, type UrlCredentials } from '../security/urlCredentials.js';
import { parseModelRef } from './modelRef.js';

/** Base URL without credentials → the credentials last given for it. */
const remembered = new Map<string, UrlCredentials>();

/**
 * The model string to store and show: a `local:` model's URL without its
 * credentials, which are remembered here and redacted from everything the
 * daemon sends. Any other model string is returned as it is.
 */
export function withoutModelCredentials(model: string): string {
  const ref = parseModelRef(model);
  if (ref.provider !== 'local' || ref.baseUrl === undefined) return model;
  const { url, credentials } = splitUrlCredentials(ref.baseUrl);
  if (credentials === undefined) return model;
  remembered.set(url, credentials);
  const { username, password } = credentials;
  daemonSecrets.add(password === '' ? username : password);
  return `local:${ref.model}@${url}`;
}

export interface LocalServerAccess {
  /** The URL to send requests to: never with credentials (fetch refuses them). */
  baseURL: string;
  /** `Authorization` from URL credentials, given or remembered. */
  headers?: Record<string, string>;
}

/** How the local provider reaches a server: credentials in the URL, else remembered ones. */
export function localServerAccess(baseUrl: string): LocalServerAccess {
  const { url, credentials } = splitUrlCredentials(baseUrl);
  const found = credentials ?? remembered.get(url);
  if (found === undefined) return { baseURL: url };
  const basic = Buffer.from(`${found.username}:${found.password}`, 'utf8').toString('base64');
  return { baseURL: url, headers: { Authorization: `Basic ${basic}` } };
}
