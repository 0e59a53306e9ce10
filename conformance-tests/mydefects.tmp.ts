import { runDaemonSuite } from './src/suite.js';
import { timeouts } from './src/harness/connection.js';
import { listeningDaemon, pool } from './test/helpers.js';
timeouts.requestMs = 1500;
const map: Record<string, string> = JSON.parse(process.argv[2]!);
const t0 = Date.now();
const out = await pool(Object.entries(map), 4, async ([defect, check]) => {
  const d = await listeningDaemon(defect);
  try {
    const r = await runDaemonSuite(d.target, { concurrency: 8 });
    const failing = r.report.checks.filter((c) => c.status === 'FAIL');
    const ok = failing.length === 1 && failing[0]!.id === check && r.report.verdict.harnessErrors.length === 0;
    return `${ok ? 'OK ' : 'BAD'} ${defect} -> ${failing.map((c) => `${c.id}: ${c.messages.join(' | ').slice(0, 300)}`).join(' ;; ')} ${r.report.verdict.harnessErrors.join(';')}`;
  } finally { await d.stop(); }
});
console.log(out.join('\n'));
console.log('ms', Date.now() - t0);
