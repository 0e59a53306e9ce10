/**
 * Tool-call arguments as a model sent them may nest absurdly deep (a
 * provider's JSON, a script). Validating, previewing or re-sending them
 * recurses, and 200,000 levels overflow the stack: such arguments are
 * replaced, where the model's reply arrives, by a refusal the call then
 * reports to the model as its error result.
 */

/** Deeper than any tool's argument schema needs. */
export const MAX_ARGUMENT_DEPTH = 64;

export class RefusedArguments {
  constructor(readonly reason: string) {}

  /** How the refused call appears in previews and in the history sent back to the model. */
  toJSON(): { refused: string } {
    return { refused: this.reason };
  }
}

/** `args` itself, or a RefusedArguments when it nests deeper than MAX_ARGUMENT_DEPTH. */
export function boundArguments(args: unknown): unknown {
  // Iterative: the check must not recurse into what it guards against.
  const stack: [unknown, number][] = [[args, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_ARGUMENT_DEPTH) {
      return new RefusedArguments(
        `the arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels; call the tool again with flatter arguments`,
      );
    }
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return args;
}
