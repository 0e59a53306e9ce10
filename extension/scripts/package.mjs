// Packages dist/ into a .vsix with @vscode/vsce. Offline: --no-dependencies
// (everything the extension runs is bundled in dist/, the daemon's runtime
// packages included).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ext = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { version, name } = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8'));
const require = createRequire(join(ext, 'package.json'));
const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');
const out = join(ext, `${name}-${version}.vsix`);
execFileSync(
  process.execPath,
  [vsce, 'package', '--no-dependencies', '--skip-license', '-o', out],
  { cwd: ext, stdio: 'inherit' },
);
console.log(`packaged ${out}`);
