/**
 * protocol-spec/spec/builtin-tools.md is generated from the tools
 * (scripts/builtinToolsDoc.ts): the checked-in page must be what the
 * generator writes, and the hand-written prose must cover exactly the tools.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FINISH_SUBTASK } from '../../src/agent/subtaskTools.js';
import { builtinTools } from '../../src/tools/catalogue.js';
import { BUILTIN_TOOL_DOCS } from '../../src/tools/toolDocs.js';
import { DAEMON_TOOL_NAMES } from '../../src/tools/toolNames.js';
import {
  BUILTIN_TOOLS_DOC_PATH,
  argumentPaths,
  buildBuiltinToolsDoc,
  toolAnchor,
} from '../../scripts/builtinToolsDoc.js';

describe('spec/builtin-tools.md', () => {
  const page = readFileSync(BUILTIN_TOOLS_DOC_PATH, 'utf8');

  it('is what `npm run generate -w daemon` writes', () => {
    const fresh = buildBuiltinToolsDoc();
    if (page !== fresh) {
      const at = [...page].findIndex((c, i) => c !== fresh[i]);
      assert.fail(
        `protocol-spec/spec/builtin-tools.md is stale: run \`npm run generate -w daemon\`. ` +
          `First difference near: ${JSON.stringify(fresh.slice(Math.max(0, at - 80), at + 80))}`,
      );
    }
  });

  it('documents every built-in tool, and finish_subtask, each under its own anchor', () => {
    const names = builtinTools().map((t) => t.name);
    assert.deepEqual([...names].sort(), [...DAEMON_TOOL_NAMES].sort());
    for (const name of [...names, FINISH_SUBTASK]) {
      assert.ok(page.includes(`<a id="${toolAnchor(name)}"></a>\n## \`${name}\``), name);
    }
  });

  it('has prose for exactly the built-in tools, about arguments they have', () => {
    const tools = builtinTools();
    assert.deepEqual(
      Object.keys(BUILTIN_TOOL_DOCS).sort(),
      tools.map((t) => t.name).sort(),
      'src/tools/toolDocs.ts and the tools disagree',
    );
    for (const tool of tools) {
      const paths = argumentPaths(tool);
      for (const path of Object.keys(BUILTIN_TOOL_DOCS[tool.name]?.arguments ?? {})) {
        assert.ok(
          paths.includes(path),
          `toolDocs.ts describes ${tool.name}.${path}, which it has not`,
        );
      }
    }
  });

  it('every argument has a meaning: in its schema or in toolDocs.ts', () => {
    const empty = page
      .split('\n')
      .filter((line) => /^\| `[^`]+` \|/.test(line) && line.endsWith('|  |'));
    assert.deepEqual(empty, []);
  });
});
