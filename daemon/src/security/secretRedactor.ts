/**
 * Known secrets (provider API keys, the socket token, URL credentials) are
 * replaced by a marker in what leaves the daemon: `run_command` output the
 * model reads, and every session event before it is stored and sent
 * (security.md#security-redact-known-secrets). It matches the exact values
 * this daemon holds: a last line of defence against echoing them, not a
 * detector of secrets in general.
 */

export const REDACTED = '[redacted]';
/** Shorter values would match ordinary text, and are no credible secret. */
export const MIN_SECRET_LENGTH = 8;

export class SecretRedactor {
  /** Longest first, so a secret that contains another is replaced whole. */
  private secrets: string[] = [];

  /** Adds values to redact; too short or empty ones are ignored (never logged). */
  add(...values: readonly (string | undefined)[]): void {
    const next = new Set(this.secrets);
    for (const value of values) {
      const secret = value?.trim();
      if (secret === undefined || secret.length < MIN_SECRET_LENGTH) continue;
      next.add(secret);
      // As it appears inside JSON text (argument previews are JSON).
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (escaped !== secret) next.add(escaped);
    }
    this.secrets = [...next].sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.secrets.length;
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  }

  /**
   * For text cut at an arbitrary byte: also the start of a secret left at
   * the cut (4 characters or more), which `redact` cannot recognise.
   */
  redactCut(text: string): string {
    const out = this.redact(text);
    for (const secret of this.secrets) {
      for (let length = Math.min(secret.length - 1, out.length); length >= 4; length--) {
        if (out.endsWith(secret.slice(0, length))) return out.slice(0, -length) + REDACTED;
      }
    }
    return out;
  }

  /**
   * For a window cut out of a longer text at both ends (the tail of a
   * command's output so far): also the end of a secret left at its start.
   */
  redactWindow(text: string): string {
    let out = this.redactCut(text);
    for (const secret of this.secrets) {
      for (let length = Math.min(secret.length - 1, out.length); length >= 4; length--) {
        if (out.startsWith(secret.slice(-length))) {
          out = REDACTED + out.slice(length);
          break;
        }
      }
    }
    return out;
  }

  /**
   * Every string inside a JSON-like value (object keys included), redacted.
   * Returns the value itself when nothing changed, so the common case copies nothing.
   */
  redactDeep<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((item) => {
        const next = this.walk(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : value;
    }
    if (isPlainObject(value)) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const nextKey = this.redact(key);
        const next = this.walk(item);
        if (next !== item || nextKey !== key) changed = true;
        out[nextKey] = next;
      }
      return changed ? out : value;
    }
    return value;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The daemon's own secrets: filled at startup from its configuration and
 * environment, and when a session brings URL credentials. One per process,
 * like the keys themselves.
 */
export const daemonSecrets = new SecretRedactor();
