/** `arbor daemon`: parses flags, builds the configuration, starts serving. */
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/daemonConfig.js';
import { prepareDataDir } from '../config/dataDir.js';
import { createLogger, fileSink, stderrSink } from '../logging/logger.js';
import { runDaemon } from '../server/startDaemon.js';
import { DAEMON_CONFIG_FLAGS, configFromFlags } from './daemonFlags.js';
import { daemonVersion } from './version.js';

export const DAEMON_HELP = `Usage: arbor daemon (--stdio | --listen <address>) [options]

Runs the Arbor agent daemon.

Transport (one is required):
  --stdio                 Serve one client over stdin/stdout (editors spawn this).
  --listen <address>      Serve many clients on a Unix socket path (mode 0600)
                          or on 127.0.0.1:<port> (loopback only; 0 picks a port).
                          Clients must present the token in <data-dir>/token
                          in initialize ("token" or initializationOptions.token).

Options:
  --config <file>         JSON config file (schema: daemon/schema/config.schema.json).
  --data-dir <dir>        Token, logs and store (default ~/.arbor, created 0700).
  --log-level <level>     debug | info | warn | error (default info).
  --model <provider:model>  Default model for sessions that name none.
  --subtask-model <provider:model>
                          Model of every subtask, at any depth (default: its parent's).
  --provider scripted     Use the deterministic scripted provider (tests, demos).
  --script <file>         Script for the scripted provider.
  --testing               Serve _arbor/testing/* methods (implied by --provider scripted).
  -h, --help              Show this help.

Precedence: flags > environment (ARBOR_DATA_DIR, ARBOR_LOG_LEVEL, ARBOR_MODEL,
ARBOR_SUBTASK_MODEL) > config file.
Logs go to stderr and to <data-dir>/logs/daemon.log; stdout carries only protocol frames.
`;

export async function daemonCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      stdio: { type: 'boolean' },
      listen: { type: 'string' },
      ...DAEMON_CONFIG_FLAGS,
      testing: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(DAEMON_HELP);
    return 0;
  }
  if (values.stdio && values.listen !== undefined) {
    throw new ConfigError('choose one transport: --stdio or --listen');
  }
  const config = configFromFlags(values, process.env, { listen: values.listen });
  if (!values.stdio && !config.listen) {
    throw new ConfigError(
      'arbor daemon needs --stdio or --listen <address> (see arbor daemon --help)',
    );
  }
  prepareDataDir(config.dataDir);
  const log = createLogger(config.logLevel, [stderrSink(), fileSink(config.dataDir)]);
  await runDaemon({
    config,
    log,
    daemonVersion: daemonVersion(),
    testing: values.testing ?? false,
    stdio: values.stdio ?? false,
  });
  return -1; // keep running
}
