/** Credentials written into URLs (`http://user:pass@host/`): found, split off, kept apart. */

export interface UrlCredentials {
  /** Decoded. */
  username: string;
  /** Decoded; empty when the URL gives a user only (a token used as the user name). */
  password: string;
}

/** The authority's userinfo: up to the last `@` before the path, as URL parsers read it. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i;
/** Anywhere in a text (environment values, model strings). */
const USERINFO_ANYWHERE = /[a-z][a-z0-9+.-]*:\/\/([^/?#\s@]*)@/gi;

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function parseUserinfo(userinfo: string): UrlCredentials {
  const colon = userinfo.indexOf(':');
  return colon === -1
    ? { username: decode(userinfo), password: '' }
    : { username: decode(userinfo.slice(0, colon)), password: decode(userinfo.slice(colon + 1)) };
}

/** The URL without its userinfo, otherwise unchanged, and the credentials it carried. */
export function splitUrlCredentials(url: string): { url: string; credentials?: UrlCredentials } {
  const match = USERINFO.exec(url);
  if (!match || match[2] === '') return { url };
  return {
    url: match[1]! + url.slice(match[0].length),
    credentials: parseUserinfo(match[2]!),
  };
}

/**
 * The secret parts of URL credentials in a text, raw and decoded: the
 * password, or the user name when there is none (a token as user name).
 */
export function urlCredentialSecrets(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(USERINFO_ANYWHERE)) {
    const raw = match[1]!;
    if (raw === '') continue;
    const colon = raw.indexOf(':');
    const secret = colon === -1 ? raw : raw.slice(colon + 1);
    if (secret === '') continue;
    out.push(secret, decode(secret));
  }
  return out;
}

/*
 * Every repetition is bounded: these run over whole tool results and model
 * answers, and an unbounded scheme (`[a-z][a-z0-9+.-]*`) backtracks over the
 * rest of the text from every letter — quadratic, minutes for a 1 MiB answer.
 * Schemes are short; longer user names and passwords than these bounds are
 * left to the redactor of known secrets.
 */
/** `scheme://user:password@` anywhere in a text. */
const URL_WITH_PASSWORD = /([a-z][a-z0-9+.-]{0,31}:\/\/[^/?#\s@:]{0,256}:)[^/?#\s@]{1,1024}@/gi;
/** `http(s)://token@`: over HTTP a lone user name is usually a token (over ssh, `git@` is not). */
const HTTP_URL_WITH_USER = /(https?:\/\/)[^/?#\s@:]{1,1024}@/gi;

/** A URL with a password (`scheme://user:pass@`) somewhere in the text. */
export function hasUrlPassword(text: string): boolean {
  URL_WITH_PASSWORD.lastIndex = 0;
  return URL_WITH_PASSWORD.test(text);
}

/**
 * The text with the secret part of every URL credential replaced by
 * `[redacted]`: for what the daemon shows before it could learn the values
 * (a tool call's argument preview is made as the model's call arrives).
 */
export function maskUrlCredentials(text: string): string {
  return text
    .replace(URL_WITH_PASSWORD, '$1[redacted]@')
    .replace(HTTP_URL_WITH_USER, '$1[redacted]@');
}
