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

/** Tools a session offers only to a turn whose client can take part (ask_user needs client.questions). */
export const SESSION_TOOL_NAMES = ['ask_user'] as const;

export const DAEMON_TOOL_NAMES: readonly string[] = [
  ...AGENT_TOOL_NAMES,
  ...WORKSPACE_TOOL_NAMES,
  ...SESSION_TOOL_NAMES,
];
