/** The local HTTP server web_fetch is tested against (127.0.0.1 only; no other network). */
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export const ARTICLE_HTML = `<!doctype html><html><head><title>Release notes</title></head><body>
<nav><a href="/">Home</a> | <a href="/docs">Docs</a></nav>
<article><h1>Arbor 2.0</h1>
<p>This release brings a <strong>web fetch</strong> tool to the agent, so that it can read documentation pages that users point it to while it works.</p>
<p>It also adds patches: <code>apply_patch</code> applies a unified diff to several files at once, or not at all.</p>
<ul><li>First point</li><li>Second point</li></ul>
</article><footer>Copyright nobody</footer></body></html>`;

/** How much /big offers: far more than any cap. */
export const BIG_BYTES = 50 * 1024 * 1024;

export interface FetchServer {
  origin: string;
  port: number;
  /** Paths requested, in order. */
  requests: string[];
  /** The request headers, by path, last request wins. */
  headers: Map<string, IncomingHttpHeaders>;
  /** Bytes of /big written to the socket before the client hung up. */
  bigWritten(): Promise<number>;
  close(): Promise<void>;
}

/** Writes `total` bytes, waiting for the socket to drain: stops as soon as the client stops reading. */
function streamBig(res: ServerResponse, total: number, done: (written: number) => void): void {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let written = 0;
  res.on('close', () => done(written));
  const pump = (): void => {
    while (written < total && !res.destroyed) {
      written += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

export async function startFetchServer(): Promise<FetchServer> {
  const requests: string[] = [];
  const headers = new Map<string, IncomingHttpHeaders>();
  let resolveBig!: (written: number) => void;
  const big = new Promise<number>((resolve) => (resolveBig = resolve));
  let port = 0;
  const redirect = (res: ServerResponse, location: string, status = 302): void => {
    res.writeHead(status, { location });
    res.end();
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    headers.set(path, req.headers);
    switch (path) {
      case '/article':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(ARTICLE_HTML);
      case '/hop1':
        return redirect(res, '/hop2', 301);
      case '/hop2':
        return redirect(res, `http://127.0.0.1:${port}/hop3`, 307);
      case '/hop3':
        return redirect(res, '/article', 308);
      case '/loop':
        return redirect(res, '/loop');
      case '/to-private':
        return redirect(res, 'http://10.0.0.1/admin');
      case '/to-other-loopback':
        return redirect(res, `http://127.0.0.2:${port}/article`);
      case '/to-file':
        return redirect(res, 'file:///etc/passwd');
      case '/to-localhost':
        return redirect(res, `http://localhost:${port}/auth`);
      case '/auth':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`authorization: ${req.headers.authorization ?? 'none'}`);
      case '/gzipped':
        // Compressed although the client asked for identity, as some servers do.
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        return res.end(gzipSync('plain text, compressed on the wire'));
      case '/json':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"ok":true,"items":[1,2,3]}');
      case '/latin1':
        res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
        return res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      case '/pdf':
        res.writeHead(200, { 'content-type': 'application/pdf' });
        return res.end('%PDF-1.4');
      case '/missing':
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('no such page');
      case '/big':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return streamBig(res, BIG_BYTES, resolveBig);
      default:
        res.writeHead(500);
        return res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    headers,
    bigWritten: () => big,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
