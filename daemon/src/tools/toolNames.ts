/**
 * Names of every tool the daemon itself provides, in a module with no
 * imports: the config's always-ask list is checked against it at startup
 * without loading the tools. A test keeps it equal to the real tools.
 */
export const AGENT_TOOL_NAMES = [
  'run_subtask',
  'memory_list',
  'memory_read',
  'memory_write',
  'read_artifact',
] as const;

export const WORKSPACE_TOOL_NAMES = [
  'read_file',
  'list_dir',
  'glob',
  'grep',
  'search_code',
  'write_file',
  'edit_file',
  'apply_patch',
  'run_command',
  'run_task',
  'web_fetch',
  'todo_write',
] as const;

/** Background processes of the session (tools/processes/). */
export const PROCESS_TOOL_NAMES = [
  'process_start',
  'process_output',
  'process_kill',
  'process_list',
] as const;

/**
 * Tools a session offers only to some turns: ask_user when the client can take part
 * (client.questions), read_skill when the workspace or the user has skills.
 */
export const SESSION_TOOL_NAMES = ['ask_user', 'read_skill'] as const;

export const DAEMON_TOOL_NAMES: readonly string[] = [
  ...AGENT_TOOL_NAMES,
  ...WORKSPACE_TOOL_NAMES,
  ...PROCESS_TOOL_NAMES,
  ...SESSION_TOOL_NAMES,
];
