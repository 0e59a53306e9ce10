/**
 * The suite as a stranger installs it: `npm run tarball` output installed into an
 * empty directory outside the repository, run with `npx arbor-conformance`
 * against the reference fixtures that ship in the package.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeTempDir, removeDir } from '../src/harness/process.js';
import { npmEnv, packConformance } from '../scripts/pack.js';
import { all, parseXml } from './xml.js';

const exec = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(cwd: string, command: string, args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await exec(command, args, {
      cwd,
      env: npmEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

// npm's words for "the registry cannot be reached": only then may a run outside CI skip.
const OFFLINE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network/i;

describe('the installed package (npm pack, then install in an empty directory)', function () {
  this.timeout(300_000);
  let tmp: string;
  let consumer: string;
  let fixture: (name: string) => string;

  before(async function () {
    tmp = makeTempDir('arbor-conformance-pack-test-');
    const tarball = packConformance(path.join(tmp, 'dist'));
    consumer = path.join(tmp, 'consumer');
    mkdirSync(consumer);
    writeFileSync(path.join(consumer, 'package.json'), '{ "name": "consumer", "private": true }\n');
    const installed = await run(consumer, npm, [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
    ]);
    if (installed.code !== 0) {
      if (process.env.CI !== 'true' && OFFLINE.test(installed.stderr)) this.skip();
      assert.fail(`npm install of the tarball failed:\n${installed.stderr}`);
    }
    const installedAt = path.join(consumer, 'node_modules', '@arbor', 'conformance');
    fixture = (name) => path.join(installedAt, 'fixtures', name);
  });
  after(() => {
    if (tmp) removeDir(tmp);
  });

  it('carries @arbor/protocol and its JSON Schema, and nothing of the repository', () => {
    const installed = path.join(consumer, 'node_modules', '@arbor', 'conformance', 'package.json');
    // Resolved as the suite's harness resolves it at run time.
    const schema = createRequire(installed).resolve('@arbor/protocol/schema/meta-model.json');
    assert.ok(existsSync(schema));
    assert.ok(schema.startsWith(consumer), schema);
    const manifest = JSON.parse(readFileSync(installed, 'utf8')) as {
      bundleDependencies?: string[];
      scripts?: unknown;
    };
    assert.deepEqual(manifest.bundleDependencies, ['@arbor/protocol']);
    assert.equal(manifest.scripts, undefined);
    // Outside the repository: nothing can resolve from its node_modules.
    assert.ok(path.relative(REPO, consumer).startsWith('..'), consumer);
  });

  it('npx arbor-conformance passes the packaged reference daemon, with a JUnit report', async () => {
    const r = await run(consumer, 'npx', [
      '--no',
      'arbor-conformance',
      'daemon',
      '--command',
      `"${process.execPath}" "${fixture('reference-daemon.mjs')}" --stdio`,
      '--reporter',
      'junit',
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const doc = parseXml(r.stdout);
    assert.equal(doc.attributes.failures, '0');
    assert.equal(doc.attributes.errors, '0');
    const passed = all(doc, 'testcase').filter((c) => c.children.length === 0);
    assert.ok(passed.length >= 20, `only ${passed.length} checks passed`);
  });

  it('npx arbor-conformance drives the packaged reference client through its stdio bridge', async () => {
    const r = await run(consumer, 'npx', [
      '--no',
      'arbor-conformance',
      'client',
      '--command',
      `"${process.execPath}" "${fixture('reference-client.mjs')}"`,
      '--scenario',
      'client-unknown-messages',
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^PASS +\S+ +client\./m);
    assert.match(r.stdout, /verdict: PASS/);
  });
});
