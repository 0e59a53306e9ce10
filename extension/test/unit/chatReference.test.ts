/** What the editor commands put into the chat: path, 1-based lines, the code fenced. */
import assert from 'node:assert/strict';
import {
  explainPrompt,
  fixPrompt,
  quoteExcerpt,
  selectedLines,
} from '../../src/commands/chatReference.js';
import { parseHostMessage } from '../../src/shared/messages.js';
import { ChatModel } from '../../webview/model/chatModel.js';

const excerpt = {
  path: 'src/math.ts',
  startLine: 3,
  endLine: 4,
  languageId: 'typescript',
  text: 'export const add = (a: number, b: number) =>\n  a + b;',
};

describe('editor commands: references to code', () => {
  it('quote the path, the line range and the text in a fenced block', () => {
    assert.equal(
      quoteExcerpt(excerpt),
      '`src/math.ts` lines 3-4:\n```typescript\nexport const add = (a: number, b: number) =>\n  a + b;\n```',
    );
    assert.match(quoteExcerpt({ ...excerpt, endLine: 3 }), /^`src\/math\.ts` line 3:/);
  });

  it('fence code that itself holds backticks with a longer fence', () => {
    const quoted = quoteExcerpt({ ...excerpt, languageId: 'markdown', text: '```js\nx\n```\n' });
    assert.match(quoted, /^`src\/math\.ts` lines 3-4:\n````markdown\n```js\nx\n```\n````$/);
  });

  it('count a whole-line selection (ending at the next line start) without that next line', () => {
    assert.deepEqual(selectedLines({ line: 2 }, { line: 4, character: 0 }), {
      startLine: 3,
      endLine: 4,
    });
    assert.deepEqual(selectedLines({ line: 2 }, { line: 2, character: 0 }), {
      startLine: 3,
      endLine: 3,
    });
  });

  it('Explain and Fix prompts carry the excerpt; Fix also the editor problems', () => {
    assert.ok(explainPrompt(excerpt).endsWith(quoteExcerpt(excerpt)));
    const fix = fixPrompt(excerpt, ["line 4: Cannot find name 'b'."]);
    assert.match(fix, /The editor reports:\n- line 4: Cannot find name 'b'\./);
    assert.ok(fix.endsWith(quoteExcerpt(excerpt)));
  });

  it('reach the webview composer as a valid composerInsert message', () => {
    const parsed = parseHostMessage({ type: 'composerInsert', text: quoteExcerpt(excerpt) });
    assert.ok(parsed.ok);
    const model = new ChatModel();
    const focus = model.focusRequests;
    model.apply(parsed.value);
    assert.deepEqual(model.composerInserts, [quoteExcerpt(excerpt)]);
    assert.equal(model.focusRequests, focus + 1, 'the composer takes the focus');
  });
});
