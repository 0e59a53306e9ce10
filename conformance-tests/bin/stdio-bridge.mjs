#!/usr/bin/env node
// The suite's fake daemon, as a stdio command: a client under test spawns this
// (ARBOR_DAEMON_COMMAND) like it would spawn `arbor daemon --stdio`; every byte
// is relayed unchanged between its stdio and the harness's Unix socket.
import net from 'node:net';

const socketPath = process.argv[2];
if (!socketPath) {
  process.stderr.write('usage: stdio-bridge.mjs <harness socket> [--stderr-decoy <session>]\n');
  process.exit(2);
}
// `--stderr-decoy <session>` (the client-daemon-stderr scenario): a well-formed
// frame on stderr that a client must not read as protocol data
// (transport.md#transport-client-stderr); a client that does shows a turn waiting
// for an approval no daemon ever sent on stdout.
if (process.argv[3] === '--stderr-decoy' && process.argv[4]) {
  const decoy = JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/state',
    params: {
      sessionId: process.argv[4],
      seq: 1,
      state: 'requires_action',
      turnId: 'stderr-decoy',
    },
  });
  process.stderr.write(
    `stdio-bridge: a frame on stderr follows; it is not protocol data\r\n` +
      `Content-Length: ${Buffer.byteLength(decoy)}\r\n\r\n${decoy}\n`,
  );
}
const socket = net.connect(socketPath);
socket.on('error', (error) => {
  process.stderr.write(`stdio-bridge: ${error.message}\n`);
  process.exit(1);
});
process.stdin.pipe(socket);
socket.pipe(process.stdout);
socket.on('close', () => process.exit(0));
process.stdin.on('end', () => socket.end());
