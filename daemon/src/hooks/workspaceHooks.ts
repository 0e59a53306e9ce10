/**
 * The `hooks` of a workspace's `.arbor/settings.json`, from the reader the
 * permission rules use too (config/workspaceSettings.ts). The rules refuse
 * every tool call while the file is invalid; here an invalid file adds no
 * hooks and says why.
 */
import { WorkspaceSettingsReader } from '../config/workspaceSettings.js';
import type { HookLists } from './hookConfig.js';

export type WorkspaceHooks = { hooks: HookLists } | { error: string };

export class WorkspaceHooksReader {
  private readonly settings = new WorkspaceSettingsReader();

  read(workspaceRoot: string): WorkspaceHooks {
    const read = this.settings.read(workspaceRoot);
    if (read === undefined) return { hooks: {} };
    if ('error' in read) return read;
    return { hooks: read.settings.hooks ?? {} };
  }
}
