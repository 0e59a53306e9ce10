/**
 * `--listen` values: a Unix socket path, or `127.0.0.1:port`
 * (transport.md#transport-loopback-only). A daemon that runs tools must never
 * be reachable from another machine, and a value that looks like an address
 * is never taken for a file name.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';

export type ListenAddress =
  { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number };

const LOOPBACK = '127.0.0.1';

export function parseListenAddress(value: string): ListenAddress {
  const usage = `give a Unix socket path or ${LOOPBACK}:<port>`;
  if (value.trim() === '') throw new Error(`--listen needs a value: ${usage}`);
  const tcp = /^(?:\[([^\]]+)\]|([^:/\\[\]]+)):(\d{1,5})$/.exec(value);
  if (!tcp) {
    // `::`, `0.0.0.0`, `localhost`, `[::1]`: an address without a port, not a path.
    const bare = value.replace(/^\[(.*)\]$/, '$1');
    if (
      isIP(bare) !== 0 ||
      bare.toLowerCase() === 'localhost' ||
      /^[0-9a-f:]*:[0-9a-f:]*$/i.test(bare)
    )
      throw new Error(`--listen ${value}: not a socket path and not ${LOOPBACK}:<port>; ${usage}`);
    return { kind: 'unix', path: resolve(value) };
  }
  const host = (tcp[1] ?? tcp[2] ?? '').toLowerCase();
  const port = Number(tcp[3]);
  if (port > 65535) throw new Error(`--listen: port ${port} is out of range`);
  if (host !== LOOPBACK) {
    throw new Error(
      `--listen: refusing to listen on ${host}; only ${LOOPBACK} or a Unix socket path is allowed`,
    );
  }
  return { kind: 'tcp', host, port };
}

export function formatAddress(address: ListenAddress): string {
  if (address.kind === 'unix') return `unix:${address.path}`;
  return address.host.includes(':')
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`;
}
