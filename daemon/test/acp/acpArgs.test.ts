/** `arbor acp` flags: the daemon's own for the in-process daemon, or `--connect`. */
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/daemonConfig.js';
import { parseAcpArgs } from '../../src/acp/acpArgs.js';

describe('arbor acp flags', () => {
  it('configure the in-process daemon as `arbor daemon` flags do', () => {
    const options = parseAcpArgs(
      [
        '--data-dir',
        '/tmp/arbor-x',
        '--provider',
        'scripted',
        '--script',
        's.json',
        '--model',
        'scripted:x',
      ],
      {},
    );
    assert.equal(options.connect, undefined);
    assert.equal(options.config.dataDir, '/tmp/arbor-x');
    assert.equal(options.config.provider, 'scripted');
    assert.equal(options.config.model, 'scripted:x');
    assert.equal(options.sessionModel, undefined, 'the in-process daemon applies --model itself');
  });

  it('with --connect, --model names the model of new sessions and the data dir locates the token', () => {
    const options = parseAcpArgs(['--connect', '/tmp/a.sock', '--model', 'openai:gpt-4.1'], {
      ARBOR_DATA_DIR: '/tmp/arbor-env',
    });
    assert.equal(options.connect, '/tmp/a.sock');
    assert.equal(options.sessionModel, 'openai:gpt-4.1');
    assert.equal(options.config.dataDir, '/tmp/arbor-env');
  });

  it('refuses daemon-only flags with --connect, and unknown flags', () => {
    assert.throws(
      () => parseAcpArgs(['--connect', '/tmp/a.sock', '--provider', 'scripted'], {}),
      ConfigError,
    );
    assert.throws(() => parseAcpArgs(['--stdio'], {}), /Unknown option/);
  });
});
