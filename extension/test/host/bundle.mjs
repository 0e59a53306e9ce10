// Bundles the extension-host suites (test/host/*.ts) into CommonJS files in
// one directory: index.cjs (VS Code's extensionTestsPath) and *.test.cjs.
// `vscode` stays external: the extension host provides it. Shared by
// test/e2e/run.mjs (code-server) and test/electron/run.mjs.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));

/** @returns {Promise<string>} the path of index.cjs */
export async function bundleHostSuites(outDir) {
  await build({
    entryPoints: readdirSync(here)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(here, f)),
    outdir: outDir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: 'inline',
    logLevel: process.env['VERBOSE'] === '1' ? 'info' : 'warning',
  });
  return join(outDir, 'index.cjs');
}

/** The user settings every runner writes: the daemon on the scripted provider. */
export function arborTestSettings({ script, dataDir, nodePath = process.execPath }) {
  return {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'security.workspace.trust.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'chat.disableAIFeatures': true,
    'window.confirmBeforeClose': 'never',
    // The daemon runs on this Node (20+, which the bundled native modules were
    // built for; code-server's extension host itself runs on Node 24), the
    // scripted provider, and a store that outlives window reloads.
    'arbor.nodePath': nodePath,
    'arbor.daemon.args': ['--provider', 'scripted', '--script', script],
    'arbor.daemon.dataDir': dataDir,
    'arbor.trace.server': 'messages',
  };
}
