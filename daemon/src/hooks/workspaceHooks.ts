/**
 * The `hooks` of a workspace's `.arbor/settings.json`, read again only when
 * the file changes. The permission rules read the same file
 * (permissions/rules/permissionRules.ts) and refuse every tool call while it
 * is invalid; here an invalid file adds no hooks and says why.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceSettings } from '../permissions/rules/ruleLists.js';
import type { HookLists } from './hookConfig.js';

const SETTINGS_FILE = '.arbor/settings.json';

export type WorkspaceHooks = { hooks: HookLists } | { error: string };

export class WorkspaceHooksReader {
  private readonly cache = new Map<string, { stamp: string; read: WorkspaceHooks }>();

  read(workspaceRoot: string): WorkspaceHooks {
    const path = join(workspaceRoot, SETTINGS_FILE);
    let stamp: string;
    try {
      const stat = statSync(path);
      stamp = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    } catch {
      this.cache.delete(path);
      return { hooks: {} };
    }
    const cached = this.cache.get(path);
    if (cached?.stamp === stamp) return cached.read;
    const read = parse(() => readFileSync(path, 'utf8'));
    this.cache.set(path, { stamp, read });
    return read;
  }
}

function parse(text: () => string): WorkspaceHooks {
  try {
    const settings = WorkspaceSettings.safeParse(JSON.parse(text()));
    if (!settings.success)
      return { error: `${SETTINGS_FILE} is invalid: ${settings.error.message}` };
    return { hooks: settings.data.hooks ?? {} };
  } catch (error) {
    return { error: `${SETTINGS_FILE} cannot be read: ${(error as Error).message}` };
  }
}
