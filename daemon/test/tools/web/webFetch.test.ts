/**
 * web_fetch against a local server: what the model gets, what is refused,
 * and the permission gate around it (category external) in every mode.
 */
import assert from 'node:assert/strict';
import { daemonSecrets } from '../../../src/security/secretRedactor.js';
import type { Tool } from '../../../src/tools/tool.js';
import { webFetchTool } from '../../../src/tools/web/webFetch.js';
import type { WebFetchSettings } from '../../../src/tools/web/webFetchSettings.js';
import { callThroughLoop, MODES } from '../toolLoop.js';
import { ARTICLE_HTML, startFetchServer, type FetchServer } from './fetchServer.js';
import { toolContext } from '../toolContext.js';

/** The test server's address, and it only, is allowed although it is loopback. */
const SERVER_ONLY: WebFetchSettings = {
  allowPrivateNetworks: false,
  privateNetworkAllowlist: ['127.0.0.1'],
};
const DEFAULTS: WebFetchSettings = { allowPrivateNetworks: false, privateNetworkAllowlist: [] };

async function fetchWith(
  settings: WebFetchSettings,
  args: { url: string; maxBytes?: number },
): Promise<{ content: string; isError: boolean }> {
  const tool: Tool = webFetchTool({ settings: () => settings });
  const out = await tool.execute(tool.input.parse(args), toolContext());
  return typeof out === 'string'
    ? { content: out, isError: false }
    : { content: out.content, isError: out.isError === true };
}

describe('web_fetch', function () {
  this.timeout(20_000);
  let server: FetchServer;

  beforeEach(async () => {
    server = await startFetchServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('returns an HTML page as readable Markdown, headed by the URL and its byte count', async () => {
    const result = await fetchWith(SERVER_ONLY, { url: `${server.origin}/article` });
    assert.equal(result.isError, false);
    const [header, , ...rest] = result.content.split('\n');
    assert.match(
      header!,
      /^http:\/\/127\.0\.0\.1:\d+\/article: HTTP 200 OK, text\/html; charset=utf-8, \d+ bytes$/,
    );
    const bytes = Number(/, (\d+) bytes$/.exec(header!)![1]);
    assert.equal(bytes, Buffer.byteLength(ARTICLE_HTML));
    const markdown = rest.join('\n');
    assert.match(markdown, /^# Release notes/);
    assert.match(markdown, /\*\*web fetch\*\*/);
    assert.match(markdown, /`apply_patch`/);
    assert.match(markdown, /^\*\s+First point$/m);
    assert.doesNotMatch(markdown, /<p>|<strong>/, 'no HTML left');
    assert.doesNotMatch(markdown, /Copyright nobody/, 'the footer is not the article');
  });

  it('follows a redirect chain (301, 307, 308), naming where it started and ended', async () => {
    const result = await fetchWith(SERVER_ONLY, { url: `${server.origin}/hop1` });
    assert.equal(result.isError, false);
    assert.match(
      result.content,
      new RegExp(`^${server.origin}/article \\(redirected from ${server.origin}/hop1\\): HTTP 200`),
    );
    assert.deepEqual(server.requests, ['/hop1', '/hop2', '/hop3', '/article']);
  });

  it('stops after 5 redirects', async () => {
    const result = await fetchWith(SERVER_ONLY, { url: `${server.origin}/loop` });
    assert.equal(result.isError, true);
    assert.match(result.content, /^too many redirects \(more than 5\)/);
    assert.equal(server.requests.length, 6);
  });

  it('cuts a 50 MB body at maxBytes while it streams, and stops downloading there', async () => {
    const maxBytes = 1_000_000;
    const before = process.memoryUsage().rss;
    const result = await fetchWith(SERVER_ONLY, { url: `${server.origin}/big`, maxBytes });
    assert.equal(result.isError, false);
    assert.match(result.content.split('\n')[0]!, /, 1000000 bytes, cut at maxBytes 1000000$/);
    const body = result.content.split('\n')[2]!;
    assert.equal(body, 'a'.repeat(maxBytes));
    assert.match(
      result.content,
      /\[… cut: only the first 1000000 bytes were downloaded; pass a larger maxBytes for more\]$/,
    );
    // The server could write only what the socket buffers held beyond the cap.
    const written = await server.bigWritten();
    assert.ok(written < 16 * 1024 * 1024, `the server wrote ${written} bytes`);
    assert.ok(process.memoryUsage().rss - before < 40 * 1024 * 1024, 'memory stays bounded');
  });

  it('returns text as it is (in its charset, decompressed if need be) and JSON as text', async () => {
    const json = await fetchWith(SERVER_ONLY, { url: `${server.origin}/json` });
    assert.equal(json.content.split('\n').slice(2).join('\n'), '{"ok":true,"items":[1,2,3]}');
    const latin1 = await fetchWith(SERVER_ONLY, { url: `${server.origin}/latin1` });
    assert.equal(latin1.content.split('\n')[2], 'café');
    const gzipped = await fetchWith(SERVER_ONLY, { url: `${server.origin}/gzipped` });
    assert.equal(gzipped.content.split('\n')[2], 'plain text, compressed on the wire');
  });

  it('refuses content it cannot turn into text, and marks an HTTP error status as an error', async () => {
    const pdf = await fetchWith(SERVER_ONLY, { url: `${server.origin}/pdf` });
    assert.equal(pdf.isError, true);
    assert.match(
      pdf.content,
      /refused: the content type is application\/pdf; web_fetch returns only HTML \(as Markdown\), text and JSON/,
    );
    const missing = await fetchWith(SERVER_ONLY, { url: `${server.origin}/missing` });
    assert.equal(missing.isError, true);
    assert.match(missing.content, /HTTP 404 Not Found[^\n]*\n\nno such page$/);
  });

  it('refuses a redirect to a private address, another loopback address or another scheme', async () => {
    for (const [path, expected] of [
      ['/to-private', /^refused: 10\.0\.0\.1 is a loopback, private/],
      ['/to-other-loopback', /^refused: 127\.0\.0\.2 is a loopback, private/],
      ['/to-file', /^refused: file: URLs are not fetched/],
    ] as const) {
      const result = await fetchWith(SERVER_ONLY, { url: `${server.origin}${path}` });
      assert.equal(result.isError, true, path);
      assert.match(result.content, expected, path);
    }
    assert.deepEqual(server.requests, ['/to-private', '/to-other-loopback', '/to-file']);
  });

  it('refuses non-http schemes', async () => {
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/x',
      'data:text/plain,hi',
      'javascript:alert(1)',
    ]) {
      const result = await fetchWith(SERVER_ONLY, { url });
      assert.equal(result.isError, true, url);
      assert.match(result.content, /^refused: [a-z]+: URLs are not fetched/, url);
    }
    const relative = await fetchWith(SERVER_ONLY, { url: '/article' });
    assert.match(relative.content, /^not a valid absolute URL/);
  });

  it('without the setting refuses 127.0.0.1, 10.x, [::1], ::ffff:127.0.0.1 and a name resolving to loopback', async () => {
    for (const url of [
      `${server.origin}/article`,
      'http://10.1.2.3/',
      `http://[::1]:${server.port}/article`,
      `http://[::ffff:127.0.0.1]:${server.port}/article`,
      `http://localhost:${server.port}/article`,
      // Other spellings of 127.0.0.1 the URL parser accepts.
      `http://2130706433:${server.port}/article`,
      `http://0x7f.0.0.1:${server.port}/article`,
    ]) {
      const result = await fetchWith(DEFAULTS, { url });
      assert.equal(result.isError, true, url);
      assert.match(
        result.content,
        /^refused: .*non-public address; web_fetch only reaches the public internet$/,
        url,
      );
    }
    assert.deepEqual(server.requests, [], 'no request reached the server');
  });

  it('sends URL credentials to their own origin only, and never shows them', async () => {
    const password = 'pa55-w0rd-for-fetch';
    const own = await fetchWith(SERVER_ONLY, {
      url: `http://me:${password}@127.0.0.1:${server.port}/auth`,
    });
    const expected = `Basic ${Buffer.from(`me:${password}`).toString('base64')}`;
    assert.match(own.content, new RegExp(`authorization: ${expected}$`));
    assert.doesNotMatch(own.content.split('\n')[0]!, /me:|pa55/);
    // localhost is another origin than 127.0.0.1: the redirect there goes without them.
    const moved = await fetchWith(SERVER_ONLY, {
      url: `http://me:${password}@127.0.0.1:${server.port}/to-localhost`,
    });
    assert.match(moved.content, /authorization: none$/);
    assert.equal(server.headers.get('/auth')?.authorization, undefined);
    // From the call on, the daemon redacts the password wherever it would appear.
    assert.equal(daemonSecrets.redact(`x ${password} y`), 'x [redacted] y');
  });

  describe('through the loop: category external', () => {
    for (const mode of MODES) {
      it(`${mode}: ${mode === 'plan' ? 'blocked, nothing fetched' : mode === 'default' ? 'asks, then fetches' : 'fetches without asking'}`, async () => {
        const tool = webFetchTool({ settings: () => SERVER_ONLY });
        const url = `${server.origin}/article`;
        const run = await callThroughLoop([tool], 'web_fetch', { url }, { mode, answer: 'allow' });
        if (mode === 'plan') {
          assert.equal(run.node.status, 'blocked');
          assert.match(run.toolResult.content, /^blocked_in_plan_mode/);
          assert.deepEqual(server.requests, []);
          return;
        }
        assert.equal(run.asked.length, mode === 'default' ? 1 : 0);
        if (mode === 'default') assert.equal(run.asked[0]!.category, 'external');
        assert.equal(run.node.status, 'done');
        assert.deepEqual(server.requests, ['/article']);
        assert.match(
          run.node.resultPreview ?? '',
          new RegExp(`^${url}: HTTP 200 OK, text/html; charset=utf-8, \\d+ bytes`),
        );
        assert.match(run.toolResult.content, /# Release notes/);
      });
    }

    it('default: a denied fetch never reaches the server', async () => {
      const tool = webFetchTool({ settings: () => SERVER_ONLY });
      const run = await callThroughLoop(
        [tool],
        'web_fetch',
        { url: `${server.origin}/article` },
        {
          mode: 'default',
          answer: 'deny',
        },
      );
      assert.equal(run.node.status, 'denied');
      assert.deepEqual(server.requests, []);
    });
  });
});
