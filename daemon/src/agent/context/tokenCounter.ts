/**
 * Token accounting per provider family. OpenAI models are counted exactly
 * with their BPE encoding (gpt-tokenizer); every other family (Anthropic,
 * local servers, scripted) has no local tokenizer, so it gets an estimate of
 * characters per token that TokenCalibration corrects with the usage the
 * provider reports after each call.
 */

/** Counts the tokens of one text. */
export type CountTokens = (text: string) => number;

/** Characters per token of the estimate (English and code average about 4). */
const ESTIMATE_CHARS_PER_TOKEN = 4;

export const estimateTokens: CountTokens = (text) =>
  Math.ceil(text.length / ESTIMATE_CHARS_PER_TOKEN);

/** Models on the older cl100k encoding; every newer OpenAI model uses o200k. */
const CL100K_MODELS = /^(gpt-4(?!o|\.)|gpt-3\.5)/;

let o200k: Promise<CountTokens> | undefined;
let cl100k: Promise<CountTokens> | undefined;

/**
 * The counter of a provider's model. The BPE tables load on first use (they
 * take hundreds of milliseconds), never at daemon start.
 */
export function tokenCounterFor(providerId: string, model: string): Promise<CountTokens> {
  if (providerId !== 'openai') return Promise.resolve(estimateTokens);
  if (CL100K_MODELS.test(model)) {
    cl100k ??= import('gpt-tokenizer/encoding/cl100k_base').then((m) => m.countTokens);
    return cl100k;
  }
  o200k ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => m.countTokens);
  return o200k;
}
