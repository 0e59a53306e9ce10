import assert from 'node:assert/strict';
import { toolServerItems } from '../../src/toolServers/toolServerItems.js';

describe('toolServerItems', () => {
  it('lists every server, failing ones first with their reason, ready ones with their tool count', () => {
    const items = toolServerItems([
      { origin: 'mcp:docs', status: 'ready', toolCount: 3 },
      { origin: 'mcp:one', status: 'ready', toolCount: 1 },
      { origin: 'mcp:browser', status: 'error', message: 'spawn npx-browser ENOENT' },
      { origin: 'mcp:repo', status: 'disabled', message: '.arbor/mcp.json is not trusted' },
      { origin: 'mcp:slow', status: 'starting' },
    ]);
    assert.deepEqual(
      items.map(({ label, description, detail }) => ({ label, description, detail })),
      [
        { label: '$(error) browser', description: 'failed', detail: 'spawn npx-browser ENOENT' },
        {
          label: '$(circle-slash) repo',
          description: 'not started',
          detail: '.arbor/mcp.json is not trusted',
        },
        { label: '$(loading~spin) slow', description: 'starting…', detail: undefined },
        { label: '$(pass) docs', description: 'ready · 3 tools', detail: undefined },
        { label: '$(pass) one', description: 'ready · 1 tool', detail: undefined },
      ],
    );
  });
});
