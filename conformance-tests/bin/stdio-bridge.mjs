#!/usr/bin/env node
// The suite's fake daemon, as a stdio command: a client under test spawns this
// (ARBOR_DAEMON_COMMAND) like it would spawn `arbor daemon --stdio`; every byte
// is relayed unchanged between its stdio and the harness's Unix socket.
import net from 'node:net';

const socketPath = process.argv[2];
if (!socketPath) {
  process.stderr.write('usage: stdio-bridge.mjs <harness socket>\n');
  process.exit(2);
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
