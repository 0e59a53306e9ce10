/** How an MCP server's tool list and results become Arbor tools and tool output. */
import assert from 'node:assert/strict';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { toolDefinition, type ToolContext } from '../../../src/tools/tool.js';
import { mcpResultOutput } from '../../../src/tools/mcp/mcpResult.js';
import { mcpToolName } from '../../../src/tools/mcp/mcpToolNames.js';
import { createMcpTools } from '../../../src/tools/mcp/mcpTools.js';

const info = (name: string, extra: Partial<McpToolInfo> = {}): McpToolInfo => ({
  name,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  ...extra,
});

describe('MCP tools', () => {
  it('category from annotations: readOnlyHint read, destructiveHint write, else external', () => {
    const { tools } = createMcpTools(
      'srv',
      { command: 'x' },
      [
        info('look', { annotations: { readOnlyHint: true } }),
        info('erase', { annotations: { readOnlyHint: false, destructiveHint: true } }),
        info('mkdir', { annotations: { readOnlyHint: false, destructiveHint: false } }),
        info('plain'),
      ],
      () => Promise.resolve(''),
    );
    assert.deepEqual(
      tools.map((t) => [t.name, t.category, t.origin, t.parallelSafe]),
      [
        ['mcp__srv__look', 'read', 'mcp:srv', true],
        ['mcp__srv__erase', 'write', 'mcp:srv', false],
        ['mcp__srv__mkdir', 'external', 'mcp:srv', false],
        ['mcp__srv__plain', 'external', 'mcp:srv', false],
      ],
    );
  });

  it('the config overrides the category per server, and per tool over that', () => {
    const { tools } = createMcpTools(
      'srv',
      { command: 'x', category: 'execute', toolCategories: { look: 'write' } },
      [info('look', { annotations: { readOnlyHint: true } }), info('other')],
      () => Promise.resolve(''),
    );
    assert.deepEqual(
      tools.map((t) => t.category),
      ['write', 'execute'],
    );
  });

  it('offers the server schema (without $schema); arguments are checked before any call', async () => {
    const calls: unknown[] = [];
    const { tools } = createMcpTools(
      'srv',
      { command: 'x' },
      [
        info('find', {
          inputSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { q: { type: 'string' } },
            required: ['q'],
          },
        }),
      ],
      (name, args) => {
        calls.push([name, args]);
        return Promise.resolve('found');
      },
    );
    const tool = tools[0]!;
    assert.deepEqual(toolDefinition(tool).inputSchema, {
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    });
    assert.equal(tool.input.safeParse({ q: 1 }).success, false);
    assert.equal(tool.input.safeParse({ q: 'a' }).success, true);
    assert.equal(await tool.execute({ q: 'a' }, {} as ToolContext), 'found');
    assert.deepEqual(calls, [['find', { q: 'a' }]]);
  });

  it('leaves out a tool whose schema does not compile or is huge, and says why', () => {
    const { tools, leftOut } = createMcpTools(
      'srv',
      { command: 'x' },
      [
        info('broken', {
          inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } },
        }),
        info('huge', {
          inputSchema: { type: 'object', description: 'x'.repeat(40_000) },
        }),
        info('fine', { description: 'd'.repeat(5000) }),
      ],
      () => Promise.resolve(''),
    );
    assert.deepEqual(
      tools.map((t) => t.name),
      ['mcp__srv__fine'],
    );
    assert.equal(tools[0]!.description.length, 4000, 'descriptions fit tools/list');
    assert.match(leftOut[0]!, /^broken \(invalid inputSchema: /);
    assert.match(leftOut[1]!, /^huge \(inputSchema larger than 32768 bytes\)/);
  });

  it('names fit the protocol: cleaned, shortened with a hash, never twice the same', () => {
    const taken = new Set<string>();
    assert.equal(mcpToolName('srv', 'read.file', taken), 'mcp__srv__read_file');
    const twin = mcpToolName('srv', 'read file', taken);
    assert.match(twin, /^mcp__srv__read_file_[0-9a-f]{8}$/);
    const long = mcpToolName('srv', 'x'.repeat(80), taken);
    assert.equal(long.length, 64);
    assert.match(long, /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/);
  });

  it('results: text as is, resources and links described, structuredContent when no text came', () => {
    assert.equal(
      mcpResultOutput({
        content: [
          { type: 'text', text: 'a' },
          {
            type: 'resource',
            resource: { uri: 'file:///r.txt', mimeType: 'text/plain', text: 'body' },
          },
          { type: 'resource_link', uri: 'file:///l', name: 'l' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        ],
      }),
      'a\n[resource file:///r.txt (text/plain)]\nbody\n[resource link file:///l "l"]\n[audio audio/wav, 3 bytes: not shown, models here get no audio]',
    );
    assert.equal(mcpResultOutput({ content: [], structuredContent: { t: 1 } }), '{"t":1}');
    assert.deepEqual(mcpResultOutput({ content: [{ type: 'text', text: 'no' }], isError: true }), {
      content: 'no',
      isError: true,
    });
  });

  it('images: attached when a model could read them, else a note saying why not', () => {
    const png = (data: string) => ({ type: 'image' as const, data, mimeType: 'image/png' });
    const five = Array.from({ length: 5 }, () => png('AAAA'));
    const output = mcpResultOutput({
      content: [...five, { type: 'image', data: 'AAAA', mimeType: 'image/tiff' }],
    });
    assert.ok(typeof output === 'object');
    assert.equal(output.images?.length, 4, 'at most four images per result');
    const lines = output.content.split('\n');
    assert.deepEqual(lines.slice(0, 4), Array(4).fill('[image image/png, 3 bytes, attached]'));
    assert.equal(lines[4], '[image image/png, 3 bytes: not shown, only 4 images per result]');
    assert.equal(lines[5], '[image image/tiff, 3 bytes: not shown, not a type models read]');
    const huge = mcpResultOutput({ content: [png('A'.repeat(8 * 1024 * 1024))], isError: true });
    assert.deepEqual(huge, {
      content: `[image image/png, ${6 * 1024 * 1024} bytes: not shown, over ${5 * 1024 * 1024} bytes]`,
      isError: true,
    });
  });
});
