/**
 * Lifecycle hooks (README "Hooks"): what each event's answer does to the
 * turn, how a hook's verdict combines with modes, rules and approvals, and
 * that a failing or hanging hook is shown in the tree and changes nothing.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { requireSandbox } from '../tools/sandboxSupport.js';
import { script } from '../agent/harness.js';
import { matchesTool } from '../../src/hooks/hookMatcher.js';
import { HookRunner, MAX_STOP_CONTINUES } from '../../src/hooks/hookRunner.js';
import { hookNodes, runHooked, toolResults, workspace } from './hookHarness.js';

/** A hook script: reads the event from stdin, answers with `then` when `when` is in it. */
function answering(when: string, then: object): string {
  return `input=$(cat)\ncase "$input" in *'${when}'*) echo '${JSON.stringify(then)}' ;; esac\n`;
}

const rm = script({
  '*': [
    { toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command: 'rm -rf build' } }] },
    { text: 'done' },
  ],
});
const write = (path: unknown) =>
  script({
    '*': [
      { toolCalls: [{ id: 'c1', name: 'write_file', arguments: { path, content: 'x' } }] },
      { text: 'done' },
    ],
  });

describe('hooks', () => {
  describe('matcher', () => {
    it('matches whole names, with * and | alternatives; absent matches every tool', () => {
      assert.equal(matchesTool('run_command|write_file', 'write_file'), true);
      assert.equal(matchesTool('run_command', 'run_command_x'), false);
      assert.equal(matchesTool('mcp__github__*', 'mcp__github__create_issue'), true);
      assert.equal(matchesTool('mcp__github__*', 'mcp__gitlab__x'), false);
      assert.equal(matchesTool('read.file', 'readXfile'), false);
      assert.equal(matchesTool(undefined, 'anything'), true);
    });
  });

  describe('PreToolUse', () => {
    it('a deny stops the call; the model gets the reason; the hook is a node under the call', async () => {
      const root = workspace({
        'deny-rm.sh': answering('"command":"rm ', { decision: 'deny', reason: 'no rm here' }),
      });
      const run = await runHooked(rm, {
        workspaceRoot: root,
        hooks: { PreToolUse: [{ matcher: 'run_command', command: 'sh ./deny-rm.sh' }] },
      });
      assert.deepEqual(run.calls, []);
      const [result] = toolResults(run);
      assert.match(result!.content, /PreToolUse hook denied it: no rm here/);
      assert.equal(result!.isError, true);
      const tool = run.nodes.find((node) => node.kind === 'tool')!;
      assert.equal(tool.status, 'denied');
      const [hook] = hookNodes(run);
      assert.equal(hook!.parentId, tool.id);
      assert.equal(hook!.name, 'PreToolUse');
      assert.equal(hook!.title, 'sh ./deny-rm.sh');
      assert.equal(hook!.status, 'done');
    });

    it('exit code 2 denies with stderr as the reason', async () => {
      const run = await runHooked(rm, {
        hooks: { PreToolUse: [{ command: 'echo "policy says no" >&2; exit 2' }] },
      });
      assert.deepEqual(run.calls, []);
      assert.match(toolResults(run)[0]!.content, /denied it: policy says no/);
    });

    it('runs only the hooks whose matcher names the tool', async () => {
      const run = await runHooked(rm, {
        hooks: {
          PreToolUse: [
            { matcher: 'write_file', command: 'exit 2' },
            { matcher: 'run_*|read_file', command: `echo '{}'` },
          ],
        },
      });
      assert.equal(run.calls.length, 1);
      assert.deepEqual(
        hookNodes(run).map((node) => node.title),
        [`echo '{}'`],
      );
    });

    it('rewritten arguments are what runs', async () => {
      const run = await runHooked(write('notes.txt'), {
        hooks: {
          PreToolUse: [{ command: `echo '{"args": {"path": "docs/notes.txt", "content": "x"}}'` }],
        },
      });
      assert.deepEqual(run.calls, [
        { name: 'write_file', args: { path: 'docs/notes.txt', content: 'x' } },
      ]);
    });

    it('rewritten arguments are gated again: a rewrite into .git/ asks even in auto mode', async () => {
      const run = await runHooked(write('notes.txt'), {
        mode: 'auto',
        answer: 'deny',
        hooks: {
          PreToolUse: [{ command: `echo '{"args": {"path": ".git/config", "content": "x"}}'` }],
        },
      });
      assert.equal(run.asked.length, 1);
      assert.deepEqual(run.asked[0]!.args, { path: '.git/config', content: 'x' });
      assert.deepEqual(run.calls, []);
    });

    it('a rewrite the tool schema refuses is an error result, and nothing runs', async () => {
      const run = await runHooked(write('notes.txt'), {
        hooks: { PreToolUse: [{ command: `echo '{"args": {"path": 42}}'` }] },
      });
      assert.deepEqual(run.calls, []);
      const [result] = toolResults(run);
      assert.match(result!.content, /rewrote the arguments of write_file into invalid ones/);
      assert.equal(result!.isError, true);
    });

    it('allow skips the prompt in default mode like an allow rule, and never loosens plan mode, a deny rule or an ask rule', async () => {
      const allow = { PreToolUse: [{ command: `echo '{"decision": "allow"}'` }] };
      const unasked = await runHooked(rm, { mode: 'default', hooks: allow });
      assert.equal(unasked.asked.length, 0);
      assert.equal(unasked.calls.length, 1);

      const plan = await runHooked(rm, { mode: 'plan', hooks: allow });
      assert.deepEqual(plan.calls, []);
      assert.match(toolResults(plan)[0]!.content, /blocked_in_plan_mode/);

      const denied = await runHooked(rm, {
        mode: 'auto',
        hooks: allow,
        rules: { deny: ['run_command(rm:*)'] },
      });
      assert.deepEqual(denied.calls, []);
      assert.match(toolResults(denied)[0]!.content, /permission rule "deny run_command\(rm:\*\)"/);

      const asks = await runHooked(rm, {
        mode: 'default',
        hooks: allow,
        rules: { ask: ['run_command'] },
      });
      assert.equal(asks.asked.length, 1);
      assert.deepEqual(asks.calls, []);
    });

    it('ask asks even in auto mode, with the reason in the request', async () => {
      const run = await runHooked(rm, {
        mode: 'auto',
        answer: 'allow',
        hooks: {
          PreToolUse: [{ command: `echo '{"decision": "ask", "reason": "deletes files"}'` }],
        },
      });
      assert.equal(run.asked.length, 1);
      assert.match(run.asked[0]!.reason!, /PreToolUse hook asks before it: deletes files/);
      assert.equal(run.calls.length, 1);
    });

    it('a hook that hangs is killed at its timeout, shown as an error, and the call goes on', async () => {
      const started = Date.now();
      const run = await runHooked(rm, {
        hooks: { PreToolUse: [{ command: 'sleep 30 & sleep 30', timeoutMs: 300 }] },
      });
      assert.ok(Date.now() - started < 10_000, 'the hook was not killed at its timeout');
      assert.equal(run.calls.length, 1);
      const [hook] = hookNodes(run);
      assert.equal(hook!.status, 'error');
      assert.match(hook!.resultPreview!, /timed out after 300 ms/);
      assert.equal(run.result.stopReason, 'end_turn');
    });

    it('a hook still running when the turn is cancelled is killed, its node cancelled', async () => {
      const cancel = new AbortController();
      setTimeout(() => cancel.abort(), 300);
      const started = Date.now();
      const run = await runHooked(rm, {
        signal: cancel.signal,
        hooks: { PreToolUse: [{ command: 'sleep 30 & sleep 30' }] },
      });
      assert.ok(Date.now() - started < 10_000, 'the hook outlived the cancel');
      assert.equal(run.result.stopReason, 'cancelled');
      assert.deepEqual(run.calls, []);
      assert.equal(hookNodes(run)[0]!.status, 'cancelled');
    });

    it('a hook that crashes or prints no JSON is shown as an error, and the call goes on', async () => {
      const run = await runHooked(rm, {
        hooks: {
          PreToolUse: [{ command: 'echo boom >&2; exit 1' }, { command: 'echo not json' }],
        },
      });
      assert.equal(run.calls.length, 1);
      const [crashed, garbled] = hookNodes(run);
      assert.equal(crashed!.status, 'error');
      assert.match(crashed!.resultPreview!, /exit code 1: boom/);
      assert.equal(garbled!.status, 'error');
      assert.match(garbled!.resultPreview!, /not JSON/);
      assert.equal(run.result.stopReason, 'end_turn');
    });

    it('gets the event as JSON on stdin', async () => {
      const root = workspace({
        'save.sh': 'cat > event.json\n',
      });
      const run = await runHooked(rm, {
        workspaceRoot: root,
        mode: 'auto',
        hooks: { PreToolUse: [{ command: 'sh ./save.sh; cat event.json >&2; exit 2' }] },
      });
      const reason = toolResults(run)[0]!.content;
      const event = JSON.parse(reason.slice(reason.indexOf('{'), reason.lastIndexOf('}') + 1));
      assert.equal(event.event, 'PreToolUse');
      assert.equal(event.sessionId, 'session-1');
      assert.equal(event.turnId, 'turn-1');
      assert.equal(event.permissionMode, 'auto');
      assert.deepEqual(event.tool.name, 'run_command');
      assert.deepEqual(event.tool.args, { command: 'rm -rf build' });
    });
  });

  describe('where a hook runs', () => {
    it("without the daemon's secrets in its environment", async () => {
      process.env['ARBOR_HOOK_TEST_API_KEY'] = 'hook-canary-secret';
      try {
        const run = await runHooked(rm, {
          hooks: { PreToolUse: [{ command: 'echo "key=[$ARBOR_HOOK_TEST_API_KEY]" >&2; exit 2' }] },
        });
        assert.match(toolResults(run)[0]!.content, /key=\[\]/);
      } finally {
        delete process.env['ARBOR_HOOK_TEST_API_KEY'];
      }
    });

    it('in the sandbox run_command uses: nothing outside the workspace is writable', async function () {
      await requireSandbox(this);
      const outside = join(homedir(), `.arbor-hook-escape-${process.pid}`);
      const run = await runHooked(rm, {
        hooks: {
          PreToolUse: [{ command: `touch ${outside} 2>/dev/null; touch inside; echo '{}'` }],
        },
      });
      assert.equal(existsSync(outside), false, 'the hook wrote outside the workspace');
      assert.equal(hookNodes(run)[0]!.status, 'done');
      assert.equal(run.calls.length, 1);
    });
  });

  describe('PostToolUse', () => {
    it('its context is added to the result the model sees', async () => {
      const run = await runHooked(rm, {
        hooks: {
          PostToolUse: [
            {
              matcher: 'run_command',
              command: answering('"isError":false', { context: 'lint: 2 warnings' }),
            },
          ],
        },
      });
      const [result] = toolResults(run);
      assert.match(result!.content, /^ran rm -rf build\n\n\[PostToolUse hook\] lint: 2 warnings$/);
    });
  });

  describe('UserPromptSubmit', () => {
    it('a deny ends the turn before any model call, the reason shown to the user', async () => {
      const run = await runHooked(rm, {
        text: 'deploy to production',
        hooks: {
          UserPromptSubmit: [
            { command: answering('production', { decision: 'deny', reason: 'not from here' }) },
          ],
        },
      });
      assert.equal(run.provider.requests.length, 0);
      assert.equal(run.result.stopReason, 'error');
      assert.match(run.result.error!, /UserPromptSubmit hook blocked the prompt: not from here/);
    });

    it('its context reaches the model with the prompt', async () => {
      const run = await runHooked(script({ '*': [{ text: 'ok' }] }), {
        hooks: { UserPromptSubmit: [{ command: `echo '{"context": "branch: main"}'` }] },
      });
      const user = run.provider.requests[0]!.messages.at(-1)!;
      assert.equal(user.content, 'go\n\n[UserPromptSubmit hook] branch: main');
    });
  });

  describe('SessionStart', () => {
    it("its context reaches the model on the session's first turn only", async () => {
      const runner = new HookRunner({
        user: { SessionStart: [{ command: `echo '{"context": "team conventions"}'` }] },
        log: () => undefined,
      });
      const turn = () => runHooked(script({ '*': [{ text: 'ok' }] }), { hooks: {}, runner });
      const first = await turn();
      assert.match(
        String(first.provider.requests[0]!.messages.at(-1)!.content),
        /\[SessionStart hook\] team conventions/,
      );
      const second = await turn();
      assert.equal(second.provider.requests[0]!.messages.at(-1)!.content, 'go');
    });
  });

  describe('Stop', () => {
    it('a block sends the model back to work once, with the reason as a note', async () => {
      const root = workspace({
        'stop.sh': `cat > /dev/null\n[ -f .stopped ] && exit 0\ntouch .stopped\necho '{"decision": "block", "reason": "run the tests first"}'\n`,
      });
      const run = await runHooked(
        // The scripted provider answers a note by its text, as a new user message.
        script({ '*': [{ text: 'done' }], 'run the tests first': [{ text: 'tests pass' }] }),
        { workspaceRoot: root, hooks: { Stop: [{ command: 'sh ./stop.sh' }] } },
      );
      assert.equal(run.provider.requests.length, 2);
      const note = run.provider.requests[1]!.messages.at(-1)!;
      assert.equal(note.role, 'user');
      assert.match(String(note.content), /\[Stop hook\].*run the tests first/);
      assert.equal(run.result.text, 'done\n\ntests pass');
      assert.equal(run.result.stopReason, 'end_turn');
    });

    it(`sends it back at most ${MAX_STOP_CONTINUES} times a turn`, async () => {
      const run = await runHooked(
        script({
          '*': [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }, { text: 'e' }],
        }),
        {
          hooks: { Stop: [{ command: 'echo never done >&2; exit 2' }] },
        },
      );
      assert.equal(run.provider.requests.length, MAX_STOP_CONTINUES + 1);
      assert.equal(run.result.stopReason, 'end_turn');
    });
  });

  describe('workspace hooks', () => {
    const settings = {
      '.arbor/settings.json': JSON.stringify({
        hooks: { PreToolUse: [{ command: 'echo "workspace says no" >&2; exit 2' }] },
      }),
    };

    it("run after the user's only when the config sets hooks.workspaceFile", async () => {
      const root = workspace(settings);
      const untrusted = await runHooked(rm, { workspaceRoot: root, hooks: {} });
      assert.equal(untrusted.calls.length, 1);
      assert.equal(hookNodes(untrusted).length, 0);

      const trusted = await runHooked(rm, { workspaceRoot: root, hooks: { workspaceFile: true } });
      assert.deepEqual(trusted.calls, []);
      assert.match(toolResults(trusted)[0]!.content, /workspace says no/);
    });
  });
});
