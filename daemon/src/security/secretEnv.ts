/**
 * Which environment variables are secrets. The daemon holds provider keys in
 * its environment; a command it runs gets an environment without them and
 * without anything else that looks like a credential
 * (security.md#security-command-env-scrubbed), unless the config names the
 * variable in `sandbox.allowEnv`.
 */
import { hasUrlPassword, urlCredentialSecrets } from './urlCredentials.js';

/** Names that say "credential", anywhere in the name, any case. */
const SECRET_WORDS = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE/i;
/** Whole families: the providers' and the daemon's own settings, cloud credentials. */
const SECRET_PREFIXES = ['OPENAI_', 'ANTHROPIC_', 'AZURE_OPENAI_', 'ARBOR_', 'AWS_'];
/** Match SECRET_WORDS but hold no secret, and git needs them to commit. */
const HARMLESS = /^GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)$/;

function hasSecretWord(name: string): boolean {
  return SECRET_WORDS.test(name) && !HARMLESS.test(name);
}

export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return hasSecretWord(name) || SECRET_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** A variable a command must not see: secret by name, or a URL with a password in it. */
export function isSecretEnv(name: string, value: string): boolean {
  return isSecretEnvName(name) || hasUrlPassword(value);
}

/**
 * The environment for a command: `env` without its secret variables, except
 * those `allow` names exactly. Never logs a value.
 */
export function scrubEnv(
  env: NodeJS.ProcessEnv,
  allow: readonly string[] = [],
): Record<string, string> {
  const allowed = new Set(allow);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (allowed.has(name) || !isSecretEnv(name, value)) out[name] = value;
  }
  return out;
}

/**
 * Values of the environment worth redacting wherever they show up: URL
 * credentials, and the values of variables named like a credential
 * (OPENAI_API_KEY, not OPENAI_BASE_URL) that look like one rather than like
 * a setting: long enough, no spaces, no path, no URL.
 */
export function secretEnvValues(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    out.push(...urlCredentialSecrets(value));
    if (!hasSecretWord(name)) continue;
    const trimmed = value.trim();
    if (trimmed.length >= 12 && !/\s|:\/\//.test(trimmed) && !/^[/~.]/.test(trimmed))
      out.push(trimmed);
  }
  return out;
}
