/**
 * A tool call's arguments as far as the bridge can know them: the node's
 * `argsPreview` when it is a whole JSON object (the model's arguments, as a
 * stored turn also has them), else the whole arguments of an approval request
 * (previews are cut at 500 characters), else the `path` that opens a cut
 * preview, so a long write still names its file.
 */
export type ToolArgs = Record<string, unknown>;

export function argsOf(argsPreview: string | undefined, fullArgs?: unknown): ToolArgs {
  const whole = argsPreview === undefined ? undefined : parseObject(argsPreview);
  if (whole) return whole;
  if (isObject(fullArgs)) return fullArgs;
  if (argsPreview === undefined) return {};
  const path = /^\{"path":("(?:[^"\\]|\\.)*")/.exec(argsPreview)?.[1];
  return path === undefined ? {} : { path: JSON.parse(path) as string };
}

function parseObject(text: string): ToolArgs | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined; // a cut preview
  }
}

/** The argument as a string, or undefined when absent or not a string. */
export function stringArg(args: ToolArgs, key: string): string | undefined {
  const value = args[key];
  return typeof value === 'string' ? value : undefined;
}

function isObject(value: unknown): value is ToolArgs {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
