/** Slash commands and skills (commands.md): their folders, expansion, and the model's read_skill. */
export { CommandCatalogue, type CommandSet } from './commandCatalogue.js';
export { SessionCommands, type TurnCommandInput } from './sessionCommands.js';
export { READ_SKILL, readSkillTool } from './readSkillTool.js';
export { skillsPromptLines } from './skillsPrompt.js';
