import { strict as assert } from 'node:assert';
import type { ToolInfo } from '../../src/index.js';
import { ToolCatalogue } from '../../src/client/index.js';

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
});
