/** Permission rules: allow / ask / deny by tool and argument pattern (approvals.md#permission-rules). */
export { PermissionRules, WorkspaceRulesError, checkUserRules } from './permissionRules.js';
export { RuleSet } from './ruleSet.js';
export { RuleLists, UserPermissions, WorkspaceSettings } from './ruleLists.js';
export { subjectOf, type RuleSubject } from './ruleSubjects.js';
export { suggestRule } from './suggestRule.js';
