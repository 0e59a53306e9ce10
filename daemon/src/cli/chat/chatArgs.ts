/** `arbor chat` flags: parsed once into ChatOptions, checked before anything starts. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AgentName, PermissionMode } from '@arbor/protocol';
import { ConfigError } from '../../config/daemonConfig.js';

export const CHAT_HELP = `Usage: arbor chat [message] [options]

Sends one message and renders the turn live: streamed text, the execution tree
(spinners, status, durations, cost; subtasks nested), the plan, budget notices
and the cost summary. Without a message, opens an interactive prompt.

Approvals are asked inline: a = allow, s = allow for this session, d = deny.
Questions from the model are asked inline too: type an option's number (or
your own answer, when the question allows one), then Enter.
Ctrl-C cancels the running turn; a second Ctrl-C exits.

At the prompt: /model shows the session's model, /model <provider:model>
switches it from the next turn on (same chat); /tools lists the tools the
model may call, what the mode does with each, and tool servers that are not
ready; /diff shows the diff of the last turn that changed files (/diff <n>:
the n-th last); /undo puts the files that turn changed back as they were
before it (/undo <n>: before the n-th last, undoing the later ones too),
after asking y/N and again before overwriting files changed since; /exit
quits. After a turn that changed files, they are listed (A added,
M modified, D deleted, +lines −lines).

Daemon (default: spawn \`arbor daemon --stdio\`):
  --connect <socket>      Attach to a running daemon (arbor daemon --listen);
                          the token is read from <data-dir>/token.
  --data-dir <dir>        The daemon's data dir (default ARBOR_DATA_DIR or ~/.arbor).
  --config <file>         The spawned daemon's JSON config file (models, MCP servers, …).
  --provider scripted     Spawn the daemon with the deterministic scripted provider.
  --script <file>         The script for the scripted provider.
  --model <provider:model>  e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5,
                          local:qwen2.5-coder@http://127.0.0.1:11434/v1

Session:
  --workspace <dir>       Workspace root of a new session (default: the current directory).
  --session <id>          Continue this session instead of creating one.
  --mode <mode>           plan | default | auto (permission mode).
  --agent <name>          Run a new session with this agent profile (config agents
                          or the workspace's .arbor/agents/<name>.json).

Output:
  --json                  One protocol event per line ({"method","params"}) on stdout.
  -h, --help              Show this help.

Colours only on a terminal (NO_COLOR turns them off).
`;

export interface ChatOptions {
  message: string | undefined;
  connect: string | undefined;
  dataDir: string | undefined;
  config: string | undefined;
  provider: string | undefined;
  script: string | undefined;
  model: string | undefined;
  workspace: string;
  session: string | undefined;
  mode: PermissionMode | undefined;
  /** The agent profile of a new session (session/new agent). */
  agent: string | undefined;
  json: boolean;
  help: boolean;
}

export function parseChatArgs(argv: string[], cwd = process.cwd()): ChatOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      connect: { type: 'string' },
      'data-dir': { type: 'string' },
      config: { type: 'string' },
      provider: { type: 'string' },
      script: { type: 'string' },
      model: { type: 'string' },
      workspace: { type: 'string' },
      session: { type: 'string' },
      mode: { type: 'string' },
      agent: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  let mode: PermissionMode | undefined;
  if (values.mode !== undefined) {
    const parsed = PermissionMode.safeParse(values.mode);
    if (!parsed.success)
      throw new ConfigError(`--mode must be plan, default or auto (got ${values.mode})`);
    mode = parsed.data;
  }
  if (
    values.connect !== undefined &&
    (values.provider !== undefined || values.script !== undefined || values.config !== undefined)
  ) {
    throw new ConfigError(
      '--provider, --script and --config configure a spawned daemon; they cannot be used with --connect',
    );
  }
  if (values.agent !== undefined) {
    const parsed = AgentName.safeParse(values.agent);
    if (!parsed.success)
      throw new ConfigError(
        `--agent ${values.agent}: ${parsed.error.issues[0]?.message ?? 'not an agent name'}`,
      );
    if (values.session !== undefined)
      throw new ConfigError('--agent is for a new session; a continued --session keeps its own');
  }
  if (values.session !== undefined && values.workspace !== undefined) {
    throw new ConfigError('--workspace is for a new session; a continued --session keeps its own');
  }
  const message = positionals.length > 0 ? positionals.join(' ') : undefined;
  if (message !== undefined && message.trim() === '') throw new ConfigError('the message is empty');
  return {
    message,
    connect: values.connect,
    dataDir: values['data-dir'] === undefined ? undefined : resolve(cwd, values['data-dir']),
    config: values.config === undefined ? undefined : resolve(cwd, values.config),
    provider: values.provider,
    script: values.script === undefined ? undefined : resolve(cwd, values.script),
    model: values.model,
    workspace: resolve(cwd, values.workspace ?? '.'),
    session: values.session,
    mode,
    agent: values.agent,
    json: values.json ?? false,
    help: values.help ?? false,
  };
}
