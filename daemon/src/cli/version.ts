/** Versions `arbor --version` prints: the daemon's and the protocol's. */
import { readFileSync } from 'node:fs';
import { PROTOCOL_PACKAGE_VERSION, PROTOCOL_VERSION } from '@arbor/protocol';

export function daemonVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

export function versionText(): string {
  return (
    `arbor daemon ${daemonVersion()}\n` +
    `protocol version ${PROTOCOL_VERSION} (@arbor/protocol ${PROTOCOL_PACKAGE_VERSION})\n`
  );
}
