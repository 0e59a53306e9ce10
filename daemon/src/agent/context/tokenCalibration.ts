/**
 * Per-model correction of token counts by what the provider reports. After
 * each call the ratio of the reported input tokens to the engine's own count
 * is folded into a running ratio; later counts are multiplied by it. Kept by
 * the turn runner, so it carries over from turn to turn for the daemon's life.
 */

/** Weight of the newest observation; older ones fade. */
const SMOOTHING = 0.5;
/** A ratio outside these bounds is a provider quirk (e.g. cached prompts), not the tokenizer. */
const MIN_RATIO = 0.25;
const MAX_RATIO = 4;

export class TokenCalibration {
  private readonly ratios = new Map<string, number>();

  /** 1 until the model reported usage. */
  ratioOf(modelKey: string): number {
    return this.ratios.get(modelKey) ?? 1;
  }

  /** `counted`: the engine's (uncorrected) count of the request; `reported`: the provider's input tokens. */
  observe(modelKey: string, counted: number, reported: number): void {
    if (counted <= 0 || reported <= 0) return;
    const observed = Math.min(MAX_RATIO, Math.max(MIN_RATIO, reported / counted));
    const previous = this.ratios.get(modelKey);
    this.ratios.set(
      modelKey,
      previous === undefined ? observed : previous + SMOOTHING * (observed - previous),
    );
  }
}
