/**
 * The raw vscode-jsonrpc peer of the streaming and turn-latency benchmarks:
 * a child process speaking plain vscode-jsonrpc over its stdin/stdout — no
 * Arbor code, no schema validation — so the parent can measure what the bare
 * library costs on the same machine, in the same run.
 *
 * Requests it serves:
 * - `bench/echo` (params -> same params): one request/response round trip;
 * - `bench/stream {count, shape}`: sends `count` notifications, one per text
 *   delta, awaiting each send (a streaming loop that respects the writer), then
 *   answers `{sent}`. `shape` `raw`: method `bench/delta`, params `{text}`;
 *   `acp`: method `chat/chunk`, params shaped like Arbor's chat/chunk
 *   (`sessionId`, `seq`, `turnId`, `nodeId`, `text`) — what an ACP-style
 *   protocol sends when every provider delta becomes its own notification.
 *
 * Run by the parent as `node --import tsx bench/rpcPeer.ts`; never on its own.
 */
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import { deltaText } from './support.js';

interface StreamParams {
  count: number;
  shape: 'raw' | 'acp';
  sessionId: string;
  turnId: string;
}

const connection = createMessageConnection(
  new StreamMessageReader(process.stdin),
  new StreamMessageWriter(process.stdout),
);

connection.onRequest('bench/echo', (params: unknown) => params);

connection.onRequest('bench/stream', async (params: StreamParams) => {
  const { count, shape, sessionId, turnId } = params;
  for (let i = 0; i < count; i++) {
    const text = deltaText(i);
    if (shape === 'raw') await connection.sendNotification('bench/delta', { text });
    else
      await connection.sendNotification('chat/chunk', {
        sessionId,
        seq: i + 1,
        turnId,
        nodeId: turnId,
        text,
      });
  }
  return { sent: count };
});

connection.onNotification('bench/exit', () => process.exit(0));
connection.onClose(() => process.exit(0));
connection.listen();
