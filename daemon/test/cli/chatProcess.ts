/**
 * Runs `arbor chat` as a real process: through a plain pipe, or inside a
 * pseudo-terminal made by util-linux `script`, whose stdin we write keys to.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScriptInput } from '@arbor/protocol';
import { ARBOR_BIN } from '../helpers/wire.js';

export const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;

export interface ChatRun {
  child: ChildProcess;
  /** Everything written so far to stdout (the terminal, under a pty). */
  output(): string;
  stderr(): string;
  /** Resolves once `output()` matches, or rejects with what was seen after `timeoutMs`. */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<void>;
  /** Keys typed at the terminal (pty) or written to stdin (pipe). */
  type(text: string): void;
  exit: Promise<{ code: number | null; output: string; stderr: string }>;
}

export function tempDir(prefix = 'arbor-chat-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeScript(dir: string, script: ScriptInput): string {
  const file = join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(script));
  return file;
}

/** `arbor chat <args>` with `--data-dir` in a fresh temp dir unless given. */
export function runChat(
  args: string[],
  options: { tty?: boolean; env?: NodeJS.ProcessEnv; cwd?: string; columns?: number } = {},
): ChatRun {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  delete env['FORCE_COLOR'];
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
  }
  const argv = [ARBOR_BIN, 'chat', ...args];
  let child: ChildProcess;
  if (options.tty) {
    env['TERM'] ??= 'xterm-256color';
    const command = `stty cols ${options.columns ?? 120} rows 50; exec ${[process.execPath, ...argv].map(shellQuote).join(' ')}`;
    child = spawn('script', ['-qfec', command, '/dev/null'], {
      env,
      cwd: options.cwd,
      stdio: 'pipe',
    });
  } else {
    child = spawn(process.execPath, argv, { env, cwd: options.cwd, stdio: 'pipe' });
  }
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (text: string) => {
    out += text;
    waiters.forEach((w) => w());
  });
  child.stderr!.on('data', (text: string) => (err += text));
  const exit = new Promise<{ code: number | null; output: string; stderr: string }>((resolve) => {
    child.on('close', (code) => {
      waiters.forEach((w) => w());
      resolve({ code, output: out, stderr: err });
    });
  });
  return {
    child,
    output: () => out,
    stderr: () => err,
    type: (text) => child.stdin!.write(text),
    waitFor: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const matches = () =>
          typeof pattern === 'string' ? out.includes(pattern) : pattern.test(out);
        if (matches()) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`timed out waiting for ${String(pattern)}; output:\n${out}\nstderr:\n${err}`),
          );
        }, timeoutMs);
        const check = () => {
          if (matches()) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`exited before ${String(pattern)}; output:\n${out}\nstderr:\n${err}`));
          }
        };
        waiters.add(check);
      }),
    exit,
  };
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** SGR colour sequences (cursor movement is allowed without colour). */
// eslint-disable-next-line no-control-regex -- terminal escapes are what this matches
export const SGR = /\u001b\[[0-9;]*m/;
