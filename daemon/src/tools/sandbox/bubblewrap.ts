/**
 * bubblewrap (`bwrap`), the Linux sandbox run_command uses: the whole file
 * system read-only, the workspace writable, a private /tmp, the daemon's
 * data dir and the usual credential stores hidden, no network unless the
 * config allows it, its own PID namespace (a command sees and signals only
 * its own processes, and cannot read another process's environment), no
 * capabilities (root included), a new session (no TIOCSTI into the daemon's
 * terminal), and it dies with the daemon.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, sep } from 'node:path';

/** Credential stores under $HOME, hidden whole. */
const HOME_SECRET_DIRS = [
  // The default data dir, when another daemon uses it.
  '.arbor',
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.gnupg',
  '.docker',
  '.kube',
  '.config/gh',
  '.config/hub',
  '.password-store',
  '.local/share/keyrings',
  '.terraform.d',
];
/** Credential files under $HOME, each replaced by an empty file. */
const HOME_SECRET_FILES = [
  '.netrc',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.git-credentials',
  '.config/git/credentials',
  '.pgpass',
  '.my.cnf',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.vault-token',
  '.terraformrc',
  // Other coding agents' logins.
  '.claude/.credentials.json',
  '.codex/auth.json',
];
/**
 * Sockets that grant more than the sandbox does (a container engine is root,
 * an ssh agent signs with the user's keys). A read-only mount does not stop
 * connect() on a socket, so they are covered up.
 */
const SYSTEM_SECRET_SOCKETS = [
  '/var/run/docker.sock',
  '/run/docker.sock',
  '/run/podman/podman.sock',
  '/run/containerd/containerd.sock',
];

export interface HiddenPath {
  /** Real path (symbolic links resolved). */
  path: string;
  /** Directories become an empty tmpfs; anything else an empty file (/dev/null). */
  directory: boolean;
}

/**
 * The existing locations a command must not see: the data dir, the credential
 * stores under `home`, the user's runtime dir (agent and bus sockets), the
 * ssh agent's socket and container engine sockets.
 */
export function hiddenPaths(options: {
  dataDir: string;
  home: string | undefined;
  env: NodeJS.ProcessEnv;
}): HiddenPath[] {
  const { dataDir, home, env } = options;
  const uid = process.getuid?.();
  const candidates = [
    dataDir,
    ...(home ? [...HOME_SECRET_DIRS, ...HOME_SECRET_FILES].map((name) => join(home, name)) : []),
    ...SYSTEM_SECRET_SOCKETS,
    env['XDG_RUNTIME_DIR'],
    uid === undefined ? undefined : `/run/user/${uid}`,
    env['SSH_AUTH_SOCK'],
  ];
  const seen = new Map<string, HiddenPath>();
  for (const candidate of candidates) {
    if (!candidate || !isAbsolute(candidate)) continue;
    try {
      const path = realpathSync(candidate);
      if (path !== '/') seen.set(path, { path, directory: statSync(path).isDirectory() });
    } catch {
      // does not exist (or cannot be seen): nothing to hide
    }
  }
  return [...seen.values()];
}

export interface BubblewrapPlan {
  /** Real path of the workspace: the one writable place besides /tmp. */
  workspaceRoot: string;
  /** Real path the command starts in, inside the workspace. */
  cwd: string;
  hidden: readonly HiddenPath[];
  network: boolean;
}

function depth(path: string): number {
  return path === sep ? 0 : path.split(sep).length - 1;
}

/**
 * bwrap's arguments, up to and including `--`: the command goes after them.
 * Mounts are applied shallowest first, so each deeper one shadows what lies
 * under it: a workspace under /tmp comes back over the private /tmp, and a
 * credential store inside the workspace (a home directory opened as one)
 * stays hidden. At equal depth the workspace wins over the private /tmp and
 * loses to a hidden path.
 */
export function bubblewrapArgs(plan: BubblewrapPlan): string[] {
  const mounts: { path: string; order: number; args: string[] }[] = [
    { path: '/dev', order: 0, args: ['--dev', '/dev'] },
    { path: '/proc', order: 0, args: ['--proc', '/proc'] },
    { path: '/tmp', order: 0, args: ['--tmpfs', '/tmp'] },
    {
      path: plan.workspaceRoot,
      order: 1,
      args: ['--bind', plan.workspaceRoot, plan.workspaceRoot],
    },
    ...plan.hidden.map(({ path, directory }) => ({
      path,
      order: 2,
      args: directory ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path],
    })),
  ];
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || a.order - b.order);
  return [
    '--ro-bind',
    '/',
    '/',
    ...mounts.flatMap((mount) => mount.args),
    '--unshare-pid',
    '--unshare-ipc',
    ...(plan.network ? [] : ['--unshare-net']),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--chdir',
    plan.cwd,
    '--',
  ];
}

export type BubblewrapProbe = { ok: true; bwrap: string } | { ok: false; reason: string };

let probed: Promise<BubblewrapProbe> | undefined;

/**
 * Whether bwrap is installed and works here, checked once per process:
 * kernels, containers and distribution policies that forbid the namespaces
 * it needs make it fail, so only running it tells.
 */
export function probeBubblewrap(): Promise<BubblewrapProbe> {
  probed ??= checkBubblewrap(findBwrap());
  return probed;
}

function findBwrap(): string | undefined {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter(isAbsolute);
  for (const dir of [...dirs, '/usr/bin', '/bin']) {
    const path = join(dir, 'bwrap');
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Runs `exit 0` in a sandbox like run_command's (no network, private /tmp, ...). */
export function checkBubblewrap(bwrap: string | undefined): Promise<BubblewrapProbe> {
  if (bwrap === undefined) return Promise.resolve({ ok: false, reason: 'bwrap is not installed' });
  const workspaceRoot = realpathSync(tmpdir());
  const args = bubblewrapArgs({ workspaceRoot, cwd: workspaceRoot, hidden: [], network: false });
  return new Promise((resolve) => {
    execFile(
      bwrap,
      [...args, '/bin/sh', '-c', 'exit 0'],
      { timeout: 10_000, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } },
      (error, _stdout, stderr) => {
        if (!error) return resolve({ ok: true, bwrap });
        const detail = stderr.trim().split('\n')[0] || error.message;
        resolve({ ok: false, reason: `bwrap does not work here (${detail.slice(0, 200)})` });
      },
    );
  });
}
