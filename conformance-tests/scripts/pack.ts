/**
 * `npm run tarball -w conformance-tests [-- <out dir>]`: the installable tarball of
 * @arbor/conformance, with @arbor/protocol bundled inside it.
 *
 * @arbor/protocol is a workspace package that is not published, so the tarball
 * carries it as a bundled dependency (`node_modules/@arbor/protocol`): installed,
 * the suite runs from the same dist/ and resolves the generated JSON Schema
 * (`@arbor/protocol/schema/*.json`) exactly as in the repository, with no second
 * build of either package. npm cannot bundle a workspace package itself (it is
 * hoisted to the root node_modules, npm/cli#3466), so this script stages the
 * package: both workspaces are packed with npm's own file lists, the protocol
 * tarball is unpacked into the staged package's node_modules, and the staged
 * package is packed once more with `bundleDependencies`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLED = '@arbor/protocol';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * The environment for a child npm: without what an enclosing `npm run`/`npm test`
 * exported about this repository (its prefix, `--workspaces`, the package running),
 * which would otherwise steer the child's pack or install.
 */
export function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !/^npm_(config_(local_prefix|call|workspaces?|include_workspace_root)$|package_|lifecycle_)/i.test(
          key,
        ),
    ),
  );
}

interface PackedEntry {
  filename: string;
}

/** `npm pack` of `args` into `dest`; returns the tarball's path. */
function npmPack(cwd: string, dest: string, args: string[] = []): string {
  const stdout = execFileSync(npm, ['pack', '--json', '--pack-destination', dest, ...args], {
    cwd,
    env: npmEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [entry] = JSON.parse(stdout) as PackedEntry[];
  if (!entry) throw new Error(`npm pack ${args.join(' ')} packed nothing`);
  return path.join(dest, entry.filename);
}

function unpack(tarball: string, into: string): void {
  mkdirSync(into, { recursive: true });
  // npm tarballs hold everything under `package/`.
  execFileSync('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
}

/**
 * Builds (tsc -b, so dist/ is never stale) and packs; returns the path of the
 * tarball written to `outDir`.
 */
export function packConformance(outDir: string, { build = true } = {}): string {
  if (build) buildSuite();
  const work = mkdtempSync(path.join(os.tmpdir(), 'arbor-conformance-pack-'));
  try {
    // --ignore-scripts: the workspace's prepack refuses plain `npm pack` (it would
    // miss the bundled protocol); here that tarball is only an input.
    const suite = npmPack(REPO, work, ['-w', 'conformance-tests', '--ignore-scripts']);
    const protocol = npmPack(REPO, work, ['-w', 'protocol-spec']);
    const stage = path.join(work, 'stage');
    unpack(suite, stage);
    unpack(protocol, path.join(stage, 'node_modules', BUNDLED));

    const manifestPath = path.join(stage, 'package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
    const protocolManifest = JSON.parse(
      readFileSync(path.join(stage, 'node_modules', BUNDLED, 'package.json'), 'utf8'),
    ) as { dependencies?: Record<string, string> };
    // The bundled package's own dependencies (zod, ...) become ours: npm does not
    // install the dependencies of a bundled package that the bundle lacks.
    manifest.dependencies = {
      ...protocolManifest.dependencies,
      ...(manifest.dependencies as Record<string, string>),
    };
    manifest.bundleDependencies = [BUNDLED];
    delete manifest.scripts; // repository tasks (tests, generators) mean nothing installed
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

    mkdirSync(outDir, { recursive: true });
    return npmPack(stage, path.resolve(outDir));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `tsc -b conformance-tests` (it builds @arbor/protocol too); fails with tsc's diagnostics. */
function buildSuite(): void {
  const tsc = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-b', 'conformance-tests'], {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc -b conformance-tests failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? process.cwd();
  process.stdout.write(`${packConformance(out)}\n`);
}
