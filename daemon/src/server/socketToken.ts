/**
 * The shared secret a socket client presents in `initialize`. Generated at the
 * daemon's first start into `<data-dir>/token` (mode 0600): only a process of
 * the same user can read it, which is what makes a loopback socket private.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TOKEN_FILE_NAME = 'token';

export function loadOrCreateToken(dataDir: string): string {
  const path = join(dataDir, TOKEN_FILE_NAME);
  try {
    const existing = readFileSync(path, 'utf8').trim();
    if (existing.length >= 32) {
      chmodSync(path, 0o600);
      return existing;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(32).toString('hex');
  writeFileSync(path, token + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}

/** Constant-time comparison; hashing first makes lengths equal and leaks nothing. */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(presented));
}
