/**
 * web_fetch (category external: it asks in default mode). Downloads one URL
 * (fetchPage.ts: HTTP(S), bounded redirects, timeouts, a streamed size cap,
 * non-public addresses refused) and returns its content as the model can use
 * it (pageContent.ts). The first line of the result names the URL that
 * answered and the bytes read, so the tree node shows both. Credentials in
 * the URL become known secrets as the arguments are parsed, so nothing the
 * daemon stores or sends afterwards repeats them, and the result never names them.
 */
import { z } from 'zod';
import { daemonSecrets } from '../../security/secretRedactor.js';
import { splitUrlCredentials, urlCredentialSecrets } from '../../security/urlCredentials.js';
import { defineTool, type Tool } from '../tool.js';
import { AddressPolicy } from './addressPolicy.js';
import { fetchPage, FetchError, type FetchedPage } from './fetchPage.js';
import { pageContent } from './pageContent.js';
import { webFetchSettings, type WebFetchSettings } from './webFetchSettings.js';

export const WEB_FETCH = 'web_fetch';
export const DEFAULT_FETCH_BYTES = 1024 * 1024;
export const MAX_FETCH_BYTES = 10 * 1024 * 1024;

/**
 * Makes credentials written into a URL known secrets. Run as the arguments
 * are parsed — the daemon's first use of them, before the permission gate,
 * the approval record and the stored transcript — so none of those keep them.
 */
function rememberUrlCredentials(url: string): string {
  daemonSecrets.add(...urlCredentialSecrets(url));
  return url;
}

export const WebFetchArgs = z.object({
  url: z
    .string()
    .min(1)
    .describe('The http:// or https:// URL to fetch')
    .transform(rememberUrlCredentials),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .max(MAX_FETCH_BYTES)
    .default(DEFAULT_FETCH_BYTES)
    .describe('Stop downloading after this many bytes of the body'),
});
export type WebFetchArgs = z.infer<typeof WebFetchArgs>;

export interface WebFetchOptions {
  /** Default: the daemon's, as configured at startup. */
  settings?: () => WebFetchSettings;
}

/** The URL as it may be shown: credentials removed. */
function shown(url: string): string {
  return splitUrlCredentials(url).url;
}

export function webFetchTool(options: WebFetchOptions = {}): Tool {
  const settings = options.settings ?? webFetchSettings;
  return defineTool<WebFetchArgs>({
    name: WEB_FETCH,
    description:
      'Fetches a web page or file over http(s) and returns it as text: HTML as readable Markdown (the main article), text and JSON as they are. ' +
      'Use it to read documentation, an issue or an API response the user points to or that you need; not for files of the workspace (read_file). ' +
      `At most maxBytes (default ${DEFAULT_FETCH_BYTES}) bytes are downloaded. Addresses on the local machine or a private network are refused unless the user allowed them.`,
    input: WebFetchArgs,
    category: 'external',
    // A session grant covers the same site (scheme, host and port).
    grantKey: ({ url }) => {
      try {
        return new URL(shown(url)).origin;
      } catch {
        return shown(url);
      }
    },
    execute: async ({ url, maxBytes }, ctx) => {
      const policy = new AddressPolicy(settings());
      let page: FetchedPage;
      try {
        page = await fetchPage(url, { maxBytes, policy, signal: ctx.signal });
      } catch (error) {
        if (error instanceof FetchError) return { content: error.message, isError: true };
        throw error;
      }
      const finalUrl = page.urls[page.urls.length - 1]!;
      const redirects = page.urls.length > 1 ? ` (redirected from ${page.urls[0]})` : '';
      const size = `${page.body.length} bytes${page.truncated ? `, cut at maxBytes ${maxBytes}` : ''}`;
      const header = `${finalUrl}${redirects}: HTTP ${page.status} ${page.statusText}, ${page.contentType || 'no content type'}, ${size}`;
      const content = pageContent(page.body, page.contentType);
      if (content.kind === 'refused')
        return { content: `${header}\n${content.reason}`, isError: true };
      const marker = page.truncated
        ? `\n[… cut: only the first ${maxBytes} bytes were downloaded; pass a larger maxBytes for more]`
        : '';
      const ok = page.status >= 200 && page.status < 300;
      return { content: `${header}\n\n${content.text}${marker}`, isError: !ok };
    },
  }) as Tool;
}
