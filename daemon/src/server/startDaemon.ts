/**
 * Assembles a daemon from its configuration: logger, sessions, the lazily
 * created agent, and the chosen transport.
 */
import { PROTOCOL_PACKAGE_VERSION } from '@arbor/protocol';
import type { TurnRunner } from '../agent/turnRunner.js';
import type { DaemonConfig } from '../config/daemonConfig.js';
import type { Logger } from '../logging/logger.js';
import { SessionManager } from '../session/sessionManager.js';
import { clientIdAllocator, type DaemonContext } from './daemonContext.js';
import { formatAddress, parseListenAddress } from './listenAddress.js';
import { serveSocket } from './socketTransport.js';
import { loadOrCreateToken } from './socketToken.js';
import { serveStdio } from './stdioTransport.js';

export interface DaemonOptions {
  config: DaemonConfig;
  log: Logger;
  daemonVersion: string;
  /** `--testing`: serve `_arbor/testing/*` even without `--provider scripted`. */
  testing: boolean;
}

export function createDaemonContext(options: DaemonOptions): DaemonContext {
  const sessions = new SessionManager({ turnRunner: lazyTurnRunner(options), log: options.log });
  return {
    sessions,
    log: options.log,
    maxMessageBytes: options.config.maxMessageBytes,
    testing: options.testing || options.config.provider === 'scripted',
    daemonVersion: options.daemonVersion,
    nextClientId: clientIdAllocator(),
  };
}

/**
 * The agent (providers, tools, SQLite...) is imported on the first chat/send,
 * not at startup: cold start stays fast, and a broken agent fails one turn
 * with a clear error instead of the whole daemon.
 */
function lazyTurnRunner({ config, log }: DaemonOptions): () => Promise<TurnRunner> {
  let pending: Promise<TurnRunner> | undefined;
  return () => {
    pending ??= import('../agent/index.js')
      .then((agent) =>
        agent.createTurnRunner({
          budgets: config.budgets,
          defaultModel: config.model,
          scriptPath: config.script,
          log: (level, message) => log.log(level, `agent: ${message}`),
        }),
      )
      .catch((error: unknown) => {
        pending = undefined; // retry on the next turn
        throw error;
      });
    return pending;
  };
}

export async function runDaemon(options: DaemonOptions & { stdio: boolean }): Promise<void> {
  const context = createDaemonContext(options);
  const { config, log } = options;
  if (options.stdio) {
    serveStdio(context);
    log.info(
      `arbor ${options.daemonVersion} (protocol package ${PROTOCOL_PACKAGE_VERSION}) serving stdio`,
    );
    return;
  }
  if (!config.listen) throw new Error('arbor daemon needs --stdio or --listen <address>');
  const token = loadOrCreateToken(config.dataDir);
  const server = await serveSocket(context, parseListenAddress(config.listen), token);
  // Machine-readable: launchers and tests read the bound address from this line.
  process.stderr.write(`arbor: listening on ${formatAddress(server.address)}\n`);
  const stop = (signal: string) => {
    log.info(`${signal}: closing`);
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
