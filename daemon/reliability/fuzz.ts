/**
 * Fuzz: `fuzzFrames` random and mutated frames on several connections to a
 * socket daemon, while a well-behaved client runs turns on another one.
 *
 * The frames (seeded: a failing run replays with its seed) are garbage bodies,
 * invalid UTF-8, wrong-typed envelopes, huge ids, bodies nested thousands deep,
 * frames split across writes and several frames per write, duplicate ids,
 * oversize and absurd Content-Lengths, broken headers, unfinished frames, and
 * requests for every method with params mutated from valid ones (random JSON
 * from fast-check). Three connections are authenticated, one never is.
 *
 * The connection protocol: frames go out in rounds; a round that should not
 * close the connection ends with a probe request that must be answered. A
 * frame that should close it (a header that cannot be trusted, `exit`, a
 * stranger's oversize frame) ends its round, and the daemon must close the
 * connection; a new one takes its place. Every request (a `method` and a usable
 * id) must get a response with its id within HANG_MS, unless its connection
 * was closed on purpose in the same round.
 *
 * Failures: the daemon exits or stops answering (crash), a request or probe
 * unanswered within HANG_MS or a connection closed unexpectedly (hang), a seq
 * gap or a wrong answer for the good client, a frame from the daemon that is
 * not a valid frame.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  frame,
  idKey,
  Judge,
  latencySummary,
  log,
  newSession,
  prng,
  sleep,
  startDaemon,
  TurnDriver,
  type Daemon,
  type Json,
  type Scale,
  type ScenarioResult,
} from './support.js';

const HANG_MS = 10_000;
const FUZZ_CONNECTIONS = 4;
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
const PRE_AUTH_MAX_BYTES = 1024 * 1024;
const AUTH_TIMEOUT_MS = 10_000;
/** Between the good client's turns: it is a steady user, not a load generator. */
const GOOD_PAUSE_MS = 20;
const GOOD_ANSWER = 'All good. '.repeat(300);

const METHODS = [
  'initialize',
  'initialized',
  'shutdown',
  'session/new',
  'session/list',
  'session/load',
  'session/delete',
  'session/attach',
  'session/detach',
  'session/setPermissionMode',
  'chat/send',
  'chat/cancel',
  'tools/list',
  'tool/approvalRequest',
  'tree/update',
  '_arbor/testing/setScript',
  '_arbor/conformance/state',
  '$/cancelRequest',
  '$/setTrace',
  '$/progress',
  'unknown/method',
  'x'.repeat(300),
  '',
];

type Closes = 'no' | 'daemon' | 'maybe' | 'self';

interface FuzzFrame {
  kind: string;
  /** Written in order; more than one piece means separate writes with a pause between. */
  pieces: Buffer[];
  /** Ids that must each get one response with that id. */
  expect: unknown[];
  closes: Closes;
  /** How many fuzz frames this counts as. */
  count: number;
}

class Generator {
  readonly random: () => number;
  private readonly jsonPool: unknown[];
  private readonly stringPool: string[];
  /** Session ids the fuzz connections created (never the good client's). */
  readonly sessions: string[] = [];

  constructor(
    seed: number,
    private readonly workspace: string,
  ) {
    this.random = prng(seed);
    this.jsonPool = fc.sample(fc.jsonValue({ maxDepth: 4 }), { seed, numRuns: 400 });
    this.stringPool = [
      ...fc.sample(fc.string({ unit: 'binary', maxLength: 40 }), { seed: seed + 1, numRuns: 150 }),
      ...fc.sample(fc.string({ unit: 'grapheme', maxLength: 40 }), {
        seed: seed + 2,
        numRuns: 150,
      }),
    ];
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  json(): unknown {
    return this.pick(this.jsonPool);
  }

  string(): string {
    return this.pick(this.stringPool);
  }

  private ids = 0;
  /** The last ids handed out, for `$/cancelRequest` to cancel requests that may be in flight. */
  private readonly recentIds: (string | number)[] = new Array<string | number>(16).fill(0);

  /**
   * A fresh id: a number or a string of random characters, unique so that an
   * answer is matched to its request (duplicate ids are sent on purpose, by `multi`).
   */
  id(): string | number {
    this.ids += 1;
    const id = this.chance(0.5)
      ? this.ids * 1000 + this.int(0, 999)
      : `f${this.ids}:${this.string()}`;
    this.recentIds[this.ids % this.recentIds.length] = id;
    return id;
  }

  sessionId(): unknown {
    if (this.sessions.length > 0 && this.chance(0.6)) return this.pick(this.sessions);
    return this.chance(0.5) ? `ses_${this.string()}` : this.json();
  }

  /** Valid-looking params of `method`, to mutate. */
  template(method: string): Json | null {
    switch (method) {
      case 'session/new':
        return {
          workspaceRoot: this.workspace,
          permissionMode: this.pick(['plan', 'default', 'auto']),
        };
      case 'session/list':
        return this.chance(0.5) ? {} : { limit: this.int(1, 200) };
      case 'session/load':
      case 'session/delete':
      case 'session/detach':
      case 'chat/cancel':
        return { sessionId: this.sessionId() };
      case 'session/attach':
        return {
          sessionId: this.sessionId(),
          role: this.pick(['controller', 'observer']),
          sinceSeq: this.int(0, 50),
        };
      case 'session/setPermissionMode':
        return { sessionId: this.sessionId(), mode: this.pick(['plan', 'default', 'auto']) };
      case 'chat/send':
        return { sessionId: this.sessionId(), text: this.string() || 'fuzz' };
      case '_arbor/testing/setScript':
        return {
          ...(this.chance(0.7) && { sessionId: this.sessionId() }),
          script: { version: 1, conversations: { '*': [{ text: 'fuzzed reply' }] } },
        };
      case 'initialize':
        return { token: this.string(), protocolVersion: 1 };
      case '$/cancelRequest':
        return { id: this.chance(0.7) ? this.pick(this.recentIds) : this.id() };
      case '$/setTrace':
        return { value: this.pick(['off', 'messages', 'verbose', 'bogus']) };
      case 'shutdown':
        return null;
      default:
        return {};
    }
  }

  /** The template, or one field of it replaced, dropped or added, or something else entirely. */
  params(method: string): unknown {
    const template = this.template(method);
    const roll = this.random();
    if (roll < 0.4 || template === null) return template;
    if (roll < 0.55) return this.pick([null, [], 'params', 42, true, [this.json()], this.json()]);
    const copy: Json = { ...template };
    const keys = Object.keys(copy);
    if (roll < 0.75 && keys.length > 0)
      copy[this.pick(keys)] = this.chance(0.3) ? this.string() : this.json();
    else if (roll < 0.88 && keys.length > 0) delete copy[this.pick(keys)];
    else copy[this.string() || 'extra'] = this.json();
    return copy;
  }

  method(): string {
    return this.pick(METHODS);
  }

  /** One body object that may be a request, a notification, a response or nonsense. */
  envelope(): Json {
    const message: Json = {};
    const jsonrpc = this.random();
    if (jsonrpc < 0.8) message['jsonrpc'] = '2.0';
    else if (jsonrpc < 0.9) message['jsonrpc'] = this.pick(['1.0', 2, null, '']);
    const idRoll = this.random();
    if (idRoll < 0.55) message['id'] = this.id();
    else if (idRoll < 0.7)
      message['id'] = this.pick([1.5, true, null, {}, [1], 2 ** 53 + 2, -1e300, '', 0]);
    const methodRoll = this.random();
    if (methodRoll < 0.85) message['method'] = this.method();
    else if (methodRoll < 0.92) message['method'] = this.pick([5, null, {}, ['session/list']]);
    if (message['method'] === undefined && this.chance(0.5)) message['result'] = this.json();
    if (typeof message['method'] === 'string' && this.chance(0.9))
      message['params'] = this.params(message['method']);
    else if (this.chance(0.3)) message['params'] = this.json();
    return message;
  }
}

/** A request with a usable id gets a response with that id, whatever else is wrong with it. */
function expectedIds(message: Json): unknown[] {
  if (!('method' in message)) return [];
  const id = message['id'];
  if (typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))) return [id];
  return [];
}

/** Never sent by accident: `exit` closes the connection, so only the lifecycle frame sends it. */
function tame(message: Json): Json {
  if (message['method'] === 'exit') message['method'] = 'session/list';
  return message;
}

function bodyFrame(kind: string, message: Json, closes: Closes = 'no'): FuzzFrame {
  return { kind, pieces: [frame(message)], expect: expectedIds(message), closes, count: 1 };
}

function rawFrame(kind: string, bytes: Buffer, closes: Closes = 'no'): FuzzFrame {
  return { kind, pieces: [bytes], expect: [], closes, count: 1 };
}

function header(length: number | string, extra = ''): Buffer {
  return Buffer.from(`Content-Length: ${length}\r\n${extra}\r\n`, 'latin1');
}

/** One fuzz frame for a connection that is (or is not) authenticated. */
function nextFrame(g: Generator, authenticated: boolean): FuzzFrame {
  const maxBytes = authenticated ? MAX_MESSAGE_BYTES : PRE_AUTH_MAX_BYTES;
  const roll = g.random();
  if (roll < 0.3) {
    const message = tame(g.envelope());
    // A stranger's initialize is answered Unauthorized and closed.
    const closes: Closes = !authenticated && message['method'] === 'initialize' ? 'maybe' : 'no';
    return bodyFrame('envelope', message, closes);
  }
  if (roll < 0.42) {
    const method = g.pick(METHODS.filter((m) => m !== 'initialize' || authenticated));
    return bodyFrame('request', { jsonrpc: '2.0', id: g.id(), method, params: g.params(method) });
  }
  if (roll < 0.47) {
    const method = g.pick(METHODS.filter((m) => m !== 'initialize'));
    return bodyFrame('notification', { jsonrpc: '2.0', method, params: g.params(method) });
  }
  if (roll < 0.53) {
    // Garbage: random bytes, printable junk, or a request cut short.
    const kind = g.int(0, 2);
    let body: Buffer;
    if (kind === 0) body = Buffer.from(Array.from({ length: g.int(1, 400) }, () => g.int(0, 255)));
    else if (kind === 1) body = Buffer.from(g.string() + g.string(), 'utf8');
    else {
      const text = JSON.stringify({
        jsonrpc: '2.0',
        id: g.id(),
        method: 'session/list',
        params: {},
      });
      body = Buffer.from(text.slice(0, g.int(1, text.length - 1)), 'utf8');
    }
    return rawFrame('garbage', frame(body));
  }
  if (roll < 0.58) {
    // Invalid UTF-8 inside a string of an otherwise valid request.
    const text = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: g.id(), method: 'session/list', params: { x: 'AAAA' } }),
      'utf8',
    );
    const at = text.indexOf('AAAA');
    const bad = g.pick([
      [0xff],
      [0xc3],
      [0xe2, 0x82],
      [0xed, 0xa0, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
    ]);
    const body = Buffer.concat([text.subarray(0, at), Buffer.from(bad), text.subarray(at + 4)]);
    return rawFrame('invalid-utf8', frame(body));
  }
  if (roll < 0.63) {
    // A huge id: a long string (answered with that id) or a number beyond 2^53.
    const id = g.chance(0.7)
      ? `f${'9'.repeat(g.int(1000, Math.min(200_000, maxBytes - 1000)))}`
      : g.pick([1e308, -(2 ** 60), 2 ** 63]);
    return bodyFrame('huge-id', { jsonrpc: '2.0', id, method: 'session/list', params: {} });
  }
  if (roll < 0.68) {
    const depth = g.int(257, 30_000);
    const body = `{"jsonrpc":"2.0","id":${g.int(1, 1e6)},"method":"session/list","params":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    return rawFrame('deep', frame(body));
  }
  if (roll < 0.74) {
    // One request written in pieces, cut anywhere (inside the header too).
    const message = {
      jsonrpc: '2.0',
      id: g.id(),
      method: g.pick(['session/list', 'tools/list']),
      params: {},
    };
    const bytes = frame(message);
    const cuts = Array.from({ length: g.int(1, 8) }, () => g.int(1, bytes.length - 1)).sort(
      (a, b) => a - b,
    );
    const pieces: Buffer[] = [];
    let from = 0;
    for (const cut of [...new Set(cuts), bytes.length]) {
      pieces.push(bytes.subarray(from, cut));
      from = cut;
    }
    return { kind: 'split', pieces, expect: expectedIds(message), closes: 'no', count: 1 };
  }
  if (roll < 0.78) {
    // Several frames in one write, sometimes the same id twice (the second gets -32600).
    const n = g.int(2, 5);
    const messages = Array.from({ length: n }, () => ({
      jsonrpc: '2.0',
      id: g.id(),
      method: 'session/list',
      params: {},
    }));
    if (g.chance(0.5)) messages[n - 1] = { ...messages[0]! };
    return {
      kind: 'multi',
      pieces: [Buffer.concat(messages.map((m) => frame(m)))],
      expect: messages.flatMap((m) => expectedIds(m)),
      closes: 'no',
      count: n,
    };
  }
  if (roll < 0.81) {
    // Big params, below the limit.
    const size = g.int(10_000, Math.min(900_000, maxBytes - 10_000));
    return bodyFrame('big', {
      jsonrpc: '2.0',
      id: g.id(),
      method: 'session/list',
      params: { pad: 'p'.repeat(size) },
    });
  }
  if (roll < 0.84) {
    const extra = g.pick([
      'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n',
      'X-Fuzz: 1\r\n',
      `X-${'h'.repeat(2000)}: v\r\n`,
      'content-type: application/json\r\n',
    ]);
    const body = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: g.id(), method: 'session/list', params: {} }),
    );
    const bytes = Buffer.concat([header(body.length, extra), body]);
    return {
      kind: 'headers',
      pieces: [bytes],
      expect: expectedIds(JSON.parse(body.toString()) as Json),
      closes: 'no',
      count: 1,
    };
  }
  if (roll < 0.86) return rawFrame('empty', header(0));
  if (roll < 0.89) {
    // Announces more than the connection may send: answered -33xxx; a stranger is then closed.
    const length = g.pick([maxBytes + 1, maxBytes + g.int(2, 1_000_000), 999_999_999_999_999]);
    const part = Buffer.alloc(g.int(0, 64 * 1024), 0x7b);
    return rawFrame(
      'oversize',
      Buffer.concat([header(length), part]),
      authenticated ? 'self' : 'daemon',
    );
  }
  if (roll < 0.92) {
    // A header that cannot be trusted: answered, then the connection is closed.
    const bad = g.pick([
      'Content-Length: abc\r\n\r\n',
      'Content-Length: -5\r\n\r\n',
      'Content-Length: 12345678901234567890\r\n\r\n',
      'Content-Length: 10\r\nContent-Length: 11\r\n\r\n',
      'Content-Type: application/json\r\n\r\n',
      'no colon here\r\n\r\n',
      'Content-Length: 5\r\nContent-Type: text/plain; charset=latin1\r\n\r\n',
      `Content-Length: 5${' '.repeat(9000)}`,
      `X-Long: ${'x'.repeat(9000)}\r\n\r\n`,
    ]);
    return rawFrame('bad-header', Buffer.from(bad, 'latin1'), 'daemon');
  }
  if (roll < 0.94) {
    // Content-Length shorter than the body, or a header ended by bare LFs: the stream loses sync.
    const body = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: g.id(), method: 'session/list', params: {} }),
    );
    const bytes = g.chance(0.5)
      ? Buffer.concat([header(g.int(1, body.length - 1)), body])
      : Buffer.concat([Buffer.from(`Content-Length: ${body.length}\n\n`), body]);
    return rawFrame('desync', bytes, 'maybe');
  }
  if (roll < 0.96) {
    // A frame that never finishes; we hang up on it.
    const body = frame({
      jsonrpc: '2.0',
      id: g.id(),
      method: 'session/list',
      params: { pad: 'z'.repeat(2000) },
    });
    return rawFrame('unfinished', body.subarray(0, g.int(1, body.length - 1)), 'self');
  }
  if (roll < 0.98) {
    // A response to a request the daemon never sent.
    return bodyFrame(
      'response',
      g.pick([
        { jsonrpc: '2.0', id: g.id(), result: g.json() },
        { jsonrpc: '2.0', id: g.id(), error: { code: -1, message: g.string() } },
        { jsonrpc: '2.0', id: g.id() },
      ]),
    );
  }
  // Lifecycle: shutdown (later requests are refused but answered) or exit (closes).
  if (g.chance(0.5))
    return bodyFrame('shutdown', { jsonrpc: '2.0', id: g.id(), method: 'shutdown' });
  return bodyFrame('exit', { jsonrpc: '2.0', method: 'exit' }, 'daemon');
}

interface Tracked {
  sentAt: number;
  round: number;
  /** The frame's kind and the start of its bytes, for the report. */
  what: string;
}

interface Stats {
  frames: number;
  byKind: Map<string, number>;
  connections: number;
  probes: number[];
  answers: number[];
  hangs: string[];
  unexpectedCloses: string[];
  expectedCloses: number;
  nullIdErrors: number;
  protocolErrors: string[];
}

/**
 * One fuzz connection at a time on this slot. A round that should end the
 * connection retires it in the background (first every earlier request must
 * be answered, then the round is sent and the close checked), and the slot
 * goes on with a new connection at once; `retiring` collects those.
 */
async function fuzzSlot(
  daemon: Daemon,
  g: Generator,
  slot: number,
  authenticated: boolean,
  quota: () => boolean,
  stats: Stats,
  goodSessionId: () => string | undefined,
  retiring: Promise<void>[],
): Promise<void> {
  let probeCounter = 0;
  while (quota()) {
    const client = authenticated ? await daemon.authenticated() : await daemon.connect();
    const openedAt = performance.now();
    stats.connections += 1;
    const tracked = new Map<string, Tracked[]>();
    let round = 0;
    let nullIds = 0;
    client.onMessage = (message) => {
      if (message['method'] !== undefined) return;
      const key = idKey(message['id']);
      if (message['id'] === null) {
        stats.nullIdErrors += 1;
        nullIds += 1;
      }
      const waiting = tracked.get(key);
      const first = waiting?.shift();
      if (first) stats.answers.push(performance.now() - first.sentAt);
      if (waiting && waiting.length === 0) tracked.delete(key);
      const result = message['result'] as Json | undefined;
      const sessionId = result?.['sessionId'];
      if (typeof sessionId === 'string' && sessionId !== goodSessionId() && g.sessions.length < 50)
        g.sessions.push(sessionId);
    };
    const pending = (except: number): Tracked[] =>
      [...tracked.values()].flat().filter((t) => t.round !== except);
    /** Waits for the answers to every request of other rounds; those missing after HANG_MS are hangs. */
    const settle = async (except: number): Promise<void> => {
      for (;;) {
        const left = pending(except);
        if (left.length === 0 || client.closed) break;
        if (left.every((t) => performance.now() - t.sentAt > HANG_MS)) {
          for (const t of left)
            stats.hangs.push(`slot ${slot}: no answer within ${HANG_MS} ms to ${t.what}`);
          break;
        }
        await sleep(5);
      }
      if (client.closed)
        for (const t of pending(except))
          stats.hangs.push(`slot ${slot}: unanswered when the connection closed: ${t.what}`);
    };
    const send = async (frames: FuzzFrame[], round: number): Promise<void> => {
      for (const f of frames) {
        for (const id of f.expect) {
          const key = idKey(id);
          const list = tracked.get(key) ?? [];
          const start = Buffer.concat(f.pieces).subarray(0, 160).toString('utf8');
          list.push({
            sentAt: performance.now(),
            round,
            what: `${f.kind} ${JSON.stringify(start)}`,
          });
          tracked.set(key, list);
        }
        if (f.pieces.length === 1) client.write(f.pieces[0]!);
        else
          for (const piece of f.pieces) {
            client.write(piece);
            await sleep(1);
          }
      }
    };
    /** A probe request: answered, or the connection closed, or (a hang) neither within HANG_MS. */
    const probe = async (): Promise<'answered' | 'closed' | 'timeout'> => {
      const probeId = `probe:${slot}:${probeCounter++}`;
      const sent = performance.now();
      const answer = client.awaitResponse(probeId, HANG_MS).then(
        () => 'answered' as const,
        () => (client.closed ? ('closed' as const) : ('timeout' as const)),
      );
      client.send({ jsonrpc: '2.0', id: probeId, method: 'session/list', params: { limit: 1 } });
      const outcome = await answer;
      if (outcome === 'answered') stats.probes.push(performance.now() - sent);
      return outcome;
    };
    const kinds = (frames: FuzzFrame[]): string => frames.map((f) => f.kind).join(', ');
    let retired = false;

    /** The last round of this connection: its last frame should (or may) end it. */
    const retire = async (frames: FuzzFrame[], round: number, closing: Closes): Promise<void> => {
      await settle(round);
      await send(frames, round);
      const last = frames.at(-1)!;
      if (closing === 'daemon') {
        await Promise.race([client.whenClosed, sleep(5000)]);
        if (client.closed) stats.expectedCloses += 1;
        else
          stats.hangs.push(
            `slot ${slot}: a ${last.kind} frame did not close the connection within 5 s`,
          );
      } else if (closing === 'self' && last.kind === 'oversize') {
        // Announced more than allowed: answered -33xxx (id null) at once, then we hang up.
        const before = nullIds;
        const until = performance.now() + 5000;
        while (nullIds === before && performance.now() < until && !client.closed) await sleep(2);
        if (nullIds === before && !client.closed)
          stats.hangs.push(`slot ${slot}: an oversize frame was not answered within 5 s`);
      } else if (closing === 'maybe') {
        // The stream may have lost sync: closed, or still serving; never silent.
        const outcome = await probe();
        if (outcome === 'timeout')
          stats.hangs.push(
            `slot ${slot}: probe unanswered within ${HANG_MS} ms after ${kinds(frames)}`,
          );
        else if (outcome === 'closed') stats.expectedCloses += 1;
      } else await sleep(5);
      client.destroy();
      stats.protocolErrors.push(...client.reader.errors.map((e) => `slot ${slot}: ${e}`));
    };

    for (;;) {
      if (!quota()) {
        await settle(-1);
        client.destroy();
        break;
      }
      round += 1;
      const frames: FuzzFrame[] = [];
      const size = g.int(1, 6);
      while (frames.length < size && quota()) {
        const next = nextFrame(g, authenticated);
        stats.frames += next.count;
        stats.byKind.set(next.kind, (stats.byKind.get(next.kind) ?? 0) + next.count);
        frames.push(next);
        if (next.closes !== 'no') break;
      }
      const closing = frames.at(-1)?.closes ?? 'no';
      if (closing !== 'no') {
        retired = true;
        retiring.push(retire(frames, round, closing));
        break;
      }
      await send(frames, round);
      const outcome = await probe();
      if (outcome === 'answered') continue;
      if (outcome === 'timeout') {
        stats.hangs.push(
          `slot ${slot}: probe unanswered within ${HANG_MS} ms after ${kinds(frames)}`,
        );
        client.destroy();
        break;
      }
      // Closed by the daemon: a stranger at its auth deadline is expected, anything else is not.
      if (!authenticated && performance.now() - openedAt >= AUTH_TIMEOUT_MS - 500) {
        stats.expectedCloses += 1;
        break;
      }
      stats.unexpectedCloses.push(
        `slot ${slot}: closed after ${kinds(frames)} (${client.reader.errors[0] ?? 'no protocol error'})`,
      );
      for (const t of pending(-1))
        stats.hangs.push(`slot ${slot}: unanswered when the connection closed: ${t.what}`);
      break;
    }
    if (!retired)
      stats.protocolErrors.push(...client.reader.errors.map((e) => `slot ${slot}: ${e}`));
  }
}

export async function fuzzScenario(scale: Scale): Promise<ScenarioResult> {
  const judge = new Judge();
  const daemon = await startDaemon({
    script: {
      version: 1,
      conversations: {
        good: [
          { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
          { text: GOOD_ANSWER },
        ],
        '*': [{ text: 'fuzzed reply' }],
      },
    },
  });
  try {
    writeFileSync(join(daemon.workspace, 'notes.txt'), 'notes for the good client\n');
    const g = new Generator(scale.seed, daemon.workspace);
    const stats: Stats = {
      frames: 0,
      byKind: new Map(),
      connections: 0,
      probes: [],
      answers: [],
      hangs: [],
      unexpectedCloses: [],
      expectedCloses: 0,
      nullIdErrors: 0,
      protocolErrors: [],
    };

    // The good client: turns back to back while the fuzzing lasts.
    const good = await daemon.authenticated();
    const goodSession = await newSession(good, daemon.workspace);
    const driver = new TurnDriver(good, goodSession);
    let text = '';
    const previous = good.onNotification;
    good.onNotification = (method, params, size) => {
      previous(method, params, size);
      if (method === 'chat/chunk' && params['sessionId'] === goodSession)
        text += String(params['text']);
    };
    let fuzzing = true;
    const goodStats = {
      turns: 0,
      wrong: [] as string[],
      sendMs: [] as number[],
      turnMs: [] as number[],
    };
    const goodLoop = (async () => {
      while (fuzzing) {
        text = '';
        const started = performance.now();
        const { idle, sendMs } = await driver.turn('good', HANG_MS * 3);
        goodStats.turnMs.push(performance.now() - started);
        goodStats.sendMs.push(sendMs);
        goodStats.turns += 1;
        await sleep(GOOD_PAUSE_MS);
        if (idle['stopReason'] !== 'end_turn' || text !== GOOD_ANSWER)
          goodStats.wrong.push(
            `turn ${goodStats.turns}: ${String(idle['stopReason'])}, ${text.length} chars`,
          );
      }
    })();

    const started = performance.now();
    const quota = (): boolean => stats.frames < scale.fuzzFrames && daemon.alive();
    const retiring: Promise<void>[] = [];
    await Promise.all(
      Array.from({ length: FUZZ_CONNECTIONS }, (_, slot) =>
        fuzzSlot(
          daemon,
          g,
          slot,
          slot !== FUZZ_CONNECTIONS - 1,
          quota,
          stats,
          () => goodSession,
          retiring,
        ),
      ),
    );
    await Promise.all(retiring);
    fuzzing = false;
    let goodError: string | undefined;
    await goodLoop.catch((error: Error) => (goodError = error.message));
    const seconds = (performance.now() - started) / 1000;

    // Still alive and serving a newcomer?
    let serving = false;
    try {
      const fresh = await daemon.authenticated();
      serving = Array.isArray((await fresh.result('session/list', {}, HANG_MS))['sessions']);
      fresh.destroy();
    } catch {
      serving = false;
    }
    const internalErrors = daemon.stderr().match(/internal error/g)?.length ?? 0;

    const kinds = [...stats.byKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`);
    log(
      `${stats.frames} frames in ${seconds.toFixed(1)} s on ${stats.connections} connections (seed ${scale.seed}): ${kinds.join(', ')}`,
    );
    log(
      `answers: ${stats.answers.length} requests answered (${latencySummary(stats.answers)}), ` +
        `${stats.nullIdErrors} errors with id null; probes ${latencySummary(stats.probes)}`,
    );
    log(
      `closes: ${stats.expectedCloses} as the frame asked, ${stats.unexpectedCloses.length} unexpected; ` +
        `${internalErrors} internal errors in the daemon's log`,
    );
    log(
      `good client: ${goodStats.turns} turns, ${driver.events} events, ${driver.gaps.length} seq gaps, ` +
        `${goodStats.wrong.length} wrong answers; chat/send ${latencySummary(goodStats.sendMs)}; turn max ${Math.max(0, ...goodStats.turnMs).toFixed(0)} ms`,
    );
    const crashed = !daemon.alive() || !serving;
    log(
      `crashes ${crashed ? 1 : 0}, hangs ${stats.hangs.length + (goodError ? 1 : 0)}, seq gaps ${driver.gaps.length} ` +
        `(target 0 each) ${!crashed && stats.hangs.length === 0 && !goodError && driver.gaps.length === 0 ? 'OK' : 'FAILED'}`,
    );

    judge.require(daemon.alive(), `the daemon exited: ${daemon.stderr().slice(-2000)}`);
    judge.require(serving, 'a new client was not served after the fuzzing');
    judge.require(
      stats.hangs.length === 0,
      `${stats.hangs.length} hangs: ${stats.hangs.slice(0, 5).join('\n')}${stats.hangs.length > 5 ? '\n…' : ''}`,
    );
    judge.require(goodError === undefined, `the good client: ${goodError}`);
    judge.require(
      stats.unexpectedCloses.length === 0,
      `${stats.unexpectedCloses.length} unexpected closes: ${stats.unexpectedCloses.slice(0, 5).join('; ')}`,
    );
    judge.require(
      driver.gaps.length === 0,
      `good client seq gaps: ${driver.gaps.slice(0, 5).join('; ')}`,
    );
    judge.require(
      goodStats.wrong.length === 0,
      `good client wrong turns: ${goodStats.wrong.slice(0, 5).join('; ')}`,
    );
    judge.require(goodStats.turns > 0, 'the good client completed no turn');
    judge.require(
      stats.protocolErrors.length === 0,
      `the daemon sent invalid frames: ${stats.protocolErrors.slice(0, 3).join('; ')}`,
    );
    return judge.result(
      `${stats.frames} frames: ${crashed ? 1 : 0} crashes, ${stats.hangs.length} hangs, ${driver.gaps.length} gaps; ` +
        `good client ${goodStats.turns} turns`,
    );
  } finally {
    await daemon.close();
  }
}
