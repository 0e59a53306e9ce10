/**
 * Runs `git` against a workspace's shadow repository: execFile (no shell),
 * an environment built from scratch, and `-c` settings that keep the user's
 * config, hooks, signing, filters and fsmonitor out of every call. Each call
 * has a time limit and an output limit; failures become CheckpointErrors.
 */
import { execFile } from 'node:child_process';
import { delimiter } from 'node:path';
import { CheckpointError, looksLikeDiskFull } from './checkpointError.js';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024;

/**
 * Applied to every call, whatever the shadow repo's config file says. The
 * global and system config are not read at all (see `gitEnvironment`), so
 * these only need to cover what git would otherwise default or take from
 * the workspace: no hooks, no signing, no fsmonitor daemon (it would run a
 * program), no line-ending conversion, no automatic gc in the middle of a
 * turn.
 */
const FORCED_CONFIG = [
  'core.hooksPath=/dev/null',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'core.fsmonitor=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.fileMode=true',
  'core.quotePath=false',
  'core.sparseCheckout=false',
  'core.splitIndex=false',
  'diff.external=',
  'diff.noprefix=false',
  'diff.mnemonicPrefix=false',
  'diff.relative=false',
  'advice.addEmbeddedRepo=false',
  'advice.addIgnoredFile=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'user.useConfigOnly=false',
];

export const AUTHOR = { name: 'Arbor checkpoints', email: 'checkpoints@arbor.invalid' };

export interface ShadowGitOptions {
  gitPath: string;
  /** The shadow git directory. */
  gitDir: string;
  /** The workspace root (realpath). */
  workTree: string;
  /** An empty directory used as HOME / XDG_CONFIG_HOME, so no user config is found. */
  homeDir: string;
}

export interface RunOptions {
  input?: string | Buffer;
  timeoutMs?: number;
  maxBuffer?: number;
  /** Extra environment (e.g. GIT_INDEX_FILE); never taken from process.env. */
  env?: Record<string, string>;
}

export interface RunOutput<T> {
  stdout: T;
  stderr: string;
}

/**
 * The whole environment git gets: PATH (to find its helpers) and the git
 * variables. Nothing else from the daemon's environment, so API keys and
 * tokens never reach git or anything it might start.
 */
export function gitEnvironment(options: ShadowGitOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? ['/usr/local/bin', '/usr/bin', '/bin'].join(delimiter),
    HOME: options.homeDir,
    XDG_CONFIG_HOME: options.homeDir,
    GIT_DIR: options.gitDir,
    GIT_WORK_TREE: options.workTree,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: AUTHOR.name,
    GIT_AUTHOR_EMAIL: AUTHOR.email,
    GIT_COMMITTER_NAME: AUTHOR.name,
    GIT_COMMITTER_EMAIL: AUTHOR.email,
    LC_ALL: 'C',
    LANG: 'C',
  };
  // Windows needs these to start any process at all; they hold no secrets.
  if (process.platform === 'win32') {
    for (const name of ['SystemRoot', 'SYSTEMROOT', 'ComSpec', 'PATHEXT', 'TEMP', 'TMP']) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
  }
  return env;
}

export class ShadowGit {
  private readonly env: Record<string, string>;
  private readonly prefix: string[];

  constructor(readonly options: ShadowGitOptions) {
    this.env = gitEnvironment(options);
    this.prefix = [
      ...FORCED_CONFIG.flatMap((setting) => ['-c', setting]),
      `--git-dir=${options.gitDir}`,
      `--work-tree=${options.workTree}`,
    ];
  }

  run(args: readonly string[], options?: RunOptions): Promise<RunOutput<string>> {
    return this.exec(args, 'utf8', options) as Promise<RunOutput<string>>;
  }

  runBuffer(args: readonly string[], options?: RunOptions): Promise<RunOutput<Buffer>> {
    return this.exec(args, 'buffer', options) as Promise<RunOutput<Buffer>>;
  }

  private exec(
    args: readonly string[],
    encoding: 'utf8' | 'buffer',
    options: RunOptions = {},
  ): Promise<RunOutput<string | Buffer>> {
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBuffer = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
    const what = `git ${args[0] ?? ''}`;
    return new Promise((resolve, reject) => {
      const child = execFile(
        this.options.gitPath,
        [...this.prefix, ...args],
        {
          cwd: this.options.workTree,
          env: options.env ? { ...this.env, ...options.env } : this.env,
          encoding,
          timeout,
          maxBuffer,
          killSignal: 'SIGKILL',
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          const err = String(stderr);
          if (!error) {
            resolve({ stdout, stderr: err });
            return;
          }
          reject(describeFailure(error, what, err, timeout, stdout));
        },
      );
      // A closed stdin: git never waits for input it was not given.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.input);
    });
  }
}

/** The partial stdout of a call that hit its output limit (diff truncation uses it). */
export class OutputLimitError extends CheckpointError {
  constructor(
    message: string,
    readonly partial: string | Buffer,
  ) {
    super('output-too-large', message);
  }
}

function describeFailure(
  error: Error & { code?: string | number | null; killed?: boolean; signal?: string | null },
  what: string,
  stderr: string,
  timeout: number,
  stdout: string | Buffer,
): CheckpointError {
  if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
    return new OutputLimitError(`${what} printed more than its output limit`, stdout);
  }
  if (error.code === 'ENOENT') {
    return new CheckpointError('git-failed', `${what}: the git program was not found`, {
      cause: error,
    });
  }
  if (looksLikeDiskFull(stderr) || error.code === 'ENOSPC') {
    return new CheckpointError('disk-full', `${what}: the disk is full (${firstLines(stderr)})`, {
      cause: error,
    });
  }
  if (error.killed === true || error.signal === 'SIGKILL') {
    return new CheckpointError(
      'timeout',
      `${what} took longer than ${timeout} ms and was stopped`,
      {
        cause: error,
      },
    );
  }
  const detail = firstLines(stderr) || error.message;
  return new CheckpointError('git-failed', `${what} failed: ${detail}`, { cause: error });
}

function firstLines(text: string): string {
  return text.trim().split('\n').slice(0, 5).join(' | ').slice(0, 1000);
}
