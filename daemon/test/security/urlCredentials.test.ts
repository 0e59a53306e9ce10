/** Masking URL credentials in previews: what is masked, and text it must get through whole. */
import assert from 'node:assert/strict';
import { hasUrlPassword, maskUrlCredentials } from '../../src/security/urlCredentials.js';

describe('maskUrlCredentials', () => {
  it('masks the password of any scheme and an HTTP user name, and nothing else', () => {
    assert.equal(
      maskUrlCredentials('fetch https://me:s3cret@example.com/x and ssh://git@host/repo'),
      'fetch https://me:[redacted]@example.com/x and ssh://git@host/repo',
    );
    assert.equal(maskUrlCredentials('http://tok3n@example.com'), 'http://[redacted]@example.com');
    assert.equal(hasUrlPassword('postgres://u:p@db/app'), true);
    assert.equal(hasUrlPassword('postgres://db/app'), false);
  });

  // A model's 1 MiB answer without a space once took minutes here: the scheme pattern
  // backtracked over the rest of the text from every letter. Under mocha's timeout, it must not.
  it('goes through a 1 MiB word, and text full of colons, in one pass', () => {
    const word = 'x'.repeat(1 << 20);
    assert.equal(maskUrlCredentials(word), word);
    assert.equal(hasUrlPassword(word), false);
    const colons = `a://${'a:'.repeat(1 << 18)}`;
    assert.equal(maskUrlCredentials(colons), colons);
  });
});
