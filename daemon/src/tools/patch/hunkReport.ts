/**
 * Why a file's hunks do not apply, hunk by hunk, as the model can correct
 * it: the hunk's header, the lines it expects (context and removed lines) and
 * the lines the file has where the header points. Each hunk is tried alone on
 * the file as it is; `diff` matches exactly, searching near the line the
 * header names.
 */
import { applyPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';

export function hunkHeader(hunk: StructuredPatchHunk): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

function quoted(lines: readonly string[]): string {
  return lines.length === 0 ? '    (no lines)' : lines.map((line) => `    |${line}`).join('\n');
}

/** One paragraph per hunk that does not apply alone; a note when each applies but not all together. */
export function describeFailedHunks(path: string, source: string, patch: StructuredPatch): string {
  const fileLines = source.split(/\r?\n/);
  const reports: string[] = [];
  patch.hunks.forEach((hunk, index) => {
    if (applyPatch(source, { ...patch, hunks: [hunk] }) !== false) return;
    const expected = hunk.lines
      .filter((line) => line.startsWith(' ') || line.startsWith('-'))
      .map((line) => line.slice(1));
    const first = Math.max(1, hunk.oldStart);
    const found = fileLines.slice(first - 1, first - 1 + expected.length);
    const differs = expected.findIndex((line, i) => line !== found[i]);
    const difference =
      differs === -1
        ? ''
        : `\n  first difference at line ${first + differs}: expected ${JSON.stringify(expected[differs])}, found ${found[differs] === undefined ? 'the end of the file' : JSON.stringify(found[differs])}`;
    reports.push(
      `${path}: hunk ${index + 1} of ${patch.hunks.length} does not apply: ${hunkHeader(hunk)}\n` +
        `  expected (context and removed lines):\n${quoted(expected)}\n` +
        `  found at line ${first}:\n${quoted(found)}${difference}`,
    );
  });
  if (reports.length > 0) return reports.join('\n');
  return `${path}: each hunk applies alone but not all together (they overlap or are out of order); give the hunks in file order without overlaps`;
}
