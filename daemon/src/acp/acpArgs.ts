/** `arbor acp` flags: the daemon's own (for the in-process daemon) plus `--connect`. */
import { parseArgs } from 'node:util';
import { ConfigError, type DaemonConfig } from '../config/daemonConfig.js';
import { DAEMON_CONFIG_FLAGS, configFromFlags } from '../cli/daemonFlags.js';

export const ACP_HELP = `Usage: arbor acp [options]

Serves the Agent Client Protocol (ACP) on stdin/stdout, so any editor that
speaks ACP (Zed, JetBrains IDEs, Neovim and Emacs plugins) can use Arbor as
its agent. Editors spawn this command; it is not meant to be typed.

Daemon (default: an Arbor daemon runs inside this process, on the same data
dir as \`arbor daemon\`, so sessions are shared with other clients):
  --connect <socket>      Attach to a running daemon (arbor daemon --listen)
                          instead; the token is read from <data-dir>/token.
  --config <file>         JSON config file (as arbor daemon).
  --data-dir <dir>        Token, logs and store (default ARBOR_DATA_DIR or ~/.arbor).
  --log-level <level>     debug | info | warn | error (default info).
  --model <provider:model>  Default model for sessions that name none.
  --subtask-model <provider:model>
                          Model of every subtask (default: its parent's).
  --provider scripted     The deterministic scripted provider (tests, demos).
  --script <file>         Script for the scripted provider.
  -h, --help              Show this help.

stdout carries only ACP messages; logs go to stderr and <data-dir>/logs/daemon.log.
`;

export interface AcpOptions {
  /** The socket of a running daemon; undefined: run one in-process. */
  connect: string | undefined;
  /** The in-process daemon's configuration; with --connect only its data dir (the token) is used. */
  config: DaemonConfig;
  /** With --connect, --model is the model of the sessions this bridge creates. */
  sessionModel: string | undefined;
  help: boolean;
}

export function parseAcpArgs(argv: string[], env = process.env): AcpOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      connect: { type: 'string' },
      ...DAEMON_CONFIG_FLAGS,
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (
    values.connect !== undefined &&
    (values.provider !== undefined || values.script !== undefined)
  ) {
    throw new ConfigError(
      '--provider and --script configure the in-process daemon; they cannot be used with --connect',
    );
  }
  const config = configFromFlags(values, env);
  return {
    connect: values.connect,
    config,
    sessionModel: values.connect === undefined ? undefined : values.model,
    help: values.help ?? false,
  };
}
