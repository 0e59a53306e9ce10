import { timeouts } from '../src/harness/connection.js';
import { runDaemonSuite, runClientSuite } from '../src/suite.js';
import { listeningDaemon, clientCommand } from '../test/helpers.js';
timeouts.requestMs = 1500;
for (const d of process.argv.slice(2)) {
  const t = Date.now();
  if (d.startsWith('c:')) { await runClientSuite({ command: clientCommand(d.slice(2)), transport: 'socket' }, { concurrency: 8 }); }
  else { const x = await listeningDaemon(d); await runDaemonSuite(x.target, { concurrency: 8 }); await x.stop(); }
  console.log(d, Date.now() - t);
}
