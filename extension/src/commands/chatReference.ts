/**
 * How editor content is quoted into the chat: the file's workspace path, the
 * 1-based line range and the text in a fenced block the model reads as code.
 * No `vscode` import (unit-tested); editorCommands.ts feeds it.
 */
export interface CodeExcerpt {
  /** Workspace-relative path (as the daemon's file tools take it). */
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The editor's language id, used as the fence's info string. */
  languageId: string;
  text: string;
}

/** `path` lines a-b, then the text fenced with more backticks than it contains in a row. */
export function quoteExcerpt(excerpt: CodeExcerpt): string {
  const { path, startLine, endLine, languageId, text } = excerpt;
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const lines = startLine === endLine ? `line ${startLine}` : `lines ${startLine}-${endLine}`;
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${fileReference(path)} ${lines}:\n${fence}${languageId}\n${body}${fence}`;
}

export function fileReference(path: string): string {
  return `\`${path}\``;
}

/** The prompts of Explain Selection and Fix Selection; `problems`: the editor's diagnostics in the range. */
export function explainPrompt(excerpt: CodeExcerpt): string {
  return `Explain what this code does and how it works.\n\n${quoteExcerpt(excerpt)}`;
}

export function fixPrompt(excerpt: CodeExcerpt, problems: readonly string[]): string {
  const listed =
    problems.length > 0
      ? `\n\nThe editor reports:\n${problems.map((p) => `- ${p}`).join('\n')}`
      : '';
  return (
    `Find and fix the problems in this code, and edit the file with the fix.${listed}\n\n` +
    quoteExcerpt(excerpt)
  );
}

/**
 * The lines a selection covers, 1-based: a selection that ends at the start
 * of a line (a whole-line selection) does not include that line.
 */
export function selectedLines(
  start: { line: number },
  end: { line: number; character: number },
): { startLine: number; endLine: number } {
  const last = end.character === 0 && end.line > start.line ? end.line - 1 : end.line;
  return { startLine: start.line + 1, endLine: last + 1 };
}
