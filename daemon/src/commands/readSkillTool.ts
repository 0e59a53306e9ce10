/**
 * read_skill (builtin-tools.md#read-skill): the model reads a skill it was
 * told about — its SKILL.md, or any file or folder listing inside the
 * skill's folder. The user's skills live outside the workspace, so
 * read_file cannot reach them; this tool reaches nothing but skill folders,
 * through the same symlink-safe reads as the workspace tools.
 */
import { z } from 'zod';
import { defineTool, type Tool } from '../tools/tool.js';
import { WorkspaceEscapeError, resolveInWorkspace } from '../tools/workspace/confinement.js';
import { listDirectory, withFile } from '../tools/workspace/safeFs.js';
import { findSkill, MAX_DEFINITION_BYTES, type CommandCatalogue } from './commandCatalogue.js';

export const READ_SKILL = 'read_skill';
/** The most characters one call returns: a skill's resource is read a page at a time. */
const MAX_READ_CHARS = 32_000;

export function readSkillTool(catalogue: CommandCatalogue): Tool {
  return defineTool({
    name: READ_SKILL,
    description:
      'Reads a skill listed in your instructions: without path its SKILL.md; with path a file (or a folder listing) inside the skill folder, relative to it.',
    input: z.object({
      name: z.string().min(1).describe('The skill name, as listed'),
      path: z
        .string()
        .min(1)
        .optional()
        .describe('A file or folder inside the skill folder, e.g. reference/api.md'),
    }),
    category: 'read',
    execute: ({ name, path = 'SKILL.md' }, { workspaceRoot }) => {
      // Read again now: the skill may have been added or removed since the turn began.
      const skill = findSkill(catalogue.read(workspaceRoot), name);
      if (skill === undefined) return { content: `No skill named "${name}".`, isError: true };
      try {
        const resolved = resolveInWorkspace(skill.folder, path);
        return withFile(skill.folder, resolved.real, path, (file) => {
          if (file.stats.isDirectory()) {
            const entries = listDirectory(skill.folder, resolved.real, path);
            return entries
              .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
              .join('\n');
          }
          if (!file.stats.isFile()) return { content: `${path} is not a file.`, isError: true };
          if (file.stats.size > MAX_DEFINITION_BYTES)
            return {
              content: `${path} is too large to read (${file.stats.size} bytes).`,
              isError: true,
            };
          const text = file.read().toString('utf8');
          return text.length > MAX_READ_CHARS
            ? `${text.slice(0, MAX_READ_CHARS)}\n[truncated: ${text.length} characters]`
            : text;
        });
      } catch (error) {
        const reason =
          error instanceof WorkspaceEscapeError
            ? 'is outside the skill folder'
            : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
        return { content: `${path} of skill ${name} ${reason}.`, isError: true };
      }
    },
  });
}
