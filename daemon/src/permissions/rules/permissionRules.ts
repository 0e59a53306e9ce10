/**
 * The permission rules of every workspace: the user's (the config file), the
 * workspace's own (`.arbor/settings.json`, re-read when it changes) and the
 * ones the user saved with "always allow" (kept per workspace in the data
 * dir, outside the workspace, so a cloned repository cannot bring its own).
 * A workspace file's allow rules apply only when the user trusts workspace
 * files (`permissions.trustWorkspaceAllow`): a repository may tighten what
 * runs unasked, never loosen it.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { realRoot } from '../../tools/workspace/confinement.js';
import { PermissionRule } from './permissionRule.js';
import { RuleSet } from './ruleSet.js';
import type { PermissionRuleInfo, RuleEffect, RuleSource } from '@arbor/protocol';
import {
  FileCache,
  WORKSPACE_SETTINGS_FILE,
  WorkspaceSettingsReader,
  type SettingsRead,
} from '../../config/workspaceSettings.js';
import type { RuleLists } from './ruleLists.js';

const REMEMBERED_FILE = 'remembered-rules.json';

const Remembered = z.object({
  version: z.literal(1),
  /** Workspace root (real path) → allow rules saved for it. */
  workspaces: z.record(z.string(), z.array(z.string())),
});
type Remembered = z.infer<typeof Remembered>;

export interface PermissionRulesOptions {
  /** The config file's `permissions` (checked at startup by checkUserRules). */
  user?: RuleLists;
  dataDir: string;
  /** Apply the allow rules of workspace files too. */
  trustWorkspaceAllow?: boolean;
}

/** A workspace's rule file that cannot be read: every call there is refused until it is fixed. */
export class WorkspaceRulesError extends Error {
  override name = 'WorkspaceRulesError';
}

/** Startup check of the user's rules: throws naming the first bad one. */
export function checkUserRules(lists: RuleLists | undefined): void {
  compileRuleLists(lists, 'user', 'config');
}

export class PermissionRules {
  private readonly user: readonly PermissionRule[];
  private readonly settings = new WorkspaceSettingsReader();
  /** Each settings file as read, compiled once (the reader hands out the same object until it changes). */
  private readonly compiled = new WeakMap<SettingsRead, WorkspaceRules | WorkspaceRulesError>();
  private readonly rememberedFile = new FileCache<{ value: Remembered } | { error: unknown }>();
  private readonly rememberedPath: string;

  constructor(private readonly options: PermissionRulesOptions) {
    this.user = compileRuleLists(options.user, 'user', 'config');
    this.rememberedPath = join(options.dataDir, REMEMBERED_FILE);
  }

  /** The rules in force for a workspace now; throws WorkspaceRulesError for a bad settings file. */
  forWorkspace(root: string): RuleSet {
    const workspace = this.workspaceRules(root);
    const remembered = this.rememberedRules(root);
    const rules = [...this.user, ...workspace.applied, ...remembered];
    if (rules.length === 0 && workspace.ignored.length === 0) return RuleSet.EMPTY;
    return new RuleSet(rules, workspace.ignored);
  }

  /**
   * Saves an allow rule for the workspace (an `allowAlways` answer).
   * False when it cannot be saved (a full disk): the caller still grants the
   * call for the session.
   */
  remember(root: string, text: string): boolean {
    try {
      const rule = PermissionRule.parse(text, 'allow', 'remembered');
      const current = this.readRemembered() ?? { version: 1, workspaces: {} };
      const key = workspaceKey(root);
      const saved = current.workspaces[key] ?? [];
      if (!saved.includes(rule.text)) {
        current.workspaces[key] = [...saved, rule.text];
        writeAtomically(this.rememberedPath, `${JSON.stringify(current, null, 2)}\n`);
      }
      return true;
    } catch {
      return false;
    }
  }

  private workspaceRules(root: string): WorkspaceRules {
    const read = this.settings.read(root);
    if (read === undefined) return { applied: [], ignored: [] };
    let rules = this.compiled.get(read);
    if (rules === undefined) {
      rules = this.compile(read);
      this.compiled.set(read, rules);
    }
    if (rules instanceof WorkspaceRulesError) throw rules;
    return rules;
  }

  private compile(read: SettingsRead): WorkspaceRules | WorkspaceRulesError {
    if ('error' in read) return new WorkspaceRulesError(read.error);
    try {
      return this.split(
        compileRuleLists(read.settings.permissions, 'workspace', WORKSPACE_SETTINGS_FILE),
      );
    } catch (error) {
      return new WorkspaceRulesError((error as Error).message);
    }
  }

  private split(rules: PermissionRule[]): WorkspaceRules {
    if (this.options.trustWorkspaceAllow === true) return { applied: rules, ignored: [] };
    const ignored: PermissionRuleInfo[] = rules
      .filter((rule) => rule.effect === 'allow')
      .map((rule) => ({
        ...rule.deciding,
        ignored:
          'allow rules of a workspace file apply only when the config sets permissions.trustWorkspaceAllow',
      }));
    return { applied: rules.filter((rule) => rule.effect !== 'allow'), ignored };
  }

  private rememberedRules(root: string): PermissionRule[] {
    let remembered: Remembered | undefined;
    try {
      remembered = this.readRemembered();
    } catch {
      return []; // an unreadable file saves nothing more; the user's other rules still apply
    }
    return (remembered?.workspaces[workspaceKey(root)] ?? []).flatMap((text) => {
      try {
        return [PermissionRule.parse(text, 'allow', 'remembered')];
      } catch {
        return [];
      }
    });
  }

  /** Throws when the file is there but unreadable: nothing is saved over it. */
  private readRemembered(): Remembered | undefined {
    const read = this.rememberedFile.read(this.rememberedPath, (text) => {
      try {
        return { value: Remembered.parse(JSON.parse(text())) };
      } catch (error) {
        return { error };
      }
    });
    if (read === undefined) return undefined;
    if ('error' in read) throw read.error;
    return read.value;
  }
}

interface WorkspaceRules {
  applied: PermissionRule[];
  ignored: PermissionRuleInfo[];
}

function workspaceKey(root: string): string {
  try {
    return realRoot(root);
  } catch {
    return root;
  }
}

function writeAtomically(path: string, text: string): void {
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, text, { mode: 0o600 });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

const EFFECTS: readonly RuleEffect[] = ['deny', 'ask', 'allow'];

/** Compiles every rule of `lists`; throws an Error naming the first bad one and where it is. */
export function compileRuleLists(
  lists: RuleLists | undefined,
  source: RuleSource,
  where: string,
): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const effect of EFFECTS) {
    (lists?.[effect] ?? []).forEach((text, i) => {
      try {
        rules.push(PermissionRule.parse(text, effect, source));
      } catch (error) {
        throw new Error(`${where}: permissions.${effect}[${i}] ${(error as Error).message}`);
      }
    });
  }
  return rules;
}
