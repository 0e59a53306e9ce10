/**
 * `arbor chat` as a user runs it: against the real daemon on the scripted
 * provider, through a plain pipe, with --json, and inside a pseudo-terminal
 * (util-linux `script`) for keys, Ctrl-C and colours; approvals and the
 * model's questions against an in-process fake daemon on a socket.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findMethod, type ScriptInput } from '@arbor/protocol';
import { stripAnsi } from '../../src/cli/chat/terminalStyle.js';
import { HAS_SCRIPT, SGR, runChat, tempDir, writeScript } from './chatProcess.js';
import {
  startFakeApprovalDaemon,
  startFakeQuestionDaemon,
  type QuestionScenario,
} from './fakePromptDaemon.js';

const DEMO_SCRIPT = fileURLToPath(new URL('../../../examples/demo.script.json', import.meta.url));

const NESTED: ScriptInput = {
  version: 1,
  conversations: {
    '*': [
      {
        text: 'Splitting the work.',
        toolCalls: [
          {
            name: 'run_subtask',
            arguments: { title: 'Outer survey', instructions: 'Survey the outer layer.' },
          },
        ],
      },
      { text: 'Final answer: the layers are fine.' },
    ],
    'Survey the outer layer.': [
      {
        toolCalls: [
          {
            name: 'run_subtask',
            arguments: { title: 'Inner check', instructions: 'Check the inner layer.' },
          },
        ],
      },
      { text: 'outer done' },
    ],
    'Check the inner layer.': [{ toolCalls: [{ name: 'memory_list' }] }, { text: 'inner done' }],
  },
};

const SLOW: ScriptInput = {
  version: 1,
  conversations: {
    '*': [
      {
        text: 'Starting a slow subtask.',
        toolCalls: [
          {
            name: 'run_subtask',
            arguments: { title: 'Slow survey', instructions: 'Take your time.' },
          },
        ],
      },
      { text: 'never reached' },
    ],
    'Take your time.': [{ delayMs: 60_000, text: 'late' }],
  },
};

function chatArgs(dir: string, script: string, ...more: string[]): string[] {
  return [
    '--provider',
    'scripted',
    '--script',
    script,
    '--data-dir',
    `${dir}/data`,
    '--workspace',
    dir,
    ...more,
  ];
}

describe('arbor chat (terminal client)', function () {
  this.timeout(30_000);

  describe('through a plain pipe', () => {
    it('tool lines say what each call is about, from the tool catalogue', async () => {
      const dir = tempDir();
      writeFileSync(join(dir, 'a.txt'), 'alpha\n');
      const script = writeScript(dir, {
        version: 1,
        conversations: {
          '*': [
            {
              toolCalls: [
                { name: 'read_file', arguments: { path: 'a.txt' } },
                { name: 'write_file', arguments: { path: 'notes.md', content: 'x\ny' } },
              ],
            },
            { text: 'Written.' },
          ],
        },
      });
      const run = runChat(chatArgs(dir, script, '--mode', 'auto', 'Note it down'));
      run.child.stdin!.end();
      const { code, output, stderr } = await run.exit;
      assert.equal(code, 0, stderr);
      // The path, not the JSON of the arguments; the category of a call that writes.
      assert.match(output, /^ {2}✓ read_file a\.txt\b/m);
      assert.match(output, /^ {2}✓ write_file \(write\) notes\.md\b/m);
      assert.ok(!output.includes('{"path"'), output);
    });

    it('/model shows the session’s model and switches it without a new chat', async () => {
      const dir = tempDir();
      const run = runChat(chatArgs(dir, writeScript(dir, NESTED), '--model', 'scripted:first'));
      run.child.stdin!.end('/model\n/model scripted:second\n/model nocolon\n/model\n');
      const { code, output, stderr } = await run.exit;
      assert.equal(code, 0, stderr);
      const said = output.split('\n').filter((l) => l.startsWith('model'));
      assert.deepEqual(said.slice(0, 2), [
        'model: scripted:first',
        'model: scripted:second from the next turn on',
      ]);
      assert.match(said[2] ?? '', /^model not changed: /, 'a model the daemon refuses');
      assert.equal(said[3], 'model: scripted:second', 'the same session, now on the new model');
      assert.equal((output.match(/^session /gm) ?? []).length, 1, 'no new chat was started');
    });

    it('/tools lists what the model may call with each verdict, and names a tool server that failed', async () => {
      const dir = tempDir();
      const config = join(dir, 'config.json');
      writeFileSync(
        config,
        JSON.stringify({ mcpServers: { missing: { command: 'arbor-test-no-such-mcp-server' } } }),
      );
      const run = runChat(
        chatArgs(dir, writeScript(dir, NESTED), '--config', config, '--mode', 'default'),
      );
      run.child.stdin!.end('/tools\n');
      const { code, output, stderr } = await run.exit;
      assert.equal(code, 0, stderr);
      assert.match(output, /^tools \(default mode\):$/m);
      assert.match(output, /^ {2}read_file +read +runs$/m);
      assert.match(output, /^ {2}write_file +write +asks$/m);
      assert.match(output, /^server mcp:missing failed: command not found/m);
    });

    it('/help lists the slash commands of the workspace and the user, and a /name line runs one', async () => {
      const dir = tempDir();
      mkdirSync(join(dir, '.arbor/commands'), { recursive: true });
      writeFileSync(
        join(dir, '.arbor/commands/explain.md'),
        '---\ndescription: Explain a symbol\nargument-hint: <symbol>\n---\nExplain the symbol $1 briefly.',
      );
      mkdirSync(join(dir, 'data/skills/pdf'), { recursive: true });
      writeFileSync(join(dir, 'data/skills/pdf/SKILL.md'), '---\ndescription: PDF forms\n---\nx');
      const script = writeScript(dir, {
        version: 1,
        conversations: { 'Explain the symbol parseArgs briefly.': [{ text: 'It parses.' }] },
      });
      const run = runChat(chatArgs(dir, script));
      run.child.stdin!.end('/help\n/explain parseArgs\n');
      const { code, output, stderr } = await run.exit;
      assert.equal(code, 0, stderr);
      assert.match(output, /^ {2}\/help {2}this list$/m);
      assert.match(output, /^ {2}\/explain <symbol> {2}Explain a symbol {2}\(workspace\)$/m);
      assert.match(output, /^ {2}pdf {2}PDF forms$/m);
      assert.match(output, /It parses\./, 'the model got the expansion');
    });

    it('prints the answer, then the nested execution tree once, without escape sequences', async () => {
      const dir = tempDir();
      const run = runChat(chatArgs(dir, writeScript(dir, NESTED), 'Survey the layers'));
      run.child.stdin!.end();
      const { code, output, stderr } = await run.exit;
      assert.equal(code, 0, stderr);
      assert.ok(!output.includes('\u001b'), 'no escape sequences on a pipe');
      const lines = output.split('\n');
      const index = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
      const turn = index(/^✓ turn\b/);
      const outer = index(/^ {2}✓ Outer survey \(subtask\)/);
      const inner = index(/^ {4}✓ Inner check \(subtask\)/);
      const tool = index(/^ {6}✓ memory_list\b/);
      assert.ok(
        turn >= 0 && outer > turn && inner > outer && tool > inner,
        `nested tree in:\n${output}`,
      );
      assert.equal(
        lines.filter((l) => /Outer survey/.test(l)).length,
        1,
        'the tree is printed once',
      );
      const answer = index(/Final answer: the layers are fine\./);
      assert.ok(answer >= 0 && answer < turn, 'the streamed answer comes before the tree');
      assert.match(output, /Cost: \$0\.00/);
      // The scripted model's window, from the turn's cost/summary.
      assert.match(output, /context [\d,]+ \/ 1,000,000 tokens \(0%\)/);
      assert.match(output, /Turn ended: end_turn/);
    });

    it('shows the demo turn: parallel subtasks, the structured result and failed tools', async () => {
      const dir = tempDir();
      const run = runChat(chatArgs(dir, DEMO_SCRIPT, 'Review the change'));
      run.child.stdin!.end();
      const { code, output, stderr } = await run.exit;
      assert.equal(code, 0, stderr);
      for (const title of ['Survey the daemon', 'Survey the client', 'Rate the risk']) {
        assert.match(output, new RegExp(`^ {2}✓ ${title} \\(subtask\\)`, 'm'));
      }
      assert.match(output, /^ {4}✗ no_such_tool .*Unknown tool/m);
      assert.match(output, /Rate the risk.*"risk":"low"/);
      assert.match(output, /Summary: the daemon routes/);
    });
  });

  describe('--json', () => {
    it('writes one protocol event per line, each valid against its schema, in seq order', async () => {
      const dir = tempDir();
      const run = runChat(chatArgs(dir, DEMO_SCRIPT, '--json', 'Review the change'));
      run.child.stdin!.end();
      const { code, output, stderr } = await run.exit;
      assert.equal(code, 0, stderr);
      const lines = output.trimEnd().split('\n');
      assert.ok(lines.length > 10, `expected many events, got:\n${output}`);
      const seqs: number[] = [];
      const methods = new Set<string>();
      for (const line of lines) {
        const event = JSON.parse(line) as { method: string; params: { seq: number } };
        const descriptor = findMethod(event.method);
        assert.ok(descriptor, `unknown method ${event.method}`);
        const parsed = descriptor.params.safeParse(event.params);
        assert.ok(
          parsed.success,
          `${event.method} params invalid: ${parsed.error?.message}\n${line}`,
        );
        methods.add(event.method);
        seqs.push(event.params.seq);
      }
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        'seq increases',
      );
      for (const method of ['session/state', 'tree/update', 'chat/chunk', 'cost/summary']) {
        assert.ok(methods.has(method), `saw ${method}`);
      }
      const last = JSON.parse(lines.at(-1)!) as {
        method: string;
        params: { state: string; stopReason?: string };
      };
      assert.equal(last.method, 'session/state');
      assert.equal(last.params.stopReason, 'end_turn');
    });
  });

  (HAS_SCRIPT ? describe : describe.skip)('in a terminal (pseudo-terminal via script)', () => {
    it('redraws the live tree in colour, then leaves the final tree', async () => {
      const dir = tempDir();
      const run = runChat(chatArgs(dir, DEMO_SCRIPT, 'Review the change'), {
        tty: true,
        env: { NO_COLOR: undefined },
      });
      const { code, output } = await run.exit;
      assert.equal(code, 0, output);
      assert.match(output, SGR, 'colours on a terminal');
      // eslint-disable-next-line no-control-regex -- terminal escapes are what this matches
      assert.match(output, /\u001b\[\d+A/, 'the live block is redrawn in place');
      assert.match(output, /Summary: the daemon routes/);
      assert.match(output, /Turn ended: end_turn/);
    });

    it('respects NO_COLOR on a terminal', async () => {
      const dir = tempDir();
      const run = runChat(chatArgs(dir, writeScript(dir, NESTED), 'Survey the layers'), {
        tty: true,
        env: { NO_COLOR: '1' },
      });
      const { code, output } = await run.exit;
      assert.equal(code, 0, output);
      assert.doesNotMatch(output, SGR);
      assert.match(output, /Turn ended: end_turn/);
    });

    it('cancels the running turn on Ctrl-C and shows stopReason cancelled', async () => {
      const dir = tempDir();
      const run = runChat(chatArgs(dir, writeScript(dir, SLOW), 'Go slowly'), { tty: true });
      await run.waitFor('Slow survey');
      const before = Date.now();
      run.type('\u0003');
      await run.waitFor('Cancelling the turn');
      const { code, output } = await run.exit;
      assert.ok(Date.now() - before < 10_000, 'the turn stopped long before its 60 s delay');
      const text = stripAnsi(output);
      assert.match(text, /Turn ended: cancelled/);
      assert.match(text, /Slow survey \(subtask\).*cancelled/);
      assert.equal(code, 130);
    });

    it('asks before a scripted write_file on the real daemon and writes after "a"', async function () {
      const dir = tempDir();
      const script = writeScript(dir, {
        version: 1,
        conversations: {
          '*': [
            {
              toolCalls: [
                { name: 'write_file', arguments: { path: 'NOTES.md', content: 'approved\n' } },
              ],
            },
            { text: 'Wrote the notes.' },
          ],
        },
      });
      const run = runChat(chatArgs(dir, script, '--mode', 'default', 'Write the notes'), {
        tty: true,
      });
      await run.waitFor(/needs approval|Unknown tool "write_file"|Turn ended/);
      if (!/needs approval/.test(run.output())) {
        await run.exit;
        // The workspace tools are not in the daemon's toolbelt yet.
        this.skip();
      }
      assert.ok(!existsSync(join(dir, 'NOTES.md')), 'nothing is written before the answer');
      run.type('a');
      const { code, output } = await run.exit;
      assert.equal(code, 0, output);
      assert.match(stripAnsi(output), /write_file: allowed/);
      assert.equal(readFileSync(join(dir, 'NOTES.md'), 'utf8'), 'approved\n');
    });

    for (const [key, decision, shown] of [
      ['s', 'allowForSession', /write_file: allowed for this session/],
      ['d', 'deny', /write_file: denied/],
    ] as const) {
      it(`answers an approval with the single key "${key}" (${decision})`, async () => {
        const daemon = await startFakeApprovalDaemon(tempDir('arbor-fake-'));
        try {
          const run = runChat(
            ['--connect', daemon.socketPath, '--data-dir', daemon.dataDir, 'Write the notes'],
            { tty: true },
          );
          await run.waitFor(/\[a\].*allow.*\[s\].*allow for this session.*\[d\].*deny/);
          assert.match(run.output(), /write_file.*needs approval \(write\)/);
          assert.deepEqual(daemon.decisions, [], 'nothing is answered before the key');
          run.type('x'); // not an answer
          run.type(key);
          const { code, output } = await run.exit;
          assert.equal(code, 0, output);
          assert.deepEqual(daemon.decisions, [decision]);
          assert.match(output, shown);
          assert.match(output, /Turn ended: end_turn/);
        } finally {
          await daemon.close();
        }
      });
    }

    describe('questions (ask_user)', () => {
      async function withQuestion(
        scenario: QuestionScenario,
        body: (run: ReturnType<typeof runChat>, answers: string[]) => Promise<void>,
        tty = true,
      ): Promise<void> {
        const daemon = await startFakeQuestionDaemon(tempDir('arbor-fake-'), scenario);
        try {
          const run = runChat(
            ['--connect', daemon.socketPath, '--data-dir', daemon.dataDir, 'Add parser tests'],
            { tty },
          );
          await body(run, daemon.answers);
        } finally {
          await daemon.close();
        }
      }

      it('shows the question with numbered options and sends the option picked by number', () =>
        withQuestion({}, async (run, answers) => {
          await run.waitFor(/type a number \(1–2\) or your own answer, then Enter/);
          const shown = stripAnsi(run.output());
          assert.match(shown, /\? Arbor asks: The tests use both Jest and Vitest/);
          assert.match(shown, /1\) Vitest — Used by the 40 newer test files/);
          assert.match(shown, /2\) Jest/);
          assert.deepEqual(answers, [], 'nothing is answered before Enter');
          run.type('7\r'); // no such option
          await run.waitFor(/there is no option 7/);
          run.type('2\r');
          const { code, output } = await run.exit;
          assert.equal(code, 0, output);
          assert.deepEqual(answers, ['Jest']);
          assert.match(stripAnsi(output), /answered: Jest/);
          assert.match(output, /Turn ended: end_turn/);
        }));

      it('sends the user’s own words, edited with Backspace, when the question allows them', () =>
        withQuestion({}, async (run, answers) => {
          await run.waitFor(/then Enter/);
          run.type('Use node:tesx');
          await run.waitFor(/› Use node:tesx/);
          run.type('\u007ft\r');
          const { code, output } = await run.exit;
          assert.equal(code, 0, output);
          assert.deepEqual(answers, ['Use node:test']);
        }));

      it('takes only an option when freeText is false', () =>
        withQuestion({ question: { freeText: false } }, async (run, answers) => {
          await run.waitFor(/type a number \(1–2\), then Enter/);
          run.type('pytest\r');
          await run.waitFor(/answer with a number, 1–2/);
          run.type('vitest\r'); // an option's label, in any case
          const { code, output } = await run.exit;
          assert.equal(code, 0, output);
          assert.deepEqual(answers, ['Vitest']);
        }));

      it('withdraws the prompt and says so when another client answers first', () =>
        withQuestion(
          { answeredElsewhere: { answer: 'Vitest', afterMs: 1_500 } },
          async (run, answers) => {
            await run.waitFor(/then Enter/);
            const { code, output } = await run.exit;
            assert.equal(code, 0, output);
            assert.deepEqual(answers, []);
            assert.match(stripAnsi(output), /question ended: answered in another client: Vitest/);
            assert.match(output, /Using Vitest\./);
          },
        ));

      it('asks the scripted model’s ask_user on the real daemon and gives it the answer', async function () {
        const dir = tempDir();
        const script = writeScript(dir, {
          version: 1,
          conversations: {
            '*': [
              {
                toolCalls: [
                  {
                    name: 'ask_user',
                    arguments: {
                      question: 'Which runner should the new tests use?',
                      options: [{ label: 'Vitest', description: 'newer' }, { label: 'Jest' }],
                      freeText: false,
                    },
                  },
                ],
              },
              { text: 'Going with it.' },
            ],
          },
        });
        const run = runChat(chatArgs(dir, script, 'Add parser tests'), { tty: true });
        await run.waitFor(/Arbor asks|Unknown tool "ask_user"|Turn ended/);
        if (!/Arbor asks/.test(run.output())) {
          await run.exit;
          // The daemon does not offer ask_user (yet).
          this.skip();
        }
        await run.waitFor(/then Enter/);
        run.type('2\r');
        const { code, output } = await run.exit;
        assert.equal(code, 0, output);
        const text = stripAnsi(output);
        assert.match(text, /answered: Jest/);
        assert.match(text, /✓ ask_user/);
        assert.doesNotMatch(text, /did not apply/);
      });

      it('reads the answer as a line through a plain pipe', () =>
        withQuestion(
          {},
          async (run, answers) => {
            await run.waitFor(/then Enter/);
            run.type('1\n');
            const { code, output } = await run.exit;
            assert.equal(code, 0, output);
            assert.deepEqual(answers, ['Vitest']);
            assert.doesNotMatch(output, SGR);
          },
          false,
        ));
    });
  });
});
