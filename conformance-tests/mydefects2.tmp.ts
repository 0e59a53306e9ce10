import { runDaemonSuite } from './src/suite.js';
import { timeouts } from './src/harness/connection.js';
import { daemonCommand, listeningDaemon, pool } from './test/helpers.js';
import { readFileSync } from 'node:fs';
timeouts.requestMs = 1500;
const src = readFileSync('test/fixtures.test.ts', 'utf8');
const block = src.slice(src.indexOf('const DAEMON_DEFECTS'), src.indexOf('const CLIENT_DEFECTS'));
const entries = [...block.matchAll(/'([a-z0-9-]+)': \{\s*check: '([a-z0-9.-]+)',\s*mode: '(stdio|socket)'/g)].map((m) => [m[1]!, m[2]!, m[3]!] as const);
console.log('defects', entries.length);
const t0 = Date.now();
const out = await pool(entries, 4, async ([defect, check, mode]) => {
  let r;
  if (mode === 'stdio') r = await runDaemonSuite({ kind: 'stdio', command: daemonCommand(defect) }, { concurrency: 6 });
  else {
    const d = await listeningDaemon(defect);
    try { r = await runDaemonSuite(d.target, { concurrency: 8 }); } finally { await d.stop(); }
  }
  const failing = r.report.checks.filter((c) => c.status === 'FAIL');
  const ok = failing.length === 1 && failing[0]!.id === check && r.report.verdict.harnessErrors.length === 0;
  return ok ? `OK ${defect}` : `BAD ${defect} (${check}) -> ${failing.map((c) => `${c.id}: ${c.messages.join(' | ').slice(0, 250)}`).join(' ;; ')} ${r.report.verdict.harnessErrors.join(';').slice(0, 300)}`;
});
console.log(out.filter((l) => l.startsWith('BAD')).join('\n'));
console.log('ok', out.filter((l) => l.startsWith('OK')).length, 'ms', Date.now() - t0);
