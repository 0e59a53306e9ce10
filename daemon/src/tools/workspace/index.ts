/**
 * The tools of one session: the workspace tools, confined to its root at
 * call time (search_code, apply_patch and run_task among them), and web_fetch, which
 * needs no workspace but is offered with them.
 */
import { applyPatchTool } from '../patch/applyPatch.js';
import { searchCodeTool } from '../search/searchCode.js';
import { runTaskTool } from '../tasks/runTask.js';
import type { Tool } from '../tool.js';
import { webFetchTool } from '../web/webFetch.js';
import {
  editFileTool,
  globTool,
  grepTool,
  listDirTool,
  readFileTool,
  writeFileTool,
} from './fileTools.js';
import { runCommandTool } from './runCommand.js';
import { todoWriteTool } from './todoWrite.js';
import type { Workspace } from './workspace.js';

export { WORKSPACE_TOOL_NAMES } from '../toolNames.js';

export function createWorkspaceTools(workspace: Workspace): Tool[] {
  return [
    readFileTool(workspace),
    listDirTool(workspace),
    globTool(workspace),
    grepTool(workspace),
    searchCodeTool(workspace),
    writeFileTool(workspace),
    editFileTool(workspace),
    applyPatchTool(workspace),
    runCommandTool(workspace),
    runTaskTool(workspace),
    webFetchTool(),
    todoWriteTool,
  ];
}

export { openWorkspace, type Workspace } from './workspace.js';
export { resolveInWorkspace, isProtectedPath, WorkspaceEscapeError } from './confinement.js';
export { StaleWriteGuard, watchWorkspace } from './staleWriteGuard.js';
