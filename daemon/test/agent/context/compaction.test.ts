/**
 * Compaction (issue 18): when earlier turns no longer fit, one model call
 * summarizes them; the call is a `compaction` node with its usage, the
 * summary replaces those turns in the requests that follow, later turns and
 * a restarted daemon start from it, and a failed summary falls back to
 * dropping the oldest turns.
 */
import { strict as assert } from 'node:assert';
import type { ExecutionTreeNode } from '@arbor/protocol';
import { TRANSCRIPT_HEADER } from '../../../src/agent/context/compaction.js';
import { DEFAULT_CONTEXT_SETTINGS } from '../../../src/agent/context/contextSettings.js';
import type { ProviderMessage } from '../../../src/providers/provider.js';
import { ScriptedProvider } from '../../../src/providers/scripted.js';
import { removeScratchDirs } from '../../store/helpers.js';
import { script } from '../harness.js';
import { MeasuringProvider, StoredSession, numberedText } from './contextHarness.js';

const WINDOW = 8_000;
const RESERVE = 1_000;
const ANSWER_CHARS = 8_000; // ~2,000 tokens an answer: the fourth turn no longer fits with three before it
const SUMMARY = 'The user asked numbered questions; each answer was a long numbered report.';

function session(
  summarizer: 'answers' | 'fails' = 'answers',
  window = WINDOW,
  agent: ConstructorParameters<typeof StoredSession>[0]['agent'] = {},
): {
  provider: MeasuringProvider;
  session: StoredSession;
} {
  const conversations: Record<string, unknown[]> = {};
  for (let i = 1; i <= 8; i++)
    conversations[`question ${i}`] = [{ text: numberedText(`answer ${i}`, ANSWER_CHARS) }];
  conversations[TRANSCRIPT_HEADER] = [
    summarizer === 'answers'
      ? { text: SUMMARY, usage: { inputTokens: 5_000, outputTokens: 40 } }
      : { error: 'model overloaded' },
  ];
  const provider = new MeasuringProvider(
    new ScriptedProvider(script(conversations as Parameters<typeof script>[0]), {
      capabilities: { contextWindow: window, outputReserve: RESERVE },
    }),
  );
  return { provider, session: new StoredSession({ provider, tools: [], agent }) };
}

const compactionNodes = (nodes: readonly ExecutionTreeNode[]) =>
  nodes.filter((node) => node.kind === 'compaction');
const isSummaryText = (message: ProviderMessage | undefined) =>
  message?.role === 'user' &&
  message.content.startsWith('[Summary of the ') &&
  message.content.endsWith(SUMMARY);

describe('context engine: compaction', function () {
  this.timeout(60_000);
  afterEach(removeScratchDirs);

  it('summarizes earlier turns in one call, shown as a compaction node with its usage', async () => {
    const { provider, session: s } = session();
    try {
      let compactedAt = 0;
      for (let i = 1; i <= 6 && compactedAt === 0; i++) {
        const result = await s.turn(`question ${i}`);
        assert.equal(result.stopReason, 'end_turn', result.error);
        const [node] = compactionNodes(result.tree.nodes);
        if (!node) continue;
        compactedAt = i;
        assert.equal(node.name, 'compact_context');
        assert.equal(node.status, 'done');
        assert.equal(node.parentId, result.tree.nodes[0]!.id);
        assert.match(node.title ?? '', /^Summarizing \d+ earlier messages$/);
        assert.equal(node.resultPreview, SUMMARY);
        assert.deepEqual(node.usage, { inputTokens: 5_000, outputTokens: 40 });
        // The turn's usage includes the summary call's.
        assert.ok(result.usage.inputTokens >= 5_000);
        // The answer's request: the summary, then this turn's question; no earlier turn verbatim.
        const sent = provider.last!.messages;
        assert.ok(isSummaryText(sent[0]), JSON.stringify(sent[0]).slice(0, 200));
        assert.equal(sent.at(-1)?.content, `question ${i}`);
        assert.ok(!sent.some((m) => m.content === 'question 1'));
      }
      assert.ok(compactedAt >= 2, 'a turn compacted the ones before it');
      assert.ok(Math.max(...provider.sizes) <= WINDOW - RESERVE);

      // The next turn starts from the stored summary, without summarizing again.
      const next = await s.turn(`question ${compactedAt + 1}`);
      assert.equal(next.stopReason, 'end_turn', next.error);
      assert.deepEqual(compactionNodes(next.tree.nodes), []);
      const sent = provider.last!.messages;
      assert.ok(isSummaryText(sent[0]));
      assert.equal(sent[1]?.content, `question ${compactedAt}`);

      // And so does the same session after a restart.
      const reopened = s.reopen();
      const afterRestart = await reopened.turn(`question ${compactedAt + 2}`);
      assert.equal(afterRestart.stopReason, 'end_turn', afterRestart.error);
      assert.ok(isSummaryText(provider.last!.messages[0]));
      assert.ok(!provider.last!.messages.some((m) => m.content === 'question 1'));
      // session/load still shows every message as it was.
      const loaded = reopened.store.loadSession(reopened.sessionId)!;
      assert.equal(loaded.messages[0]?.content, 'question 1');
      assert.ok(loaded.messages.every((m) => !m.content.includes(SUMMARY)));
      reopened.close();
    } finally {
      s.close();
    }
  });

  it('budget awareness limit:50 compacts once the context passes half the window, not only at its end', async () => {
    // ~2,000 tokens an answer: without the limit eight turns fit the window (20,000 - 1,000 reserved).
    const window = 20_000;
    const limitPercent = 50;
    const compactions = async (agent: ConstructorParameters<typeof StoredSession>[0]['agent']) => {
      const { provider, session: s } = session('answers', window, agent);
      try {
        let count = 0;
        for (let i = 1; i <= 8; i++) {
          const result = await s.turn(`question ${i}`);
          assert.equal(result.stopReason, 'end_turn', result.error);
          count += compactionNodes(result.tree.nodes).length;
        }
        return { count, largest: Math.max(...provider.sizes) };
      } finally {
        s.close();
      }
    };
    const unlimited = await compactions({});
    assert.equal(unlimited.count, 0, 'eight turns fit the whole window');
    const limited = await compactions({
      context: { ...DEFAULT_CONTEXT_SETTINGS, budgetAwareness: { limitPercent } },
    });
    assert.ok(limited.count > 0, 'no turn compacted under the limit');
    assert.ok(
      limited.largest <= (window * limitPercent) / 100,
      `largest request ${limited.largest}`,
    );
  });

  it('a summary that fails is an error node, and the oldest turns are dropped instead', async () => {
    const { provider, session: s } = session('fails');
    try {
      let failed: ExecutionTreeNode | undefined;
      for (let i = 1; i <= 6 && !failed; i++) {
        const result = await s.turn(`question ${i}`);
        assert.equal(result.stopReason, 'end_turn', result.error);
        failed = compactionNodes(result.tree.nodes)[0];
      }
      assert.ok(failed, 'a turn tried to compact');
      assert.equal(failed.status, 'error');
      assert.match(failed.resultPreview ?? '', /model overloaded/);
      const sent = provider.last!.messages;
      assert.ok(!sent.some((m) => m.content === 'question 1'), 'the oldest turn was dropped');
      assert.ok(!sent.some(isSummaryText));
    } finally {
      s.close();
    }
  });
});
