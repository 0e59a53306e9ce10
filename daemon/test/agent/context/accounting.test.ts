/** Token counting per family, the config's context settings, and transcripts a request can start from. */
import { strict as assert } from 'node:assert';
import { ContextSettings } from '../../../src/agent/context/contextSettings.js';
import { completeExchanges } from '../../../src/agent/context/sessionContext.js';
import { TokenCalibration } from '../../../src/agent/context/tokenCalibration.js';
import { estimateTokens, tokenCounterFor } from '../../../src/agent/context/tokenCounter.js';
import { ConfigFile } from '../../../src/config/configSchema.js';
import { capabilitiesOf, modelProfile } from '../../../src/providers/modelCapabilities.js';
import type { ProviderMessage } from '../../../src/providers/provider.js';

describe('context engine: token accounting and settings', () => {
  it('counts OpenAI models with their BPE encoding, other families with the estimate', async () => {
    const openai = await tokenCounterFor('openai', 'gpt-4.1');
    assert.equal(openai('hello world'), 2);
    assert.equal((await tokenCounterFor('openai', 'gpt-4'))('hello world'), 2);
    assert.notEqual(
      openai('function f(x) { return x * 2; }'),
      estimateTokens('function f(x) { return x * 2; }'),
    );
    assert.equal(await tokenCounterFor('anthropic', 'claude-sonnet-4-5'), estimateTokens);
    assert.equal(estimateTokens('12345678'), 2);
  });

  it('the correction ratio follows reported usage, per model, within bounds', () => {
    const calibration = new TokenCalibration();
    assert.equal(calibration.ratioOf('anthropic:claude'), 1);
    calibration.observe('anthropic:claude', 1000, 1200);
    assert.equal(calibration.ratioOf('anthropic:claude'), 1.2);
    calibration.observe('anthropic:claude', 1000, 1000);
    assert.equal(calibration.ratioOf('anthropic:claude'), 1.1);
    calibration.observe('local:x', 100, 0); // no usage reported: nothing learnt
    assert.equal(calibration.ratioOf('local:x'), 1);
    calibration.observe('local:x', 100, 100_000);
    assert.equal(calibration.ratioOf('local:x'), 4);
  });

  it('each model has an output reserve: its answer limit unless the config says otherwise', () => {
    assert.equal(
      capabilitiesOf(modelProfile('anthropic', 'claude-sonnet-4-5')).outputReserve,
      32_000,
    );
    const overridden = modelProfile('openai', 'gpt-4o', {
      'gpt-4o': { contextWindow: 64_000, outputReserve: 1_000 },
    });
    assert.deepEqual(
      [capabilitiesOf(overridden).contextWindow, capabilitiesOf(overridden).outputReserve],
      [64_000, 1_000],
    );
  });

  it('config `context`: budget awareness is per-message or limit:<0-100>, off by default', () => {
    assert.equal(ContextSettings.parse({}).budgetAwareness, undefined);
    assert.deepEqual(ContextSettings.parse({ budgetAwareness: 'limit:70' }).budgetAwareness, {
      limitPercent: 70,
    });
    assert.equal(
      ContextSettings.parse({ budgetAwareness: 'per-message' }).budgetAwareness,
      'per-message',
    );
    for (const bad of ['limit:101', 'limit:', 'always', 'limit:-1']) {
      assert.equal(ContextSettings.safeParse({ budgetAwareness: bad }).success, false, bad);
    }
    const file = ConfigFile.parse({
      context: { budgetAwareness: 'limit:50', offloadTokens: 4000 },
    });
    assert.deepEqual(file.context, {
      budgetAwareness: { limitPercent: 50 },
      offloadTokens: 4000,
      reducedTokens: 200,
    });
    assert.equal(
      ConfigFile.safeParse({ providers: { openai: { models: { x: { outputReserve: 10 } } } } })
        .success,
      true,
    );
  });

  it('a stored transcript ends before a tool call that has no result (a turn stopped mid-call)', () => {
    const call = (id: string) => ({ id, name: 'read_file', arguments: {} });
    const messages: ProviderMessage[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: [call('a')] },
      { role: 'tool', toolCallId: 'a', name: 'read_file', content: 'r' },
      { role: 'assistant', content: 'reading two', toolCalls: [call('b'), call('c')] },
      { role: 'tool', toolCallId: 'b', name: 'read_file', content: 'r' },
    ];
    assert.deepEqual(completeExchanges(messages), messages.slice(0, 3));
    assert.deepEqual(completeExchanges(messages.slice(0, 3)), messages.slice(0, 3));
  });
});
