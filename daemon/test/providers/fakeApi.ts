/**
 * A local stand-in for the OpenAI or Anthropic HTTP API: node:http on
 * 127.0.0.1, port 0. It replays recorded fixtures (fixtures/<api>/*.sse:
 * server-sent events byte for byte as the API sends them; *.json: an error
 * response with status and headers) and records every request, so the real
 * SDK clients can be pointed at it through their base URL.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ProviderEvent } from '../../src/providers/provider.js';

export type Api = 'openai' | 'anthropic';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** What the fake answers one request with. */
export interface Reply {
  /** A fixture file name under fixtures/<api>/ (.sse streams, .json error responses). */
  fixture: string;
  /** Destroy the socket after this many bytes of the body (a connection reset). */
  resetAfterBytes?: number;
}

export type Responder = (request: RecordedRequest, index: number) => Reply;

interface ErrorFixture {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export function fixturePath(api: Api, name: string): string {
  return fileURLToPath(new URL(`./fixtures/${api}/${name}`, import.meta.url));
}

export class FakeApi {
  readonly requests: RecordedRequest[] = [];
  private server: Server | undefined;
  private responder: Responder = () => {
    throw new Error('no responder set');
  };

  constructor(readonly api: Api) {}

  /** Replies in order; the last one repeats. */
  replyWith(...replies: (Reply | string)[]): void {
    const list = replies.map((r) => (typeof r === 'string' ? { fixture: r } : r));
    this.responder = (_request, index) => list[Math.min(index, list.length - 1)]!;
  }

  respond(responder: Responder): void {
    this.responder = responder;
  }

  /** Base URL as each SDK expects it (OpenAI's includes /v1). */
  get baseURL(): string {
    const { port } = this.server!.address() as AddressInfo;
    return this.api === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const request: RecordedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
        };
        const index = this.requests.length;
        this.requests.push(request);
        let reply: Reply;
        try {
          reply = this.responder(request, index);
        } catch (error) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: String(error) } }));
          return;
        }
        const raw = readFileSync(fixturePath(this.api, reply.fixture), 'utf8');
        if (reply.fixture.endsWith('.json')) {
          const fixture = JSON.parse(raw) as ErrorFixture;
          res.writeHead(fixture.status, {
            'content-type': 'application/json',
            ...fixture.headers,
          });
          res.end(JSON.stringify(fixture.body));
          return;
        }
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
        });
        const bytes = Buffer.from(raw, 'utf8');
        if (reply.resetAfterBytes !== undefined) {
          res.write(bytes.subarray(0, reply.resetAfterBytes), () => {
            setTimeout(() => req.socket.destroy(), 10);
          });
          return;
        }
        // Event by event, as a real server flushes them.
        const events = raw.split(/(?<=\n\n)/);
        let i = 0;
        const next = (): void => {
          if (i >= events.length) return void res.end();
          res.write(events[i++]!, next);
        };
        next();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** All events of a provider stream, and the error that ended it, if any. */
export async function collect(
  stream: AsyncIterable<ProviderEvent>,
): Promise<{ events: ProviderEvent[]; error?: Error }> {
  const events: ProviderEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events };
  } catch (error) {
    return { events, error: error as Error };
  }
}
