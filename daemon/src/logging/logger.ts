/**
 * The daemon's logger. In stdio mode stdout carries protocol frames only, so
 * every log line goes to stderr and to `<data-dir>/logs/daemon.log`.
 * Callers must never pass message bodies: they may hold secrets.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  log(level: LogLevel, message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface LogSink {
  write(line: string): void;
}

/** Appends synchronously so a crash never loses the line that explains it. */
export function fileSink(dataDir: string): LogSink {
  const dir = join(dataDir, 'logs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'daemon.log');
  return { write: (line) => appendFileSync(path, line, { mode: 0o600 }) };
}

export function stderrSink(): LogSink {
  return { write: (line) => process.stderr.write(line) };
}

export function createLogger(minLevel: LogLevel, sinks: readonly LogSink[]): Logger {
  const threshold = LOG_LEVELS.indexOf(minLevel);
  const log = (level: LogLevel, message: string): void => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const line = `${new Date().toISOString()} ${level.toUpperCase()} ${message}\n`;
    for (const sink of sinks) {
      try {
        sink.write(line);
      } catch {
        // A full disk or closed stderr must not take the daemon down.
      }
    }
  };
  return {
    log,
    debug: (m) => log('debug', m),
    info: (m) => log('info', m),
    warn: (m) => log('warn', m),
    error: (m) => log('error', m),
  };
}

/** For tests and library use: drops everything. */
export const silentLogger: Logger = createLogger('error', []);
