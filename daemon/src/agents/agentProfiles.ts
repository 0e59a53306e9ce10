/**
 * Where agent profiles come from: the config's `agents`, and a workspace's
 * `.arbor/agents/<name>.json` (one profile per file, named after the file).
 * A workspace profile hides a config one of the same name, as workspace
 * commands hide the user's: the project's definition is the one its
 * collaborators share. Files are read through the workspace confinement (a
 * link leading out of the folder is not followed) and again only when they
 * change (FileCache); a file that is not a valid profile is listed with why,
 * and a session cannot run with it.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { AgentFileError, AgentInfo } from '@arbor/protocol';
import { listConfined, readConfined } from '../commands/commandCatalogue.js';
import { FileCache } from '../config/workspaceSettings.js';
import {
  AgentName,
  AgentProfile,
  type AgentProfile as Profile,
  type NamedAgentProfile,
} from './agentProfile.js';

/** The folder of a workspace's profiles, relative to its root. */
export const WORKSPACE_AGENTS_DIR = '.arbor/agents';
/** More files than this are not read: a folder of profiles is a handful of small files. */
const MAX_WORKSPACE_PROFILES = 200;

/** Every profile a session of a workspace may run with, and the files that are not one. */
export interface AgentListing {
  /** Sorted by name. */
  profiles: NamedAgentProfile[];
  errors: AgentFileError[];
}

/** session/new named a profile that is unknown or cannot be used; the message says which and why. */
export class AgentProfileError extends Error {
  override name = 'AgentProfileError';
}

/** A workspace profile file: a profile, and `$schema` for editors (agent-profile.schema.json). */
export const AgentProfileFile = AgentProfile.extend({
  $schema: z.string().optional().describe('Editors may point this at agent-profile.schema.json'),
});

type FileRead = { profile: Profile } | { error: string };

export class AgentProfiles {
  private readonly files = new FileCache<FileRead>();

  /** `config`: the config file's `agents`, already validated (config/configSchema.ts). */
  constructor(
    private readonly config: Readonly<Record<string, Profile>> = {},
    /** The profile of sessions created without one (config `defaultAgent`). */
    readonly defaultAgent?: string,
  ) {}

  /** The config's profiles, then the workspace's over them; absent root: the config's only. */
  list(workspaceRoot?: string): AgentListing {
    const byName = new Map<string, NamedAgentProfile>();
    for (const [name, profile] of Object.entries(this.config))
      byName.set(name, { name, source: 'config', profile });
    const errors: AgentFileError[] = [];
    if (workspaceRoot !== undefined) {
      for (const [name, read] of this.readWorkspace(workspaceRoot)) {
        if ('error' in read) {
          errors.push({ file: fileOf(name), message: read.error });
          // A broken file still hides the config profile it is named after: the
          // workspace meant its own, and running the other instead would surprise.
          byName.delete(name);
        } else byName.set(name, { name, source: 'workspace', profile: read.profile });
      }
    }
    const profiles = [...byName.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    return { profiles, errors };
  }

  /** The profile `name` for a session of `workspaceRoot`, or an AgentProfileError saying why not. */
  resolve(workspaceRoot: string, name: string): NamedAgentProfile {
    const { profiles, errors } = this.list(workspaceRoot);
    const found = profiles.find((entry) => entry.name === name);
    if (found) return found;
    const names = profiles.map((entry) => entry.name);
    const known = `known: ${names.length > 0 ? names.join(', ') : 'none'}`;
    const broken = errors.find((entry) => entry.file === fileOf(name));
    if (broken)
      throw new AgentProfileError(
        `agent "${name}" cannot be used: ${broken.file} ${broken.message} (${known})`,
      );
    throw new AgentProfileError(`unknown agent "${name}" (${known})`);
  }

  /** The workspace's profile files by name, each a profile or why it is not one. */
  private readWorkspace(workspaceRoot: string): [string, FileRead][] {
    const folder = join(workspaceRoot, WORKSPACE_AGENTS_DIR);
    if (!isDirectory(folder)) return [];
    const out: [string, FileRead][] = [];
    const entries = listConfined(folder, '')
      .filter((entry) => entry.name.endsWith('.json'))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries.slice(0, MAX_WORKSPACE_PROFILES)) {
      const name = entry.name.slice(0, -'.json'.length);
      if (!AgentName.safeParse(name).success) {
        out.push([
          name,
          {
            error:
              'is not named as an agent: lower-case letters, digits, ".", "_" and "-", starting with a letter or digit, at most 64',
          },
        ]);
        continue;
      }
      const read = this.files.read(join(folder, entry.name), () =>
        parseProfile(readConfined(folder, entry.name)),
      );
      if (read) out.push([name, read]);
    }
    return out;
  }
}

/** What agents/list says of a profile: what a picker shows. */
export function agentInfo({ name, source, profile }: NamedAgentProfile): AgentInfo {
  return {
    name,
    source,
    ...(profile.description !== undefined && { description: profile.description }),
    ...(profile.model !== undefined && { model: profile.model }),
    planning: profile.planningEnabled,
    ...(profile.allowParallelSubagents && { parallelSubagents: profile.maxParallelSubagents }),
  };
}

function fileOf(name: string): string {
  return `${WORKSPACE_AGENTS_DIR}/${name}.json`;
}

/** Never throws: a file that is not a profile is a value saying why (FileCache caches it). */
function parseProfile(text: string | undefined): FileRead {
  if (text === undefined)
    return { error: 'cannot be read (not a regular file inside the folder, or over 256 KiB)' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `is not valid JSON: ${(error as Error).message}` };
  }
  const parsed = AgentProfileFile.safeParse(json);
  if (!parsed.success) return { error: `is invalid: ${issues(parsed.error)}` };
  const { $schema: _schema, ...profile } = parsed.data;
  return { profile };
}

function issues(error: z.ZodError): string {
  return error.issues
    .flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${[...issue.path, key].join('.')}: unknown key`)
        : [`${issue.path.join('.') || '(top level)'}: ${issue.message}`],
    )
    .join('; ');
}

function isDirectory(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}
