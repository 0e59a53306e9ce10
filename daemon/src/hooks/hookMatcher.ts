/**
 * A hook's `matcher`: tool names, `*` matching any run of characters and `|`
 * separating alternatives, each alternative matching the whole name
 * ("run_command|write_file", "mcp__github__*"). No matcher: every tool.
 */
export function matchesTool(matcher: string | undefined, toolName: string): boolean {
  if (matcher === undefined) return true;
  return matcher.split('|').some((alternative) => {
    const pattern = alternative
      .trim()
      .split('*')
      .map((part) => part.replace(/[.+?^${}()[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${pattern}$`).test(toolName);
  });
}
