/**
 * A workspace's `.arbor/settings.json` (permission rules and hooks), read
 * again only when the file changes. One reader for everything the file
 * holds: the permission rules and the hooks each take their part of it.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { WorkspaceSettings } from '../permissions/rules/ruleLists.js';

export const WORKSPACE_SETTINGS_FILE = '.arbor/settings.json';

export type SettingsRead = { settings: WorkspaceSettings } | { error: string };

/** A file read again only when its size, modification time or inode changed. */
export class FileCache<T> {
  private readonly entries = new Map<string, { stamp: string; value: T }>();

  /**
   * undefined: there is no such file. `parse` reads the text with `text()`
   * and must not throw: a file it cannot read or understand is a value it returns.
   */
  read(path: string, parse: (text: () => string) => T): T | undefined {
    let stamp: string;
    try {
      const stat = statSync(path);
      stamp = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    } catch {
      this.entries.delete(path);
      return undefined;
    }
    const cached = this.entries.get(path);
    if (cached?.stamp === stamp) return cached.value;
    const value = parse(() => readFileSync(path, 'utf8'));
    this.entries.set(path, { stamp, value });
    return value;
  }
}

export class WorkspaceSettingsReader {
  private readonly files = new FileCache<SettingsRead>();

  /** The workspace's settings; undefined when it has no settings file. */
  read(workspaceRoot: string): SettingsRead | undefined {
    return this.files.read(join(workspaceRoot, WORKSPACE_SETTINGS_FILE), parseSettings);
  }
}

function parseSettings(text: () => string): SettingsRead {
  try {
    return { settings: WorkspaceSettings.parse(JSON.parse(text())) };
  } catch (error) {
    return { error: `${WORKSPACE_SETTINGS_FILE} is invalid: ${describe(error)}` };
  }
}

function describe(error: unknown): string {
  if (error instanceof z.ZodError) {
    return error.issues
      .map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`)
      .join('; ');
  }
  return (error as Error).message;
}
