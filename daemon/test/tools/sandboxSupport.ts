/**
 * Sandbox tests need a bwrap that works. Under CI its absence is a failure
 * (daemon/test/setup.sh installs it), never a silent skip; elsewhere the
 * tests skip and say why.
 */
import { probeBubblewrap } from '../../src/tools/sandbox/bubblewrap.js';

export function inCi(): boolean {
  const ci = process.env['CI'];
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

export async function requireSandbox(test: Mocha.Context): Promise<void> {
  const probe = await probeBubblewrap();
  if (probe.ok) return;
  if (inCi()) {
    throw new Error(
      `the bubblewrap sandbox does not work on this CI machine: ${probe.reason}. ` +
        'daemon/test/setup.sh (run by `npm test -w daemon`) installs the Debian package bubblewrap.',
    );
  }
  console.log(`      skipped, no sandbox here: ${probe.reason}`);
  test.skip();
}
