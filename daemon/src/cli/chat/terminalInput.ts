/**
 * What the user types while `arbor chat` runs.
 *
 * On a terminal, a running turn puts stdin in raw mode: keys arrive one by
 * one (single-key approvals, a question's answer edited here) and Ctrl-C arrives as a byte instead of a SIGINT
 * to the whole process group — which would also stop the spawned daemon.
 * Between turns, the prompt is an ordinary readline.
 *
 * Without a terminal, input is read as lines (one readline for the whole
 * run, so piped lines are never lost): a message per line at the prompt, and
 * an approval answered by a line starting with a, s or d, a question by a
 * line. SIGINT cancels.
 */
import { createInterface, type Interface } from 'node:readline';

const CTRL_C = '\u0003';
const ESC = '\u001b';
const BACKSPACE = ['\u007f', '\b'];
/** Ctrl-U: clear the line. */
const KILL_LINE = '\u0015';

export interface InputStream extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export class TerminalInput {
  readonly #stdin: InputStream;
  readonly #output: NodeJS.WritableStream;
  readonly isTTY: boolean;
  #onInterrupt: (() => void) | undefined;
  #keyWaiter: ((key: string) => void) | undefined;
  #inTurn = false;
  // Line mode (no terminal): one readline and a queue of its lines.
  #lines: Interface | undefined;
  readonly #queued: string[] = [];
  #lineWaiter: ((line: string | undefined) => void) | undefined;
  #linesEnded = false;
  /** Tab completion at the prompt (`/` commands); absent: none. */
  completer: ((line: string) => [string[], string]) | undefined;

  readonly #onData = (chunk: Buffer | string): void => {
    for (const char of chunk.toString()) {
      if (char === CTRL_C) this.#onInterrupt?.();
      else if (this.#keyWaiter) this.#keyWaiter(char);
    }
  };
  readonly #onSigint = (): void => this.#onInterrupt?.();

  constructor(stdin: InputStream, output: NodeJS.WritableStream) {
    this.#stdin = stdin;
    this.#output = output;
    this.isTTY = stdin.isTTY === true && typeof stdin.setRawMode === 'function';
  }

  /** While a turn runs: Ctrl-C (or SIGINT) calls `onInterrupt`, keys reach `readKey`. */
  beginTurn(onInterrupt: () => void): void {
    this.#onInterrupt = onInterrupt;
    this.#inTurn = true;
    process.on('SIGINT', this.#onSigint);
    if (this.isTTY) {
      this.#stdin.setRawMode!(true);
      this.#stdin.on('data', this.#onData);
      this.#stdin.resume();
    }
  }

  endTurn(): void {
    if (!this.#inTurn) return;
    this.#inTurn = false;
    this.#onInterrupt = undefined;
    this.#keyWaiter = undefined;
    process.off('SIGINT', this.#onSigint);
    if (this.isTTY) {
      this.#stdin.off('data', this.#onData);
      this.#stdin.setRawMode!(false);
      this.#stdin.pause();
    }
  }

  /**
   * The next key among `allowed` (a terminal), or the first letter of the
   * next line that starts with one (no terminal). undefined when input ended
   * or `signal` aborted.
   */
  async readKey(allowed: readonly string[], signal: AbortSignal): Promise<string | undefined> {
    if (signal.aborted) return undefined;
    if (this.isTTY) {
      return new Promise((resolve) => {
        const done = (key: string | undefined) => {
          this.#keyWaiter = undefined;
          signal.removeEventListener('abort', onAbort);
          resolve(key);
        };
        const onAbort = () => done(undefined);
        signal.addEventListener('abort', onAbort);
        this.#keyWaiter = (char) => {
          const key = char.toLowerCase();
          if (allowed.includes(key)) done(key);
        };
      });
    }
    for (;;) {
      const line = await this.readLine(signal);
      if (line === undefined) return undefined;
      const key = line.trim().charAt(0).toLowerCase();
      if (allowed.includes(key)) return key;
    }
  }

  /**
   * One line of text (a question's answer). On a terminal in raw mode the
   * line is edited here — Backspace, Ctrl-U, Enter; arrow keys and other
   * escape sequences are ignored — and `onEdit` gets the text after every
   * change, since raw mode does not echo. Without a terminal: the next line.
   * undefined when input ended or `signal` aborted.
   */
  async readText(
    signal: AbortSignal,
    onEdit?: (text: string) => void,
  ): Promise<string | undefined> {
    if (signal.aborted) return undefined;
    if (!this.isTTY) return this.readLine(signal);
    return new Promise((resolve) => {
      let text = '';
      /** 0: none; 1: after ESC; 2: inside a CSI / SS3 sequence. */
      let escape = 0;
      const done = (value: string | undefined) => {
        this.#keyWaiter = undefined;
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = () => done(undefined);
      signal.addEventListener('abort', onAbort);
      this.#keyWaiter = (char) => {
        if (escape === 1) {
          escape = char === '[' || char === 'O' ? 2 : 0;
          return;
        }
        if (escape === 2) {
          if (/[A-Za-z~]/.test(char)) escape = 0;
          return;
        }
        if (char === ESC) escape = 1;
        else if (char === '\r' || char === '\n') done(text);
        else if (BACKSPACE.includes(char)) text = [...text].slice(0, -1).join('');
        else if (char === KILL_LINE) text = '';
        else if (char >= ' ') text += char;
        else return;
        if (this.#keyWaiter) onEdit?.(text);
      };
    });
  }

  /**
   * The interactive prompt: one line, or undefined at end of input (Ctrl-D)
   * or Ctrl-C at the prompt.
   */
  async prompt(question: string): Promise<string | undefined> {
    if (!this.isTTY) {
      this.#output.write(question);
      const line = await this.readLine();
      if (line === undefined) this.#output.write('\n');
      return line;
    }
    const rl = createInterface({
      input: this.#stdin,
      output: this.#output,
      terminal: true,
      ...(this.completer && { completer: this.completer }),
    });
    return new Promise((resolve) => {
      let answered = false;
      rl.on('SIGINT', () => rl.close());
      rl.on('close', () => {
        if (!answered) {
          this.#output.write('\n');
          resolve(undefined);
        }
      });
      rl.question(question, (answer) => {
        answered = true;
        rl.close();
        resolve(answer);
      });
    });
  }

  /** Next input line (line mode). */
  readLine(signal?: AbortSignal): Promise<string | undefined> {
    this.#ensureLines();
    const queued = this.#queued.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#linesEnded || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#lineWaiter = undefined;
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#lineWaiter = (line) => {
        signal?.removeEventListener('abort', onAbort);
        this.#lineWaiter = undefined;
        resolve(line);
      };
    });
  }

  /** Lets the process exit: stops reading stdin. */
  close(): void {
    this.endTurn();
    this.#lines?.close();
    this.#stdin.pause();
  }

  #ensureLines(): void {
    if (this.#lines || this.#linesEnded) return;
    const rl = createInterface({ input: this.#stdin, terminal: false });
    this.#lines = rl;
    rl.on('line', (line) => {
      if (this.#lineWaiter) this.#lineWaiter(line);
      else this.#queued.push(line);
    });
    rl.on('close', () => {
      this.#linesEnded = true;
      this.#lineWaiter?.(undefined);
    });
  }
}
