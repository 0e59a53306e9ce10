/**
 * run_command as an attacker uses it: what a command can see (environment,
 * the daemon's token, credential stores), where it can write, whether it
 * reaches the network, and what the result says when no sandbox works.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Script } from '@arbor/protocol';
import { SecretRedactor } from '../../src/security/secretRedactor.js';
import { checkBubblewrap } from '../../src/tools/sandbox/bubblewrap.js';
import {
  configureSandbox,
  sandboxSettings,
  type SandboxSettings,
} from '../../src/tools/sandbox/sandboxSettings.js';
import { openWorkspace } from '../../src/tools/workspace/index.js';
import { runCommandTool, type RunCommandOptions } from '../../src/tools/workspace/runCommand.js';
import {
  newSession,
  permDaemon,
  send,
  tempDir,
  toolNodes,
  turnEnd,
} from '../permissions/helpers.js';
import { requireSandbox } from './sandboxSupport.js';
import { toolContext } from './toolContext.js';

const secret = (label: string): string => `${label}-${randomBytes(8).toString('hex')}`;

async function run(
  workspaceRoot: string,
  command: string,
  options: RunCommandOptions = {},
): Promise<{ content: string; isError: boolean }> {
  const workspace = openWorkspace(workspaceRoot, { watch: false });
  try {
    const tool = runCommandTool(workspace, { redactor: new SecretRedactor(), ...options });
    const out = await tool.execute(tool.input.parse({ command }), toolContext());
    return typeof out === 'string'
      ? { content: out, isError: false }
      : { content: out.content, isError: out.isError === true };
  } finally {
    await workspace.guard.close();
  }
}

/** Outside /tmp, which the sandbox replaces anyway: hiding must not rest on that. */
function scratchBase(): string {
  for (const parent of ['/var/tmp', tmpdir()]) {
    try {
      return realpathSync(mkdtempSync(join(parent, 'arbor-sandbox-')));
    } catch {
      // not writable here
    }
  }
  throw new Error('no scratch directory');
}

describe('run_command sandbox', function () {
  this.timeout(20_000);
  let base: string;
  let home: string;
  let dataDir: string;
  let outside: string;
  const secrets = {
    token: secret('token'),
    ssh: secret('ssh-private-key'),
    aws: secret('aws-secret'),
    netrc: secret('netrc-password'),
    homeToken: secret('home-data-dir-token'),
  };

  const settings = (overrides: Partial<SandboxSettings> = {}): SandboxSettings => ({
    mode: 'auto',
    network: false,
    allowEnv: [],
    dataDir,
    ...overrides,
  });
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, HOME: home });

  before(() => {
    base = scratchBase();
    home = join(base, 'home');
    dataDir = join(base, 'data');
    outside = join(base, 'outside');
    for (const dir of [home, dataDir, outside, join(home, 'project')]) mkdirSync(dir);
    writeFileSync(join(dataDir, 'token'), secrets.token, { mode: 0o600 });
    mkdirSync(join(home, '.ssh'), { mode: 0o700 });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), secrets.ssh, { mode: 0o600 });
    mkdirSync(join(home, '.aws'));
    writeFileSync(join(home, '.aws', 'credentials'), secrets.aws);
    writeFileSync(join(home, '.netrc'), `machine example.com password ${secrets.netrc}\n`);
    mkdirSync(join(home, '.arbor'), { mode: 0o700 });
    writeFileSync(join(home, '.arbor', 'token'), secrets.homeToken, { mode: 0o600 });
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  describe('environment (sandboxed or not)', () => {
    const key = secret('sk-test');
    const saved: Record<string, string | undefined> = {};
    // In the daemon's own environment, as a user who exports keys has them.
    const daemonEnv: Record<string, string> = {
      OPENAI_API_KEY: key,
      ANTHROPIC_API_KEY: secret('sk-ant'),
      AZURE_OPENAI_ENDPOINT: 'https://example.openai.azure.com',
      ARBOR_LOCAL_API_KEY: secret('local'),
      GITHUB_TOKEN: secret('ghp'),
      AWS_SECRET_ACCESS_KEY: secret('aws'),
      AWS_REGION: 'eu-west-1',
      DB_PASSWORD: secret('pw'),
      MY_SERVICE_CREDENTIALS: secret('cred'),
      HTTP_AUTHORIZATION: secret('auth'),
      DATABASE_URL: `postgres://app:${secret('dbpw')}@db.example.com/app`,
      ALLOWED_SECRET: 'passed-through-by-config',
      GIT_AUTHOR_NAME: 'Arbor Test',
      ARBOR_PLAIN_SETTING: 'x',
    };
    before(() => {
      for (const [name, value] of Object.entries(daemonEnv)) {
        saved[name] = process.env[name];
        process.env[name] = value;
      }
    });
    after(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    for (const mode of ['auto', 'off'] as const) {
      it(`env shows no provider key and nothing named like a secret (sandbox ${mode})`, async function () {
        if (mode === 'auto') await requireSandbox(this);
        const result = await run(join(home, 'project'), 'env', {
          sandbox: settings({ mode, allowEnv: ['ALLOWED_SECRET'] }),
        });
        assert.equal(result.isError, false, result.content);
        const names = result.content
          .split('\n')
          .slice(1)
          .map((line) => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1])
          .filter((name) => name !== undefined);
        assert.ok(names.includes('PATH'), 'ordinary variables stay');
        assert.ok(names.includes('GIT_AUTHOR_NAME'));
        assert.ok(!result.content.includes(key), 'the provider key');
        for (const name of Object.keys(daemonEnv).filter(
          (n) => n !== 'ALLOWED_SECRET' && n !== 'GIT_AUTHOR_NAME',
        ))
          assert.ok(!names.includes(name), `${name} is not passed`);
        const secretLooking = names.filter(
          (n) =>
            /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i.test(n) &&
            n !== 'ALLOWED_SECRET' &&
            n !== 'GIT_AUTHOR_NAME',
        );
        assert.deepEqual(secretLooking, []);
        assert.match(result.content, /^ALLOWED_SECRET=passed-through-by-config$/m);
      });
    }
  });

  describe('file system', () => {
    beforeEach(async function () {
      await requireSandbox(this);
    });

    const readAll = (paths: string[]): string =>
      paths.map((path) => `cat '${path}'; ls -a '${path}'`).join('; ');

    it('a command cannot read the data dir token nor ~/.ssh, ~/.aws, ~/.netrc', async () => {
      const result = await run(
        join(home, 'project'),
        readAll([
          join(dataDir, 'token'),
          join(home, '.ssh', 'id_ed25519'),
          join(home, '.aws', 'credentials'),
          join(home, '.netrc'),
          join(home, '.arbor', 'token'),
        ]) + `; ls -a '${join(home, '.ssh')}'`,
        { sandbox: settings(), env: env() },
      );
      for (const [what, value] of Object.entries(secrets))
        assert.ok(!result.content.includes(value), `${what} is readable:\n${result.content}`);
      assert.match(result.content, /No such file/);
    });

    it('stays hidden when the workspace is the home directory that holds them', async () => {
      const result = await run(
        home,
        readAll([
          join(home, '.ssh', 'id_ed25519'),
          join(home, '.arbor', 'token'),
          join(home, '.netrc'),
          '.aws/credentials',
        ]),
        { sandbox: settings({ dataDir: join(home, '.arbor') }), env: env() },
      );
      for (const [what, value] of Object.entries(secrets))
        assert.ok(!result.content.includes(value), `${what} is readable:\n${result.content}`);
    });

    it('writes inside the workspace, not outside it; /tmp is private', async () => {
      const ws = join(home, 'project');
      const etcFile = `/etc/arbor-sandbox-test-${process.pid}`;
      const tmpFile = join('/tmp', `arbor-sandbox-test-${process.pid}`);
      try {
        const result = await run(
          ws,
          [
            'echo inside > made.txt && echo MADE',
            `touch '${join(outside, 'escaped.txt')}' && echo ESCAPED-OUTSIDE`,
            `touch '${etcFile}' && echo ESCAPED-ETC`,
            `touch '${join(home, 'escaped.txt')}' && echo ESCAPED-HOME`,
            `echo private > '${tmpFile}' && cat '${tmpFile}'`,
          ].join('; '),
          { sandbox: settings(), env: env() },
        );
        assert.match(result.content, /^MADE$/m);
        assert.ok(existsSync(join(ws, 'made.txt')));
        assert.doesNotMatch(result.content, /ESCAPED/);
        assert.match(result.content, /Read-only file system/);
        assert.ok(!existsSync(join(outside, 'escaped.txt')));
        assert.ok(!existsSync(etcFile));
        assert.ok(!existsSync(join(home, 'escaped.txt')));
        assert.match(result.content, /^private$/m, 'the command has a writable /tmp');
        assert.ok(!existsSync(tmpFile), "...which is not this host's /tmp");
      } finally {
        rmSync(etcFile, { force: true });
        rmSync(tmpFile, { force: true });
      }
    });

    it('sees only its own processes: not the daemon, not its environment', async () => {
      const result = await run(
        join(home, 'project'),
        `ls /proc | grep -c '^[0-9]'; cat /proc/${process.pid}/environ`,
        { sandbox: settings(), env: env() },
      );
      const count = Number(result.content.split('\n')[1]);
      assert.ok(count < 10, `${count} processes visible`);
      assert.match(result.content, /No such file/);
    });
  });

  describe('network', () => {
    let server: Server;
    let port: number;
    let connections = 0;
    before(async () => {
      server = createServer((socket) => {
        connections += 1;
        socket.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const connect = (): string =>
      `"${process.execPath}" -e "require('net').connect(${port}, '127.0.0.1')` +
      `.on('connect', () => { console.log('CONNECTED'); process.exit(0); })` +
      `.on('error', (e) => { console.log('REFUSED ' + e.code); process.exit(1); })"`;

    it('is off by default: a listener on 127.0.0.1 cannot be reached', async function () {
      await requireSandbox(this);
      const before = connections;
      const result = await run(join(home, 'project'), connect(), {
        sandbox: settings(),
        env: env(),
      });
      assert.doesNotMatch(result.content, /CONNECTED/);
      assert.match(result.content, /REFUSED/);
      assert.equal(connections, before);
    });

    it('is there when the config allows it', async function () {
      await requireSandbox(this);
      const result = await run(join(home, 'project'), connect(), {
        sandbox: settings({ network: true }),
        env: env(),
      });
      assert.match(result.content, /CONNECTED/);
    });
  });

  describe('without a sandbox', () => {
    it('the command still runs, and the result says so on its second line', async () => {
      const result = await run(join(home, 'project'), 'echo hello', {
        sandbox: settings({ mode: 'off' }),
        env: env(),
      });
      assert.equal(result.isError, false);
      assert.deepEqual(result.content.split('\n').slice(0, 3), [
        'exit code 0',
        '[ran without a sandbox: the sandbox is off in the config]',
        'hello',
      ]);
    });

    it('a sandboxed result carries no such line', async function () {
      await requireSandbox(this);
      const result = await run(join(home, 'project'), 'echo hello', {
        sandbox: settings(),
        env: env(),
      });
      assert.equal(result.content, 'exit code 0\nhello\n');
    });

    it('the probe tells a missing bwrap from one that does not work here', async () => {
      assert.deepEqual(await checkBubblewrap(undefined), {
        ok: false,
        reason: 'bwrap is not installed',
      });
      const fake = join(base, 'bwrap');
      writeFileSync(
        fake,
        '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n',
      );
      chmodSync(fake, 0o755);
      const probe = await checkBubblewrap(fake);
      assert.equal(probe.ok, false);
      assert.match(
        (probe as { reason: string }).reason,
        /^bwrap does not work here \(bwrap: No permissions to create new namespace\)$/,
      );
    });

    it('the tree node of the call shows it', async () => {
      const previous = sandboxSettings();
      configureSandbox({ ...previous, mode: 'off' });
      const script: Script = {
        version: 1,
        conversations: {
          '*': [
            { toolCalls: [{ name: 'run_command', arguments: { command: 'echo from-the-tree' } }] },
            { text: 'done' },
          ],
        },
      };
      const daemon = permDaemon(script);
      try {
        const client = await daemon.connect();
        const sessionId = await newSession(client, tempDir(), 'auto');
        await turnEnd(client, await send(client, sessionId, 'go'));
        const [node] = toolNodes(client, 'run_command');
        assert.equal(node?.['status'], 'done');
        assert.match(
          String(node?.['resultPreview']),
          /^exit code 0\n\[ran without a sandbox: the sandbox is off in the config\]\nfrom-the-tree/,
        );
      } finally {
        configureSandbox(previous);
        await daemon.close();
      }
    });
  });

  it('a known secret a command prints is redacted from its output', async () => {
    const key = secret('sk-test-printed');
    const redactor = new SecretRedactor();
    redactor.add(key);
    const [head, tail] = [key.slice(0, 6), key.slice(6)];
    const result = await run(join(home, 'project'), `printf '%s%s\\n' '${head}' '${tail}'`, {
      sandbox: settings({ mode: 'off' }),
      redactor,
    });
    assert.equal(
      result.content,
      'exit code 0\n[ran without a sandbox: the sandbox is off in the config]\n[redacted]\n',
    );
  });
});
