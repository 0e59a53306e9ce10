/**
 * `arbor acp`: an ACP agent on stdin/stdout that is an Arbor client. It opens
 * its Arbor connection (in-process daemon or `--connect`), then serves the
 * editor until it closes stdin, and shuts the Arbor side down cleanly.
 */
import { Readable, Writable } from 'node:stream';
import { SessionTracker } from '@arbor/protocol/client';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { createLogger, fileSink, stderrSink } from '../logging/logger.js';
import { daemonVersion } from '../cli/version.js';
import { guardStdout } from '../server/stdioTransport.js';
import { createAcpAgent } from './acpAgent.js';
import { ACP_HELP, parseAcpArgs } from './acpArgs.js';
import { openArborLink } from './arborLink.js';

export async function acpCommand(argv: string[]): Promise<number> {
  const options = parseAcpArgs(argv);
  if (options.help) {
    process.stdout.write(ACP_HELP);
    return 0;
  }
  // Stray console output (ours or a library's) would corrupt the ACP stream.
  guardStdout();
  const { config } = options;
  const sinks =
    options.connect === undefined ? [stderrSink(), fileSink(config.dataDir)] : [stderrSink()];
  const log = createLogger(config.logLevel, sinks);
  const link = await openArborLink(options, log);
  // Before initialize, so the client declares the approvals capability.
  const tracker = new SessionTracker(link.client);
  link.client.on('error', (error) => log.warn(`acp: arbor: ${error.message}`));
  await link.client.initialize();

  const editor = createAcpAgent({
    arbor: link.client,
    tracker,
    version: daemonVersion(),
    sessionModel: options.sessionModel,
    ...(link.sessionMcpServers === undefined ? {} : { mcpServers: link.sessionMcpServers }),
    ...(link.sessionWorkspaceIo === undefined ? {} : { workspaceIo: link.sessionWorkspaceIo }),
    log,
  }).connect(
    ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    ),
  );
  // A daemon that goes away (socket closed) ends the bridge: the editor sees the agent exit.
  let daemonGone = false;
  link.client.on('close', () => {
    daemonGone = true;
    editor.close(new Error('the Arbor daemon connection closed'));
  });
  await editor.closed;
  if (daemonGone) {
    log.error('acp: the Arbor daemon connection closed');
    return 1;
  }
  log.info('acp: the editor closed the connection');
  await link.close();
  return 0;
}
