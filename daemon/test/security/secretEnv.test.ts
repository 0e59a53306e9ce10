/** The environment a command gets: everything but what looks like a credential. */
import assert from 'node:assert/strict';
import { isSecretEnvName, scrubEnv, secretEnvValues } from '../../src/security/secretEnv.js';
import { splitUrlCredentials, urlCredentialSecrets } from '../../src/security/urlCredentials.js';

describe('secret environment variables', () => {
  it('names with KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH (any case) are secrets', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'my_api_key',
      'GITHUB_TOKEN',
      'GH_TOKEN',
      'NPM_TOKEN',
      'npm_config__authToken',
      'CLIENT_SECRET',
      'DB_PASSWORD',
      'MYSQL_PWD_PASSWD',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'SSH_AUTH_SOCK',
      'HTTP_Authorization',
      'Some_Passphrase',
    ])
      assert.equal(isSecretEnvName(name), true, name);
  });

  it('whole provider, cloud and daemon families are secrets, whatever the rest of the name', () => {
    for (const name of [
      'OPENAI_BASE_URL',
      'OPENAI_ORG_ID',
      'ANTHROPIC_BASE_URL',
      'AZURE_OPENAI_ENDPOINT',
      'ARBOR_MODEL',
      'ARBOR_DATA_DIR',
      'AWS_ACCESS_KEY_ID',
      'AWS_PROFILE',
    ])
      assert.equal(isSecretEnvName(name), true, name);
  });

  it('ordinary variables are not', () => {
    for (const name of ['PATH', 'HOME', 'LANG', 'TERM', 'NODE_ENV', 'GIT_AUTHOR_NAME', 'CI'])
      assert.equal(isSecretEnvName(name), false, name);
  });

  it('scrubEnv removes secrets, and URLs with a password, unless allowed by exact name', () => {
    const env = {
      PATH: '/usr/bin',
      HOME: '/home/u',
      OPENAI_API_KEY: 'sk-live-1234567890',
      GITHUB_TOKEN: 'ghp_abcdefghijkl',
      DATABASE_URL: 'postgres://app:hunter2hunter2@db/app',
      PROXY_URL: 'http://proxy.example:3128',
      MY_TOKEN: 'keep-me',
      UNDEFINED: undefined,
    };
    assert.deepEqual(scrubEnv(env), {
      PATH: '/usr/bin',
      HOME: '/home/u',
      PROXY_URL: 'http://proxy.example:3128',
    });
    assert.deepEqual(scrubEnv(env, ['MY_TOKEN', 'DATABASE_URL', 'my_token']), {
      PATH: '/usr/bin',
      HOME: '/home/u',
      PROXY_URL: 'http://proxy.example:3128',
      MY_TOKEN: 'keep-me',
      DATABASE_URL: 'postgres://app:hunter2hunter2@db/app',
    });
  });

  it('values worth redacting: secret-looking values of credential names, and URL passwords', () => {
    const values = secretEnvValues({
      OPENAI_API_KEY: 'sk-live-1234567890',
      OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1',
      SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1',
      AUTH_MODE: 'interactive',
      DATABASE_URL: 'postgres://app:hunter2%40x@db/app',
      GIT_AUTHOR_NAME: 'Someone Long Enough',
    });
    assert.deepEqual(values.sort(), ['hunter2%40x', 'hunter2@x', 'sk-live-1234567890'].sort());
  });

  it('URL credentials split off a URL and are found in any text', () => {
    assert.deepEqual(splitUrlCredentials('http://user:p%40ss@host:8080/v1?x=1'), {
      url: 'http://host:8080/v1?x=1',
      credentials: { username: 'user', password: 'p@ss' },
    });
    assert.deepEqual(splitUrlCredentials('https://tok3n@host/v1'), {
      url: 'https://host/v1',
      credentials: { username: 'tok3n', password: '' },
    });
    assert.deepEqual(splitUrlCredentials('http://host/v1'), { url: 'http://host/v1' });
    assert.deepEqual(urlCredentialSecrets('local:x@http://u:pw@h/v1 and https://tok@h2'), [
      'pw',
      'pw',
      'tok',
      'tok',
    ]);
  });
});
