/**
 * The system prompt's list of skills (commands.md#skills-prompt): name and
 * description only, bounded, so many skills cost little context; the model
 * reads a skill's instructions with read_skill when a task calls for it.
 */
import type { CommandInfo } from '@arbor/protocol';
import { READ_SKILL } from './readSkillTool.js';

const MAX_PROMPT_SKILLS = 50;
const MAX_DESCRIPTION_CHARS = 300;

export function skillsPromptLines(skills: readonly CommandInfo[]): string[] {
  if (skills.length === 0) return [];
  const shown = skills.slice(0, MAX_PROMPT_SKILLS).map((skill) => {
    const description = (skill.description ?? '')
      .replace(/\s+/g, ' ')
      .slice(0, MAX_DESCRIPTION_CHARS);
    return `- ${skill.name}${description ? `: ${description}` : ''}`;
  });
  const more = skills.length - shown.length;
  return [
    `Skills are instructions and resources for particular tasks. When a task matches a skill, first read it with ${READ_SKILL} {"name": "<skill>"}; read the files it mentions with ${READ_SKILL} {"name": "<skill>", "path": "<file>"}. Available skills:`,
    ...shown,
    ...(more > 0 ? [`(${more} more skills not listed)`] : []),
  ];
}
