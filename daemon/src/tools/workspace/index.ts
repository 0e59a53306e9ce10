/** The workspace tools of one session, confined to its root at call time. */
import type { Tool } from '../tool.js';
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
    writeFileTool(workspace),
    editFileTool(workspace),
    runCommandTool(workspace),
    todoWriteTool,
  ];
}

export { openWorkspace, type Workspace } from './workspace.js';
export { resolveInWorkspace, isProtectedPath, WorkspaceEscapeError } from './confinement.js';
export { StaleWriteGuard, watchWorkspace } from './staleWriteGuard.js';
