/**
 * What the model reads of a background process: positions that stay valid
 * while old output is dropped (OutputRing), what is new since the last read
 * or from a given position, paged when long, how a process ended, and
 * secrets redacted.
 */
import assert from 'node:assert/strict';
import { SecretRedactor } from '../../../src/security/secretRedactor.js';
import { OutputRing } from '../../../src/tools/processes/outputRing.js';
import { MAX_OUTPUT_READ_CHARS, processTools } from '../../../src/tools/processes/processTools.js';
import { SessionProcesses } from '../../../src/tools/processes/sessionProcesses.js';
import { openWorkspace } from '../../../src/tools/workspace/index.js';
import { tempDir } from '../../permissions/helpers.js';
import { toolContext } from '../toolContext.js';

describe('background process output', function () {
  this.timeout(20_000);

  it('keeps the last characters, at positions counted from the start', () => {
    const ring = new OutputRing(10);
    ring.append('abcdef');
    ring.append('ghijkl');
    assert.equal(ring.total, 12);
    assert.equal(ring.first, 2);
    assert.deepEqual(ring.read(0, 100), { start: 2, end: 12, text: 'cdefghijkl' });
    assert.deepEqual(ring.read(5, 3), { start: 5, end: 8, text: 'fgh' });
    assert.deepEqual(ring.read(12, 3), { start: 12, end: 12, text: '' });
  });

  describe('through the tools', () => {
    const secret = 'sk-test-0123456789abcdef';
    let processes: SessionProcesses;
    let call: (name: string, args: object) => Promise<{ content: string; isError?: boolean }>;

    beforeEach(() => {
      const redactor = new SecretRedactor();
      redactor.add(secret);
      processes = new SessionProcesses({ redactor });
      const tools = new Map(
        processTools(processes, 'session-1', openWorkspace(tempDir(), { watch: false }), {
          startGraceMs: 300,
        }).map((tool) => [tool.name, tool]),
      );
      call = async (name, args) => {
        const tool = tools.get(name)!;
        const out = await tool.execute(tool.input.parse(args), toolContext());
        return typeof out === 'string' ? { content: out } : out;
      };
    });
    afterEach(() => processes.closeAll());

    it('says how a process that ended within the grace ended, an error unless it exited with 0', async () => {
      const ok = await call('process_start', { command: 'echo ready' });
      assert.match(
        ok.content,
        /^p1: exited with code 0\n(\[.*\]\n)?\[output 0–6 of 6 characters\]\nready\n$/,
      );
      assert.equal(ok.isError, false);
      const failed = await call('process_start', { command: 'echo broken >&2; exit 3' });
      assert.match(failed.content, /^p2: exited with code 3\n/);
      assert.equal(failed.isError, true);
    });

    it('redacts secrets the daemon knows', async () => {
      const out = await call('process_start', { command: `echo "key ${secret}"; sleep 30` });
      assert.match(out.content, /key \[redacted\]/);
      assert.ok(!out.content.includes(secret));
      const again = await call('process_output', { id: 'p1', since: 0 });
      assert.match(again.content, /key \[redacted\]/);
      assert.ok(!again.content.includes(secret));
    });

    it('shows the end of long output, and pages from a position', async () => {
      const out = await call('process_start', {
        command: `head -c 100000 /dev/zero | tr '\\0' x; sleep 30`,
      });
      const skipped = 100000 - MAX_OUTPUT_READ_CHARS;
      assert.ok(
        out.content.includes(
          `[… characters 0–${skipped} not shown: process_output {"id":"p1","since":0} shows them]\n` +
            `[output ${skipped}–100000 of 100000 characters]\n`,
        ),
        out.content.slice(0, 500),
      );
      assert.match(
        (await call('process_output', { id: 'p1' })).content,
        /\[no new output; 100000 characters in all\]$/,
      );
      const page = await call('process_output', { id: 'p1', since: 0 });
      assert.ok(
        page.content.includes(`[output 0–${MAX_OUTPUT_READ_CHARS} of 100000 characters]\n`),
      );
      assert.ok(
        page.content.endsWith(
          `[… ${100000 - MAX_OUTPUT_READ_CHARS} more characters: process_output {"id":"p1","since":${MAX_OUTPUT_READ_CHARS}}]`,
        ),
      );
      const past = await call('process_output', { id: 'p1', since: 100001 });
      assert.equal(past.isError, true);
    });
  });
});
