/**
 * A stdio daemon for the streaming benchmark whose model deltas arrive the way
 * a network provider's do: one per event-loop turn. It is `arbor daemon
 * --stdio --provider scripted --script <file>` assembled from the same parts
 * as startDaemon.ts (store, SessionManager, workspace toolsets, permission
 * gate, the unified turn runner, the stdio transport) with one difference:
 * the provider, injected through createTurnRunner's `provider` option, is the
 * scripted provider with a macrotask (setImmediate) before each event it
 * yields — as if every delta came in its own socket read.
 *
 * Why: the scripted provider yields its deltas on microtasks only, so a whole
 * reply passes before the 16 ms coalescing timer can fire and reaches the
 * client as ONE chat/chunk — the best case of coalescing. A hosted model's
 * deltas arrive in separate socket reads, with the event loop (and the timer)
 * turning between them. This child measures that case at full speed.
 *
 * Run by streaming.ts as `node --import tsx bench/macrotaskDaemon.ts <data-dir> <script.json>`.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { createTurnRunner } from '../src/agent/index.js';
import { resolveConfig } from '../src/config/daemonConfig.js';
import { createLogger, stderrSink } from '../src/logging/logger.js';
import { createPermissionGate } from '../src/permissions/permissionGate.js';
import type {
  Provider,
  ProviderEvent,
  ProviderRequest,
  ProviderCapabilities,
} from '../src/providers/provider.js';
import { loadScriptFile, ScriptedProvider } from '../src/providers/scripted.js';
import { clientIdAllocator, type DaemonContext } from '../src/server/daemonContext.js';
import { serveStdio } from '../src/server/stdioTransport.js';
import { SessionManager } from '../src/session/sessionManager.js';
import { EVENT_RETENTION, openStore } from '../src/store/index.js';
import { SessionToolsets } from '../src/tools/toolset.js';

/** The scripted provider, one event per event-loop turn. */
class MacrotaskProvider implements Provider {
  readonly id: string;
  readonly fixedModel: string | undefined;
  readonly capabilities: ProviderCapabilities;

  constructor(private readonly inner: ScriptedProvider) {
    this.id = inner.id;
    this.fixedModel = inner.fixedModel;
    this.capabilities = inner.capabilities;
  }

  async *stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    for await (const event of this.inner.stream(request, signal)) {
      await nextMacrotask();
      yield event;
    }
  }

  price(): number {
    return 0;
  }
}

const [dataDir, scriptFile] = process.argv.slice(2);
if (!dataDir || !scriptFile) throw new Error('usage: macrotaskDaemon.ts <data-dir> <script.json>');

const config = resolveConfig({}, {}, { dataDir, logLevel: 'error' });
const log = createLogger(config.logLevel, [stderrSink()]);
const store = openStore(config.dataDir);
process.once('exit', () => store.close());
const runner = createTurnRunner({
  budgets: config.budgets,
  defaultModel: undefined,
  scriptPath: undefined,
  log: (level, message) => log.log(level, `agent: ${message}`),
  gate: createPermissionGate({ alwaysAsk: config.alwaysAsk, dataDir: config.dataDir }),
  provider: new MacrotaskProvider(new ScriptedProvider(loadScriptFile(scriptFile))),
});
const sessions = new SessionManager({
  store,
  turnRunner: () => Promise.resolve(runner),
  toolsets: new SessionToolsets({ log: (message) => log.info(`tools: ${message}`) }),
  approvalTimeoutMs: config.approvalTimeoutMs,
  log,
  maxHistoryTokens: config.budgets.maxHistoryTokens,
});
const context: DaemonContext = {
  sessions,
  log,
  maxMessageBytes: config.maxMessageBytes,
  replayRetention: EVENT_RETENTION,
  testing: false,
  daemonVersion: 'bench',
  nextClientId: clientIdAllocator(),
};
serveStdio(context);
