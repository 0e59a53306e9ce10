/**
 * Where commands and skills come from (commands.md#commands-sources): the
 * workspace's `.arbor/commands/**\/*.md` and `.arbor/skills/<name>/SKILL.md`,
 * and the same two folders in the user's directory (the daemon's data dir,
 * `~/.arbor` by default). Read fresh on every call — they are a handful of
 * small files, and reading on demand needs no watcher per workspace. Every
 * read goes through safeFs, confined to the folder it lists, so a link in a
 * workspace cannot make the daemon read (and hand the model) a file outside.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandInfo, CommandSource } from '@arbor/protocol';
import { CommandName } from '@arbor/protocol';
import { resolveInWorkspace } from '../tools/workspace/confinement.js';
import { listDirectory, withFile } from '../tools/workspace/safeFs.js';
import { parseFrontmatter } from './frontmatter.js';

/** Files larger than this are left out: a template or SKILL.md is a page, not a data set. */
export const MAX_DEFINITION_BYTES = 256 * 1024;
/** Per source and kind: bounds the list and the skills told to the model. */
const MAX_ENTRIES = 200;
/** Namespace folders below commands/ (`a/b/c.md` is `a:b:c`). */
const MAX_NAMESPACE_DEPTH = 3;

export interface CommandDefinition {
  readonly info: CommandInfo;
  /** The file without its frontmatter: what `$ARGUMENTS` and `$1`..`$9` are put into. */
  readonly template: string;
}

export interface SkillDefinition {
  readonly info: CommandInfo;
  /** The skill's folder: read_skill reads nothing outside it. */
  readonly folder: string;
}

/** One session's commands and skills, as read now. */
export interface CommandSet {
  readonly commands: readonly CommandDefinition[];
  readonly skills: readonly SkillDefinition[];
}

/** What commands/list answers: commands, then skills, each by name. */
export function listOf(set: CommandSet): CommandInfo[] {
  return [...set.commands, ...set.skills].map((entry) => entry.info);
}

export function findCommand(set: CommandSet, name: string): CommandDefinition | undefined {
  return set.commands.find((command) => command.info.name === name);
}

export function findSkill(set: CommandSet, name: string): SkillDefinition | undefined {
  return set.skills.find((skill) => skill.info.name === name);
}

export class CommandCatalogue {
  /** `userDir`: the folder holding the user's own `commands/` and `skills/`. */
  constructor(private readonly userDir: string) {}

  /**
   * A workspace command or skill wins over the user's of the same name: the
   * project's definition is the one its collaborators share and expect.
   */
  read(workspaceRoot: string): CommandSet {
    const sources: [CommandSource, string][] = [
      ['workspace', join(workspaceRoot, '.arbor')],
      ['user', this.userDir],
    ];
    const commands = new Map<string, CommandDefinition>();
    const skills = new Map<string, SkillDefinition>();
    for (const [source, base] of sources) {
      for (const command of readCommands(join(base, 'commands'), source)) {
        if (!commands.has(command.info.name)) commands.set(command.info.name, command);
      }
      for (const skill of readSkills(join(base, 'skills'), source)) {
        if (!skills.has(skill.info.name)) skills.set(skill.info.name, skill);
      }
    }
    return { commands: sorted([...commands.values()]), skills: sorted([...skills.values()]) };
  }
}

function sorted<T extends { info: CommandInfo }>(entries: T[]): T[] {
  return entries.sort((a, b) =>
    a.info.name < b.info.name ? -1 : a.info.name > b.info.name ? 1 : 0,
  );
}

function isDirectory(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A confined text file below `root`, or undefined when it cannot or should not be read. */
export function readConfined(root: string, requested: string): string | undefined {
  try {
    const resolved = resolveInWorkspace(root, requested);
    return withFile(root, resolved.real, requested, (file) =>
      file.stats.isFile() && file.stats.size <= MAX_DEFINITION_BYTES
        ? file.read().toString('utf8')
        : undefined,
    );
  } catch {
    return undefined;
  }
}

/** The entries of a confined folder below `root` ('' is root itself); none when unreadable. */
export function listConfined(root: string, requested: string) {
  try {
    const resolved = resolveInWorkspace(root, requested === '' ? '.' : requested);
    return listDirectory(root, resolved.real, requested);
  } catch {
    return [];
  }
}

function readCommands(root: string, source: CommandSource): CommandDefinition[] {
  if (!isDirectory(root)) return [];
  const out: CommandDefinition[] = [];
  const visit = (folder: string, namespace: string[]): void => {
    for (const entry of listConfined(root, folder)) {
      if (out.length >= MAX_ENTRIES) return;
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory() && namespace.length < MAX_NAMESPACE_DEPTH) {
        visit(path, [...namespace, entry.name]);
        continue;
      }
      if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
      const name = [...namespace, entry.name.slice(0, -'.md'.length)].join(':');
      if (!CommandName.safeParse(name).success) continue;
      const text = readConfined(root, path);
      if (text === undefined) continue;
      const { fields, body } = parseFrontmatter(text);
      out.push({ info: info(name, 'command', source, fields), template: body });
    }
  };
  visit('', []);
  return out;
}

function readSkills(root: string, source: CommandSource): SkillDefinition[] {
  if (!isDirectory(root)) return [];
  const out: SkillDefinition[] = [];
  for (const entry of listConfined(root, '')) {
    if (out.length >= MAX_ENTRIES) break;
    if (!entry.isDirectory() || !CommandName.safeParse(entry.name).success) continue;
    const text = readConfined(root, `${entry.name}/SKILL.md`);
    if (text === undefined) continue;
    // The folder names the skill (as Agent Skills require the frontmatter name to match it).
    const { fields } = parseFrontmatter(text);
    out.push({ info: info(entry.name, 'skill', source, fields), folder: join(root, entry.name) });
  }
  return out;
}

function info(
  name: string,
  kind: CommandInfo['kind'],
  source: CommandSource,
  fields: ReadonlyMap<string, string>,
): CommandInfo {
  const description = fields.get('description')?.slice(0, 1024);
  const argumentHint = kind === 'command' ? fields.get('argument-hint')?.slice(0, 200) : undefined;
  return {
    name,
    kind,
    source,
    ...(description !== undefined && { description }),
    ...(argumentHint !== undefined && { argumentHint }),
  };
}
