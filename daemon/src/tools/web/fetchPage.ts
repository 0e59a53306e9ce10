/**
 * One web_fetch download: HTTP(S) only, redirects followed up to a bound with
 * every hop checked again (scheme, address), a connect timeout and a total
 * one, and a size cap applied while the body streams in — the rest is never
 * read, so a huge or endless body costs no more memory than the cap.
 * Credentials written into the URL are sent as Basic authorization to the
 * URL's own origin only, never to a host a redirect leads to.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { splitUrlCredentials, type UrlCredentials } from '../../security/urlCredentials.js';
import type { AddressPolicy } from './addressPolicy.js';
import { guardedLookup, RefusedAddressError } from './guardedLookup.js';

export const MAX_REDIRECTS = 5;
export const CONNECT_TIMEOUT_MS = 10_000;
export const TOTAL_TIMEOUT_MS = 30_000;

/** A failure the model can act on (bad URL, refused address, timeout, too many redirects). */
export class FetchError extends Error {
  override name = 'FetchError';
}

export interface FetchOptions {
  maxBytes: number;
  policy: AddressPolicy;
  signal: AbortSignal;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
}

export interface FetchedPage {
  /** Every URL requested, the first as given (without credentials), the last the one that answered. */
  urls: string[];
  status: number;
  statusText: string;
  /** The Content-Type header, as sent ('' when absent). */
  contentType: string;
  body: Buffer;
  /** The body was longer than maxBytes and was cut there. */
  truncated: boolean;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The URL as web_fetch may request it, or a FetchError saying why not. */
export function checkedUrl(text: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FetchError(`not a valid absolute URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchError(
      `refused: ${url.protocol} URLs are not fetched; web_fetch reaches http and https only`,
    );
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0) {
    const reason = policy.refusal(host);
    if (reason !== undefined)
      throw new FetchError(`refused: ${reason}; web_fetch only reaches the public internet`);
  }
  return url;
}

export async function fetchPage(address: string, options: FetchOptions): Promise<FetchedPage> {
  const { url: plain, credentials } = splitUrlCredentials(address);
  const first = checkedUrl(plain, options.policy);
  const timeout = AbortSignal.timeout(options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS);
  const signal = AbortSignal.any([options.signal, timeout]);
  const urls: string[] = [];
  let url = first;
  for (;;) {
    urls.push(url.href);
    const auth = credentials && url.origin === first.origin ? credentials : undefined;
    const response = await open(url, auth, options, signal).catch((error: unknown) => {
      throw describeFailure(error, url, timeout, options);
    });
    const location = response.headers.location;
    if (
      response.statusCode !== undefined &&
      REDIRECT_STATUSES.has(response.statusCode) &&
      location
    ) {
      response.destroy();
      if (urls.length > MAX_REDIRECTS)
        throw new FetchError(
          `too many redirects (more than ${MAX_REDIRECTS}): ${urls.join(' -> ')}`,
        );
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new FetchError(`redirect to an invalid URL: ${location}`);
      }
      url = checkedUrl(splitUrlCredentials(next.href).url, options.policy);
      continue;
    }
    const { body, truncated } = await readCapped(response, options.maxBytes, signal).catch(
      (error: unknown) => {
        throw describeFailure(error, url, timeout, options);
      },
    );
    return {
      urls,
      status: response.statusCode ?? 0,
      statusText: response.statusMessage ?? '',
      contentType: response.headers['content-type'] ?? '',
      body,
      truncated,
    };
  }
}

function open(
  url: URL,
  credentials: UrlCredentials | undefined,
  options: FetchOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'GET',
      signal,
      lookup: guardedLookup(options.policy),
      headers: {
        'user-agent': 'arbor-web-fetch/1',
        accept: 'text/html, text/*;q=0.9, application/json;q=0.9, */*;q=0.1',
        'accept-encoding': 'identity',
        ...(credentials && {
          authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`,
        }),
      },
    });
    const connectTimer = setTimeout(
      () =>
        request.destroy(
          new FetchError(
            `could not connect to ${url.host} within ${(options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS) / 1000} s`,
          ),
        ),
      options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    );
    request.on('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    request.once('response', (response) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    request.once('error', (error) => {
      clearTimeout(connectTimer);
      reject(error);
    });
    request.end();
  });
}

/**
 * The body, decompressed when the server compressed it although asked not
 * to; the cap then counts decompressed bytes, so a compression bomb stops there too.
 */
function decodedBody(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return response;
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

/** Reads at most `maxBytes` of the body, then stops the download. */
async function readCapped(
  response: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  const body = decodedBody(response);
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      signal.throwIfAborted();
      const room = maxBytes - kept;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        kept += room;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      kept += chunk.length;
    }
  } finally {
    // Whatever is left is not wanted: close the connection instead of draining it.
    body.destroy();
    response.destroy();
  }
  return { body: Buffer.concat(chunks, kept), truncated };
}

function describeFailure(
  error: unknown,
  url: URL,
  timeout: AbortSignal,
  options: FetchOptions,
): Error {
  if (options.signal.aborted) return options.signal.reason as Error;
  if (error instanceof FetchError) return error;
  if (error instanceof RefusedAddressError) return new FetchError(error.message);
  if (timeout.aborted)
    return new FetchError(
      `${url.href} did not answer within ${(options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS) / 1000} s`,
    );
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTFOUND') return new FetchError(`${url.hostname} was not found (DNS)`);
  return new FetchError(`${url.href} could not be fetched: ${(error as Error).message}`);
}
