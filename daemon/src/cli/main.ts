/**
 * `arbor` entry point. Imports stay light: each command loads what it needs,
 * SQLite loads when the daemon starts, the agent (provider SDKs) on the first turn.
 */
import { ConfigError } from '../config/daemonConfig.js';

const USAGE = `Usage: arbor <command> [options]

Commands:
  daemon        Run the agent daemon (arbor daemon --help)
  chat          Chat in the terminal: one message or a prompt (arbor chat --help)
  mcp           List the MCP servers of a workspace, their status and tools (arbor mcp --help)
  acp           Serve the Agent Client Protocol on stdio, for editors (arbor acp --help)

Options:
  --version     Print the daemon and protocol versions
  -h, --help    Show this help
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case '--version':
    case '-v': {
      const { versionText } = await import('./version.js');
      process.stdout.write(versionText());
      return 0;
    }
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    case 'daemon': {
      const { daemonCommand } = await import('./daemonCommand.js');
      return daemonCommand(rest);
    }
    case 'chat': {
      const { chatCommand } = await import('./chat/chatCommand.js');
      return chatCommand(rest);
    }
    case 'mcp': {
      const { mcpCommand } = await import('./mcpCommand.js');
      return mcpCommand(rest);
    }
    case 'acp': {
      const { acpCommand } = await import('../acp/acpCommand.js');
      return acpCommand(rest);
    }
    default:
      process.stderr.write(`arbor: unknown command ${command}\n\n${USAGE}`);
      return 2;
  }
}

/** Runs main and turns startup problems into one readable line and exit code 2. */
export function run(argv: string[]): void {
  main(argv).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (error: unknown) => {
      const known =
        error instanceof ConfigError ||
        isParseArgsError(error) ||
        isStartupError(error) ||
        isDaemonAnswer(error);
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`arbor: ${message}\n`);
      if (!known && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
      process.exit(2);
    },
  );
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/** A JSON-RPC error the daemon answered (numeric code, e.g. an unknown --agent): its message says it all. */
function isDaemonAnswer(error: unknown): boolean {
  return typeof (error as { code?: unknown } | undefined)?.code === 'number';
}

/** `--listen` problems, and a data dir or database the store cannot use (StoreError, named to keep SQLite unloaded here). */
function isStartupError(error: unknown): boolean {
  return (
    error instanceof Error && (error.message.startsWith('--listen') || error.name === 'StoreError')
  );
}

run(process.argv.slice(2));
