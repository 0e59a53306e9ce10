/** Known secrets replaced by a marker: in text, in event params, before the store sees them. */
import assert from 'node:assert/strict';
import { Methods } from '@arbor/protocol';
import {
  localServerAccess,
  withoutModelCredentials,
} from '../../src/providers/localCredentials.js';
import { daemonSecrets, REDACTED, SecretRedactor } from '../../src/security/secretRedactor.js';
import { startupSecrets } from '../../src/security/startupSecrets.js';
import { EventBus, type SessionEventLog } from '../../src/session/eventBus.js';

describe('secret redaction', () => {
  it('replaces every occurrence, longest secret first; ignores values too short to be one', () => {
    const redactor = new SecretRedactor();
    redactor.add('sk-abcdef123456', 'sk-abcdef123456-extended', 'short', undefined, '');
    assert.equal(redactor.size, 2);
    assert.equal(
      redactor.redact('a sk-abcdef123456-extended b sk-abcdef123456 c short'),
      `a ${REDACTED} b ${REDACTED} c short`,
    );
  });

  it('redactCut also removes the start of a secret left at a cut', () => {
    const redactor = new SecretRedactor();
    redactor.add('sk-abcdef123456');
    assert.equal(redactor.redactCut('output sk-abcd'), `output ${REDACTED}`);
    assert.equal(redactor.redactCut('output sk-'), 'output sk-');
  });

  it('redactDeep walks JSON values, and returns the same object when nothing matched', () => {
    const redactor = new SecretRedactor();
    redactor.add('pa"ss\\word-1234');
    const clean = { a: ['x', { b: 1 }], c: null };
    assert.equal(redactor.redactDeep(clean), clean);
    const dirty = {
      nodes: [
        {
          resultPreview: 'key pa"ss\\word-1234',
          argsPreview: JSON.stringify({ k: 'pa"ss\\word-1234' }),
        },
      ],
      n: 3,
    };
    assert.deepEqual(redactor.redactDeep(dirty), {
      nodes: [{ resultPreview: `key ${REDACTED}`, argsPreview: `{"k":"${REDACTED}"}` }],
      n: 3,
    });
  });

  it('EventBus.emit redacts before the event is stored and delivered', () => {
    const stored: unknown[] = [];
    const log = {
      appendEvent: (_session: string, _seq: number, _method: string, params: unknown) =>
        void stored.push(params),
      eventsSince: () => ({ events: [] }),
      lastSeq: () => 0,
      takeDropped: () => false,
    } as unknown as SessionEventLog;
    const redactor = new SecretRedactor();
    redactor.add('sk-test-leaked-key-0001');
    const bus = new EventBus('ses_1', log, redactor);
    const delivered: unknown[] = [];
    bus
      .subscribe({ clientId: 'c1', deliver: (event) => delivered.push(event.params) }, undefined)
      .release();
    bus.emit(Methods.TreeUpdate, {
      turnId: 'turn_1',
      nodes: [{ id: 'n1', resultPreview: 'exit code 0\nsk-test-leaked-key-0001\n' }],
    });
    const text = JSON.stringify([stored, delivered]);
    assert.ok(!text.includes('sk-test-leaked-key-0001'));
    assert.equal(text.split(REDACTED).length - 1, 2);
  });

  it('the startup set: provider keys from config and env, URL credentials, the token file', () => {
    const secrets = startupSecrets(
      {
        dataDir: '/nonexistent-arbor-data-dir',
        model: 'local:m@http://u:model-url-pass@host/v1',
        subtaskModel: undefined,
        providers: { openai: { apiKey: 'sk-config-key-123' } },
      },
      { ANTHROPIC_API_KEY: 'sk-ant-env-key-123', PATH: '/usr/bin' },
    );
    for (const expected of ['sk-config-key-123', 'sk-ant-env-key-123', 'model-url-pass'])
      assert.ok(secrets.includes(expected), expected);
    assert.ok(!secrets.includes('/usr/bin'));
  });
});

describe('local: model URL credentials', () => {
  it('are taken out of the model string, kept for the provider, and redacted', () => {
    const password = `pw-${Date.now()}-secret`;
    const model = `local:llama@http://alice:${password}@127.0.0.1:9/v1`;
    assert.equal(withoutModelCredentials(model), 'local:llama@http://127.0.0.1:9/v1');
    assert.equal(withoutModelCredentials('openai:gpt-4.1'), 'openai:gpt-4.1');
    assert.equal(withoutModelCredentials('local:a@http://h/v1'), 'local:a@http://h/v1');
    assert.deepEqual(localServerAccess('http://127.0.0.1:9/v1'), {
      baseURL: 'http://127.0.0.1:9/v1',
      headers: {
        Authorization: `Basic ${Buffer.from(`alice:${password}`).toString('base64')}`,
      },
    });
    assert.deepEqual(localServerAccess('http://other:9/v1'), { baseURL: 'http://other:9/v1' });
    assert.equal(daemonSecrets.redact(`echo ${password}`), `echo ${REDACTED}`);
  });
});
