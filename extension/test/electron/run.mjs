// The extension-host suites (test/host) in desktop VS Code, through
// @vscode/test-electron — for developers' machines: it downloads VS Code
// from update.code.visualstudio.com on first use (cached in .vscode-test/),
// which CI and offline machines cannot do; there, test/e2e/run.mjs runs the
// same suites in code-server instead.
//
//   npm i --no-save @vscode/test-electron     (once; not a declared dependency)
//   npm run test:electron -w extension        (VSCODE_VERSION=stable|insiders|1.x.y)
//
// Runs the extension from this folder (build it first: npm run package -w
// extension, so dist/daemon holds the daemon).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arborTestSettings, bundleHostSuites } from '../host/bundle.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ext = resolve(here, '..', '..');
const require = createRequire(join(ext, 'package.json'));

let runTests;
try {
  const mod = await import('@vscode/test-electron');
  runTests = mod.runTests ?? mod.default?.runTests;
} catch {
  console.error(
    'test:electron needs @vscode/test-electron and a VS Code download:\n' +
      '  npm i --no-save @vscode/test-electron\n' +
      'Offline or in CI use npm run test:e2e -w extension (code-server) instead.',
  );
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'arbor-electron-'));
const workspace = join(work, 'workspace');
const userData = join(work, 'user-data');
const dataDir = join(work, 'arbor-data');
for (const d of [workspace, join(userData, 'User'), dataDir]) mkdirSync(d, { recursive: true });
writeFileSync(join(workspace, 'hello.txt'), 'hello\n');
const script = join(work, 'ui.script.json');
cpSync(join(ext, 'test', 'e2e', 'ui.script.json'), script);
writeFileSync(
  join(userData, 'User', 'settings.json'),
  JSON.stringify(arborTestSettings({ script, dataDir }), null, 2),
);
const resultsFile = join(work, 'host-results.json');

let code = 1;
try {
  const extensionTestsPath = await bundleHostSuites(join(work, 'host-tests'));
  code = await runTests({
    version: process.env['VSCODE_VERSION'] ?? 'stable',
    extensionDevelopmentPath: ext,
    extensionTestsPath,
    extensionTestsEnv: {
      ARBOR_HOST_MOCHA: require.resolve('mocha'),
      ARBOR_HOST_RESULTS: resultsFile,
    },
    launchArgs: [
      workspace,
      '--user-data-dir',
      userData,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--skip-welcome',
      '--skip-release-notes',
    ],
  });
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  console.log(`extension host (Electron): ${results.summary}`);
  if (results.failed.length > 0) code = 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  code = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(code);
