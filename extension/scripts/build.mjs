// Builds the extension: the host bundle (CommonJS, see src/extension.ts for why),
// the webview bundle (an IIFE for the browser) and its static assets.
//   node scripts/build.mjs            development build (sourcemaps)
//   node scripts/build.mjs --daemon   production build + the daemon and its runtime packages in dist/daemon
//   node scripts/build.mjs --daemon-into DIR   only the daemon, as the .vsix ships it, into DIR (tests)
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ext = resolve(here, '..');
const repo = resolve(ext, '..');
const production = process.argv.includes('--daemon');
const require = createRequire(join(ext, 'package.json'));
/** Install-time helpers of the daemon's runtime packages; never loaded at run time. */
const INSTALL_ONLY = new Set(['prebuild-install', 'node-gyp', 'node-gyp-build-optional-packages']);

const daemonInto = process.argv.indexOf('--daemon-into');
if (daemonInto !== -1) {
  copyDaemon(resolve(process.argv[daemonInto + 1] ?? ''));
  process.exit(0);
}

rmSync(join(ext, 'dist'), { recursive: true, force: true });
mkdirSync(join(ext, 'dist', 'webview'), { recursive: true });

await Promise.all([
  build({
    entryPoints: [join(ext, 'src', 'extension.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    outfile: join(ext, 'dist', 'extension.cjs'),
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
  }),
  // Two webview scripts: chat.js draws; validator.js (zod, the protocol's schemas) is
  // loaded by chat.js after the first paint (webview/main.ts).
  ...[
    ['main.ts', 'chat.js'],
    ['validator.ts', 'validator.js'],
  ].map(([entry, out]) =>
    build({
      entryPoints: [join(ext, 'webview', entry)],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      outfile: join(ext, 'dist', 'webview', out),
      sourcemap: !production,
      minify: production,
      logLevel: 'warning',
    }),
  ),
]);
cpSync(join(ext, 'webview', 'styles', 'chat.css'), join(ext, 'dist', 'webview', 'chat.css'));
const codicons = dirname(require.resolve('@vscode/codicons/dist/codicon.css'));
cpSync(join(codicons, 'codicon.css'), join(ext, 'dist', 'webview', 'codicon.css'));
cpSync(join(codicons, 'codicon.ttf'), join(ext, 'dist', 'webview', 'codicon.ttf'));

if (production) copyDaemon(join(ext, 'dist', 'daemon'));
console.log(`built extension${production ? ' + daemon' : ''} into ${join(ext, 'dist')}`);

/**
 * The daemon ships inside the extension: its esbuild bundle plus the packages
 * the bundle leaves external (native better-sqlite3, the provider SDKs,
 * chokidar) with their dependency closure, in dist/daemon/node_modules.
 */
function copyDaemon(out) {
  const bundle = join(repo, 'daemon', 'dist', 'bundle');
  if (!existsSync(join(bundle, 'arbor.js'))) {
    execFileSync('npm', ['run', 'bundle', '-w', 'daemon'], { cwd: repo, stdio: 'inherit' });
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // Only the chunks arbor.js reaches: daemon/dist/bundle keeps older builds' chunks
  // (a running daemon may still load them lazily), which the package must not ship.
  for (const file of reachableChunks(bundle, 'arbor.js'))
    cpSync(join(bundle, file), join(out, file));
  writeFileSync(
    join(out, 'package.json'),
    JSON.stringify({ name: 'arbor-daemon-bundle', private: true, type: 'module' }, null, 2),
  );
  const externals = daemonExternals();
  const copied = new Set();
  const copy = (name, fromDir) => {
    if (copied.has(name)) return;
    const dir = findPackage(name, fromDir);
    if (!dir) throw new Error(`daemon runtime package ${name} is not installed`);
    copied.add(name);
    // Other packages' build/ is their JavaScript (@opentelemetry/api's build/src).
    const native = existsSync(join(dir, 'binding.gyp'));
    cpSync(dir, join(out, 'node_modules', name), {
      recursive: true,
      dereference: true,
      // Sources and build intermediates of native addons are not needed at run time.
      filter: (src) =>
        src === dir ||
        (!/[\\/](deps|src|test|docs|node_modules)([\\/]|$)/.test(src.slice(dir.length)) &&
          !/\.(ts|map|md)$/.test(src.replace(/\.d\.ts$/, '.ts')) &&
          (!native || isRuntimeBuildFile(src.slice(dir.length)))),
    });
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      // Install-time only (better-sqlite3 downloads prebuilt binaries with it); never loaded at run time.
      if (INSTALL_ONLY.has(dep)) continue;
      if (findPackage(dep, dir)) copy(dep, dir);
    }
  };
  for (const name of externals) copy(name, join(repo, 'daemon'));
  console.log(`daemon: bundle + ${copied.size} runtime packages (${[...copied].join(', ')})`);
}

/**
 * The packages the daemon bundle leaves external, as its bundle step names
 * them (daemon/scripts/bundle.mjs, or the esbuild flags of an older
 * `bundle` script). None found means the .vsix would ship a daemon without
 * its SQLite binding: fail the build instead.
 */
function daemonExternals() {
  const script = join(repo, 'daemon', 'scripts', 'bundle.mjs');
  const listed = existsSync(script)
    ? /external:\s*\[([^\]]*)\]/.exec(readFileSync(script, 'utf8'))?.[1]
    : undefined;
  const names = listed
    ? [...listed.matchAll(/'([^']+)'|"([^"]+)"/g)].map((m) => m[1] ?? m[2])
    : [
        ...JSON.parse(
          readFileSync(join(repo, 'daemon', 'package.json'), 'utf8'),
        ).scripts.bundle.matchAll(/--external:([^\s"]+)/g),
      ].map((m) => m[1]);
  if (!names.includes('better-sqlite3'))
    throw new Error(
      `the daemon's bundle step names no better-sqlite3 among its externals (${names})`,
    );
  return names;
}

/**
 * Of a native addon's node-gyp `build/` folder only the addon itself loads
 * (build/Release/<name>.node, as `bindings` finds it): objects, the static
 * SQLite library and its amalgamated source were 17 MB of the package.
 */
function isRuntimeBuildFile(relative) {
  const path = relative.split(/[\\/]/).filter(Boolean);
  if (path[0] !== 'build') return true;
  if (path.length === 1 || (path.length === 2 && path[1] === 'Release')) return true;
  return path.length === 3 && path[1] === 'Release' && /^(?!test_).*\.node$/.test(path[2]);
}

function findPackage(name, fromDir) {
  let dir = fromDir;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The bundle's files `entry` imports, statically or lazily, transitively (esbuild's `./chunk.js` names). */
function reachableChunks(dir, entry) {
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const source = readFileSync(join(dir, queue.shift()), 'utf8');
    for (const [, name] of source.matchAll(/["']\.\/([\w.-]+\.js)["']/g)) {
      if (!seen.has(name) && existsSync(join(dir, name))) {
        seen.add(name);
        queue.push(name);
      }
    }
  }
  return [...seen];
}
