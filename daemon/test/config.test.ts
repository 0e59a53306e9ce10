/** Config file: strict validation, precedence, and the generated JSON Schema. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, readConfigFile, resolveConfig } from '../src/config/daemonConfig.js';
import { parseListenAddress } from '../src/server/listenAddress.js';
import {
  AGENT_PROFILE_SCHEMA_PATH,
  CONFIG_SCHEMA_PATH,
  WORKSPACE_SETTINGS_SCHEMA_PATH,
  buildAgentProfileJsonSchema,
  buildConfigJsonSchema,
  buildWorkspaceSettingsJsonSchema,
} from '../scripts/configJsonSchema.js';

function configFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'arbor-config-')), 'config.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('daemon config', () => {
  it('reports unknown keys with their path, nested ones included', () => {
    const path = configFile({ budgets: { maxDepth: 2, maxDepht: 3 }, logLevl: 'debug' });
    assert.throws(
      () => readConfigFile(path),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /budgets\.maxDepht: unknown key/);
        assert.match(error.message, /logLevl: unknown key/);
        return true;
      },
    );
  });

  it('reports wrong types and bad JSON clearly', () => {
    assert.throws(() => readConfigFile(configFile({ maxMessageBytes: 'big' })), /maxMessageBytes/);
    assert.throws(() => readConfigFile(configFile('{ nope')), /not valid JSON/);
  });

  it('flags win over environment, which wins over the file; defaults fill the rest', () => {
    const file = readConfigFile(
      configFile({
        logLevel: 'warn',
        model: 'openai:a',
        dataDir: '/tmp/file',
        budgets: { maxDepth: 2 },
      }),
    );
    const config = resolveConfig(
      file,
      { model: 'openai:env', dataDir: '/tmp/env' },
      { dataDir: '/tmp/flag' },
    );
    assert.equal(config.dataDir, '/tmp/flag');
    assert.equal(config.model, 'openai:env');
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.maxMessageBytes, 8388608);
    assert.equal(config.approvalTimeoutMs, 600000);
    assert.equal(config.budgets.maxDepth, 2);
    assert.equal(config.budgets.maxLlmCalls, 60);
    assert.throws(() => resolveConfig({}, {}, { logLevel: 'loud' as never }), /logLevel/);
  });

  it('connection limits come from the connections section, validated', () => {
    const file = readConfigFile(
      configFile({ connections: { maxQueuedBytes: 4194304, authTimeoutMs: 3000 } }),
    );
    assert.deepEqual(resolveConfig(file, {}, {}).connectionLimits, {
      maxQueuedBytes: 4194304,
      authTimeoutMs: 3000,
    });
    assert.deepEqual(resolveConfig({}, {}, {}).connectionLimits, {});
    assert.throws(
      () => readConfigFile(configFile({ connections: { maxQueuedBytes: 10 } })),
      /connections\.maxQueuedBytes/,
    );
    assert.throws(
      () => readConfigFile(configFile({ connections: { maxQueueBytes: 1 } })),
      /connections\.maxQueueBytes: unknown key/,
    );
  });

  it('daemon/schema/config.schema.json is up to date (run `npm run generate -w daemon`)', () => {
    assert.equal(readFileSync(CONFIG_SCHEMA_PATH, 'utf8'), buildConfigJsonSchema());
  });

  it('daemon/schema/workspace-settings.schema.json is up to date (run `npm run generate -w daemon`)', () => {
    assert.equal(
      readFileSync(WORKSPACE_SETTINGS_SCHEMA_PATH, 'utf8'),
      buildWorkspaceSettingsJsonSchema(),
    );
  });

  it('daemon/schema/agent-profile.schema.json is up to date (run `npm run generate -w daemon`)', () => {
    assert.equal(readFileSync(AGENT_PROFILE_SCHEMA_PATH, 'utf8'), buildAgentProfileJsonSchema());
  });

  it('--listen accepts 127.0.0.1:<port> and socket paths only, as the spec says', () => {
    assert.deepEqual(parseListenAddress('127.0.0.1:0'), {
      kind: 'tcp',
      host: '127.0.0.1',
      port: 0,
    });
    assert.equal(parseListenAddress('/tmp/arbor.sock').kind, 'unix');
    assert.equal(parseListenAddress('arbor.sock').kind, 'unix');
    for (const bad of [
      '0.0.0.0:1',
      '192.168.1.2:80',
      'example.com:80',
      '[::]:5',
      '[::1]:7000',
      'localhost:7000',
      '127.0.0.2:7000',
    ]) {
      assert.throws(() => parseListenAddress(bad), /only 127\.0\.0\.1 or a Unix socket path/, bad);
    }
    // Addresses without a port are refused, never created as a socket file named `::`.
    for (const bad of ['::', '0.0.0.0', 'localhost', '[::1]', '::1', '127.0.0.1']) {
      assert.throws(() => parseListenAddress(bad), /not a socket path/, bad);
    }
  });
});
