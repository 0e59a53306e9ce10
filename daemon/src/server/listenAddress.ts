/**
 * `--listen` values: a Unix socket path, or `host:port` on loopback only. A
 * daemon that runs tools must never be reachable from another machine.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';

export type ListenAddress =
  { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number };

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

export function parseListenAddress(value: string): ListenAddress {
  const tcp = /^(?:\[([^\]]+)\]|([^:/\\[\]]+)):(\d{1,5})$/.exec(value);
  if (!tcp) {
    if (value.trim() === '') throw new Error('--listen needs a socket path or 127.0.0.1:port');
    return { kind: 'unix', path: resolve(value) };
  }
  const host = (tcp[1] ?? tcp[2] ?? '').toLowerCase();
  const port = Number(tcp[3]);
  if (port > 65535) throw new Error(`--listen: port ${port} is out of range`);
  if (!LOOPBACK_HOSTS.has(host) && !(isIP(host) === 4 && host.startsWith('127.'))) {
    throw new Error(
      `--listen: refusing to listen on ${host}; only loopback (127.0.0.1, ::1) or a Unix socket path is allowed`,
    );
  }
  return { kind: 'tcp', host: host === 'localhost' ? '127.0.0.1' : host, port };
}

export function formatAddress(address: ListenAddress): string {
  if (address.kind === 'unix') return `unix:${address.path}`;
  return address.host.includes(':')
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`;
}
