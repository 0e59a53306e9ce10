import { strict as assert } from 'node:assert';
import type { ToolInfo } from '../../src/index.js';
import { Methods } from '../../src/index.js';
import { ArborClient, loadToolCatalogue, ToolCatalogue } from '../../src/client/index.js';
import { DAEMON_INIT, FakeDaemon } from './fakeDaemon.js';

const tool = (
  name: string,
  category: ToolInfo['category'],
  properties: Record<string, { type: string }>,
  required: string[],
): ToolInfo => ({
  name,
  description: name,
  category,
  inputSchema: { type: 'object', properties, required },
  parallelSafe: true,
  origin: 'daemon',
});

describe('ToolCatalogue (tools/list for rendering)', () => {
  const catalogue = new ToolCatalogue([
    tool('grep', 'read', { path: { type: 'string' }, pattern: { type: 'string' } }, ['pattern']),
    tool('run_command', 'execute', { command: { type: 'string' }, timeoutMs: { type: 'number' } }, [
      'command',
    ]),
    tool('memory_list', 'read', {}, []),
  ]);

  it('says what a call is about: the first required string argument, from the schema', () => {
    assert.equal(catalogue.summarize('grep', '{"path":"src","pattern":"TODO"}'), 'TODO');
    assert.equal(catalogue.summarize('run_command', '{"command":"npm test\\nmore"}'), 'npm test');
    assert.equal(
      catalogue.summarize('grep', '{"path":"src"}'),
      'src',
      'else the first string given',
    );
  });

  it('gives nothing it cannot back with the schema: unknown tools, cut-short previews, no strings', () => {
    assert.equal(catalogue.summarize('nope', '{"path":"a"}'), undefined);
    assert.equal(catalogue.summarize('grep', '{"pattern":"TO'), undefined);
    assert.equal(catalogue.summarize('memory_list', '{}'), undefined);
    assert.equal(catalogue.summarize('grep', undefined), undefined);
  });

  it('knows each tool’s category; an unknown tool has none', () => {
    assert.equal(catalogue.categoryOf('run_command'), 'execute');
    assert.equal(catalogue.categoryOf('nope'), undefined);
    assert.deepEqual(
      catalogue.list().map((t) => t.name),
      ['grep', 'run_command', 'memory_list'],
    );
  });

  it('keeps the tool servers tools/list reported, and names those whose tools are missing', async () => {
    const daemon = new FakeDaemon();
    const client = new ArborClient(daemon.clientConnection);
    daemon.answers.set(Methods.Initialize.method, () => ({
      ...DAEMON_INIT,
      capabilities: { ...DAEMON_INIT.capabilities, tools: {} },
    }));
    daemon.answers.set(Methods.ToolsList.method, () => ({
      tools: [],
      servers: [
        { origin: 'mcp:docs', status: 'ready', toolCount: 0 },
        { origin: 'mcp:browser', status: 'error', message: 'command not found' },
        // A status of a later protocol reads as error (versioning.md#open-enums).
        { origin: 'mcp:future', status: 'hibernating' },
      ],
    }));
    try {
      await client.initialize();
      const loaded = await loadToolCatalogue(client, 's_1');
      assert.deepEqual(
        loaded.unavailableServers().map((s) => [s.origin, s.status, s.message]),
        [
          ['mcp:browser', 'error', 'command not found'],
          ['mcp:future', 'error', undefined],
        ],
      );
      assert.equal(loaded.servers.length, 3);
      assert.deepEqual(new ToolCatalogue().servers, []);
    } finally {
      client.dispose();
      daemon.dispose();
    }
  });
});
