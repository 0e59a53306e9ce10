/**
 * Per-turn undo for one workspace: snapshots of its non-ignored files kept in
 * a shadow git repository under the daemon's data directory, never in the
 * user's own `.git`. The daemon snapshots before and after an agent turn,
 * lists and diffs what the turn changed, and restores chosen files to how
 * they were before it, refusing (unless forced) when someone else has
 * changed them since.
 *
 * Layout: `<dataDir>/checkpoints/<first 16 hex of sha256(realpath(root))>/`
 * is a bare-layout git directory (its own index file inside), used with
 * `--git-dir` / `--work-tree` on every call. Snapshots are commits chained on
 * `refs/heads/checkpoints`; `git add -A` through the kept index only rehashes
 * files whose stat data changed, so a snapshot after a small turn is cheap.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { lstat, mkdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { CheckpointError, toCheckpointError } from './checkpointError.js';
import {
  CheckpointId,
  type CheckpointsUnavailable,
  type DiffResult,
  type FileChange,
  RestoreRequest,
  type RestoreFailure,
  type RestoreResult,
  type SnapshotReport,
} from './checkpointTypes.js';
import { OutputLimitError, ShadowGit, gitEnvironment } from './shadowGit.js';
import {
  type FileState,
  checkConfined,
  currentState,
  normalizeRelativePath,
  removeWorkspaceFile,
  writeWorkspaceFile,
} from './workspaceFiles.js';

export interface CheckpointsOptions {
  workspaceRoot: string;
  /** The daemon's data directory; checkpoints live in `<dataDir>/checkpoints/`. */
  dataDir: string;
  /** The git program (default: `git` on PATH). */
  gitPath?: string;
  /** Files larger than this are left out of snapshots (default 10 MiB). */
  maxFileBytes?: number;
}

export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const REF = 'refs/heads/checkpoints';
const EMPTY_BLOB_SHA1 = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';
/**
 * An index entry under a nested repository's directory: while git sees
 * tracked files under a directory it walks into it as an ordinary
 * directory instead of adding the nested repository as a gitlink. It does
 * not exist on disk, so the same `git add -A` drops it again.
 */
const NESTED_PLACEHOLDER = '.arbor-checkpoint-placeholder';
/** Nested repositories inside nested repositories, at most this deep. */
const MAX_NESTING = 8;
/** The first snapshot of a large tree hashes every file. */
const ADD_TIMEOUT_MS = 10 * 60_000;
const SKIPPED_TRAILER = 'Arbor-Skipped: ';
const MIN_GIT: readonly [number, number] = [2, 25]; // add --pathspec-from-file
const DEFAULT_DIFF_BYTES = 1024 * 1024;

function unavailable(reason: string): CheckpointsUnavailable {
  return { unavailable: true, reason };
}

export function isUnavailable(value: object): value is CheckpointsUnavailable {
  return 'unavailable' in value && (value as CheckpointsUnavailable).unavailable === true;
}

/** The shadow repository's directory for a workspace root (already a realpath). */
export function shadowDirFor(dataDir: string, realRoot: string): string {
  const key = createHash('sha256').update(realRoot).digest('hex').slice(0, 16);
  return join(resolve(dataDir), 'checkpoints', key);
}

function splitNul(text: string): string[] {
  return text.split('\0').filter((s) => s !== '');
}

/** `ls-tree -l` entries of `paths` (all when omitted) at `commit`, by path. */
interface TreeEntry {
  mode: string;
  type: string;
  id: string;
  size: number | undefined;
}

export class WorkspaceCheckpoints {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private head: string | undefined;
  /** Skipped (too large) paths per checkpoint; commits never change. */
  private readonly skippedCache = new Map<string, ReadonlySet<string>>();

  private constructor(
    /** The workspace root (realpath). */
    readonly root: string,
    /** The shadow git directory. */
    readonly shadowDir: string,
    private readonly git: ShadowGit,
    private readonly maxFileBytes: number,
  ) {}

  static async open(
    options: CheckpointsOptions,
  ): Promise<WorkspaceCheckpoints | CheckpointsUnavailable> {
    const gitPath = options.gitPath ?? 'git';
    let root: string;
    try {
      root = await realpath(options.workspaceRoot);
      if (!(await stat(root)).isDirectory()) {
        return unavailable(
          `checkpoints are off: the workspace ${options.workspaceRoot} is not a directory`,
        );
      }
    } catch {
      return unavailable(
        `checkpoints are off: the workspace ${options.workspaceRoot} does not exist`,
      );
    }
    const version = await gitVersion(gitPath);
    if (typeof version === 'string') return unavailable(version);
    if (version[0] < MIN_GIT[0] || (version[0] === MIN_GIT[0] && version[1] < MIN_GIT[1])) {
      return unavailable(
        `checkpoints are off: git ${version.join('.')} is too old (${MIN_GIT.join('.')} or newer is needed)`,
      );
    }
    const shadowDir = shadowDirFor(options.dataDir, root);
    const homeDir = join(resolve(options.dataDir), 'checkpoints', 'empty-home');
    try {
      await mkdir(homeDir, { recursive: true });
      const git = new ShadowGit({ gitPath, gitDir: shadowDir, workTree: root, homeDir });
      const fresh = await lstat(join(shadowDir, 'HEAD')).then(
        () => false,
        () => true,
      );
      if (fresh) await initShadow(gitPath, shadowDir, homeDir, root);
      await writeShadowRules(shadowDir, root, resolve(options.dataDir));
      await removeStaleIndexLock(shadowDir);
      const checkpoints = new WorkspaceCheckpoints(
        root,
        shadowDir,
        git,
        options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      );
      if (fresh) await git.run(['hash-object', '-w', '--stdin'], { input: '' });
      return checkpoints;
    } catch (error) {
      const failure = toCheckpointError(error, 'setting up checkpoints');
      return unavailable(`checkpoints are off: ${failure.message}`);
    }
  }

  /**
   * Records the workspace's non-ignored files as a new checkpoint and
   * returns its id, plus the files left out for being over the size cap.
   */
  snapshot(label: string): Promise<SnapshotReport> {
    return this.serial(() => this.snapshotNow(label));
  }

  /** The files that differ between two checkpoints (no rename detection). */
  changes(from: string, to: string): Promise<FileChange[]> {
    return this.serial(() => this.changesNow(from, to));
  }

  /** A unified diff between two checkpoints, for display; cut at `maxBytes` (default 1 MiB). */
  diff(
    from: string,
    to: string,
    options: { paths?: string[]; maxBytes?: number } = {},
  ): Promise<DiffResult> {
    return this.serial(() => this.diffNow(from, to, options));
  }

  /**
   * Brings each path back to its content at checkpoint `to`, after checking
   * that the workspace still matches checkpoint `expected` for those paths.
   * Any mismatch (without `force`) changes nothing.
   */
  restore(to: string, options: RestoreRequest): Promise<RestoreResult> {
    return this.serial(() => this.restoreNow(to, options));
  }

  /** Later calls fail with `closed`; calls already queued still run. */
  close(): void {
    this.closed = true;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) {
      return Promise.reject(new CheckpointError('closed', 'the workspace checkpoints were closed'));
    }
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result.catch((error: unknown) => {
      throw toCheckpointError(error, 'checkpoints');
    });
  }

  private async snapshotNow(label: string): Promise<SnapshotReport> {
    const skipped = await this.prepareIndex();
    const add = ['add', '-A', '--ignore-errors'];
    if (skipped.length === 0) {
      await this.addAll(add);
    } else {
      const pathspecs = ['.', ...skipped.map((p) => `:(exclude,literal)${p}`)];
      await this.addAll(
        [...add, '--pathspec-from-file=-', '--pathspec-file-nul'],
        pathspecs.join('\0'),
      );
      // A tracked file that grew past the cap must not keep its old content.
      await this.git.run(['update-index', '-z', '--force-remove', '--stdin'], {
        input: skipped.join('\0'),
      });
    }
    const tree = (await this.git.run(['write-tree'])).stdout.trim();
    const parent = await this.currentHead();
    const message =
      // One line: the trailer below is read only from later lines.
      `${label.replace(/[\0\r\n]+/g, ' ').trim() || 'checkpoint'}\n` +
      (skipped.length > 0 ? `\n${SKIPPED_TRAILER}${JSON.stringify(skipped)}\n` : '');
    const args = ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'];
    const id = (await this.git.run(args, { input: message })).stdout.trim();
    await this.git.run(['update-ref', REF, id, ...(parent ? [parent] : [])]);
    this.head = id;
    this.skippedCache.set(id, new Set(skipped));
    return { id, skipped };
  }

  /**
   * Finds the files `git add -A` would add or update, leaving out those over
   * the size cap, and makes nested repositories walkable (see
   * NESTED_PLACEHOLDER). We snapshot a nested repository's files rather than
   * skip it: an agent edits files in vendored clones and sub-projects too, and
   * undo should cover them; a gitlink would record only the nested HEAD, and
   * none of the edits. Their own `.git` is never read or written: git skips
   * every `.git` entry while walking.
   */
  private async prepareIndex(): Promise<string[]> {
    const skipped: string[] = [];
    const seen = new Set<string>();
    for (let depth = 0; depth <= MAX_NESTING; depth++) {
      const listed = splitNul(
        (
          await this.git.run(['ls-files', '-z', '--others', '--modified', '--exclude-standard'], {
            timeoutMs: ADD_TIMEOUT_MS,
          })
        ).stdout,
      );
      const nested: string[] = [];
      const files: string[] = [];
      for (const path of listed) {
        if (seen.has(path)) continue;
        seen.add(path);
        if (path.endsWith('/')) nested.push(path);
        else files.push(path);
      }
      skipped.push(...(await this.oversized(files)));
      if (nested.length === 0 || depth === MAX_NESTING) break;
      const entries = nested.map((dir) => `100644 ${EMPTY_BLOB_SHA1}\t${dir}${NESTED_PLACEHOLDER}`);
      await this.git.run(['update-index', '-z', '--index-info'], {
        input: entries.join('\0') + '\0',
      });
    }
    return [...new Set(skipped)].sort();
  }

  private async oversized(paths: string[]): Promise<string[]> {
    const found: string[] = [];
    for (let i = 0; i < paths.length; i += 256) {
      const batch = paths.slice(i, i + 256);
      const sizes = await Promise.all(
        batch.map((p) =>
          lstat(join(this.root, p)).then(
            (s) => (s.isFile() ? s.size : 0),
            () => 0,
          ),
        ),
      );
      sizes.forEach((size, j) => {
        if (size > this.maxFileBytes) found.push(batch[j]!);
      });
    }
    return found;
  }

  private async addAll(args: string[], pathspecs?: string): Promise<void> {
    try {
      await this.git.run(args, { input: pathspecs, timeoutMs: ADD_TIMEOUT_MS });
    } catch (error) {
      // --ignore-errors: unreadable files are left out, the rest is added, and
      // git still exits 1; only a failure that is not about single files counts.
      if (
        error instanceof CheckpointError &&
        error.code === 'git-failed' &&
        /unable to index file|adding files failed|Permission denied/.test(error.message) &&
        !/index\.lock|fatal: (?!adding files failed)/.test(error.message)
      ) {
        return;
      }
      throw error;
    }
  }

  private async currentHead(): Promise<string | undefined> {
    if (this.head) return this.head;
    try {
      const out = await this.git.run(['rev-parse', '-q', '--verify', `${REF}^{commit}`]);
      this.head = out.stdout.trim() || undefined;
    } catch {
      this.head = undefined;
    }
    return this.head;
  }

  /** Checks that each id is a checkpoint commit here (one git call). */
  private async verify(...ids: string[]): Promise<void> {
    for (const id of ids) {
      if (!CheckpointId.safeParse(id).success) {
        throw new CheckpointError(
          'unknown-checkpoint',
          `${JSON.stringify(id)} is not a checkpoint id`,
        );
      }
    }
    const out = await this.git.run(['cat-file', '--batch-check'], {
      input: ids.map((id) => `${id}\n`).join(''),
    });
    const lines = out.stdout.trim().split('\n');
    ids.forEach((id, i) => {
      if (!(lines[i] ?? '').startsWith(`${id} commit `)) {
        throw new CheckpointError(
          'unknown-checkpoint',
          `${id} is not a checkpoint of ${this.root}`,
        );
      }
    });
  }

  private async skippedAt(id: string): Promise<ReadonlySet<string>> {
    const cached = this.skippedCache.get(id);
    if (cached) return cached;
    const body = (await this.git.run(['cat-file', 'commit', id])).stdout;
    // Headers, a blank line, the label's one line, then the trailer.
    const message = body.slice(body.indexOf('\n\n') + 2).split('\n');
    const line = message.slice(1).find((l) => l.startsWith(SKIPPED_TRAILER));
    let paths: string[] = [];
    if (line) {
      try {
        const parsed: unknown = JSON.parse(line.slice(SKIPPED_TRAILER.length));
        if (Array.isArray(parsed)) paths = parsed.filter((p): p is string => typeof p === 'string');
      } catch {
        paths = [];
      }
    }
    const set = new Set(paths);
    this.skippedCache.set(id, set);
    return set;
  }

  private async changesNow(from: string, to: string): Promise<FileChange[]> {
    await this.verify(from, to);
    const out = await this.git.run([
      'diff-tree',
      '-r',
      '-z',
      '--no-renames',
      '--no-ext-diff',
      '--no-textconv',
      '--raw',
      '--numstat',
      from,
      to,
    ]);
    const tokens = out.stdout.split('\0');
    const byPath = new Map<string, FileChange>();
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token === '') continue;
      if (token.startsWith(':')) {
        // :<old mode> <new mode> <old id> <new id> <status>, then the path.
        const [oldMode, newMode, , , letter] = token.slice(1).split(' ');
        const path = tokens[++i] ?? '';
        const status = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified';
        const change: FileChange = { path, status, added: 0, removed: 0 };
        if (status === 'modified' && oldMode !== newMode) change.modeChanged = true;
        byPath.set(path, change);
      } else {
        // <added>\t<removed>\t<path>; "-" for binary files.
        const [added, removed, ...rest] = token.split('\t');
        const change = byPath.get(rest.join('\t'));
        if (!change) continue;
        if (added === '-' || removed === '-') change.binary = true;
        else {
          change.added = Number(added);
          change.removed = Number(removed);
        }
      }
    }
    await this.markTooLarge(from, to, byPath);
    return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Files over the size cap are absent from a tree; report them as such, not as deleted or added. */
  private async markTooLarge(
    from: string,
    to: string,
    byPath: Map<string, FileChange>,
  ): Promise<void> {
    const [before, after] = await Promise.all([this.skippedAt(from), this.skippedAt(to)]);
    if (before.size === 0 && after.size === 0) return;
    const tooLarge = (path: string, status: FileChange['status']): void => {
      byPath.set(path, { path, status, added: 0, removed: 0, tooLarge: true });
    };
    const listed = async (commit: string, paths: string[]): Promise<Set<string>> =>
      new Set((await this.lsTree(commit, paths)).keys());
    const inFrom = await listed(from, [...after]);
    const inTo = await listed(to, [...before]);
    for (const path of after) {
      if (before.has(path)) byPath.delete(path);
      else tooLarge(path, inFrom.has(path) ? 'modified' : 'added');
    }
    for (const path of before) {
      if (!after.has(path)) tooLarge(path, inTo.has(path) ? 'modified' : 'deleted');
    }
  }

  private async lsTree(commit: string, paths: string[]): Promise<Map<string, TreeEntry>> {
    const entries = new Map<string, TreeEntry>();
    for (let i = 0; i < paths.length; i += 500) {
      const batch = paths.slice(i, i + 500);
      const out = await this.git.run([
        '--literal-pathspecs',
        'ls-tree',
        '-r',
        '-z',
        '-l',
        '--full-tree',
        commit,
        '--',
        ...batch,
      ]);
      for (const line of splitNul(out.stdout)) {
        const tab = line.indexOf('\t');
        const [mode = '', type = '', id = '', size = ''] = line.slice(0, tab).split(/ +/);
        entries.set(line.slice(tab + 1), {
          mode,
          type,
          id,
          size: size === '-' ? undefined : Number(size),
        });
      }
    }
    return entries;
  }

  private async diffNow(
    from: string,
    to: string,
    options: { paths?: string[]; maxBytes?: number },
  ): Promise<DiffResult> {
    await this.verify(from, to);
    const maxBytes = options.maxBytes ?? DEFAULT_DIFF_BYTES;
    const paths = (options.paths ?? []).map(normalizeRelativePath);
    const args = [
      '--literal-pathspecs',
      'diff-tree',
      '-p',
      '-r',
      '--no-renames',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      from,
      to,
      ...(paths.length > 0 ? ['--', ...paths] : []),
    ];
    try {
      const out = await this.git.run(args, { maxBuffer: maxBytes + 1 });
      return { patch: out.stdout, truncated: false };
    } catch (error) {
      if (!(error instanceof OutputLimitError)) throw error;
      const partial = String(error.partial).slice(0, maxBytes);
      const cut = partial.lastIndexOf('\n');
      return { patch: cut >= 0 ? partial.slice(0, cut + 1) : partial, truncated: true };
    }
  }

  private async restoreNow(to: string, request: RestoreRequest): Promise<RestoreResult> {
    const parsed = RestoreRequest.safeParse(request);
    if (!parsed.success) {
      throw new CheckpointError(
        'invalid-request',
        `restore: ${parsed.error.issues[0]?.message ?? 'bad request'}`,
      );
    }
    const { expected, force } = parsed.data;
    await this.verify(to, expected);
    // Every path is checked before anything is read or written. One that now leads out of
    // the workspace (a directory swapped for a link) fails alone; the others are restored.
    const refused: RestoreFailure[] = [];
    const paths = [...new Set(request.paths.map(normalizeRelativePath))].filter((path) => {
      try {
        checkConfined(this.root, path);
        return true;
      } catch (error) {
        refused.push({ path, reason: toCheckpointError(error, `restoring ${path}`).message });
        return false;
      }
    });
    const requested = new Set(paths);

    const [target, recorded, skippedTo, skippedExpected] = await Promise.all([
      this.lsTree(to, paths),
      this.lsTree(expected, paths),
      this.skippedAt(to),
      this.skippedAt(expected),
    ]);
    for (const entries of [target, recorded]) {
      for (const [path, entry] of entries) {
        if (!requested.has(path) || entry.type !== 'blob') {
          const named = paths.find((p) => path.startsWith(`${p}/`)) ?? path;
          throw new CheckpointError(
            'unsafe-path',
            `${named} names a directory; restore takes file paths`,
          );
        }
      }
    }

    const skipped = paths.filter((p) => skippedTo.has(p) || skippedExpected.has(p));
    const restorable = paths.filter((p) => !skipped.includes(p));
    const idLength = to.length;
    const conflicts: string[] = [];
    for (const path of restorable) {
      const want = recorded.get(path);
      const now = await currentState(this.root, path, idLength, want?.size);
      if (!sameState(now, want)) conflicts.push(path);
    }
    if (conflicts.length > 0 && !force) return { ok: false, conflicts };

    const contents = await this.readBlobs(
      restorable.flatMap((p) => {
        const entry = target.get(p);
        return entry ? [entry] : [];
      }),
    );
    const restored: string[] = [];
    const failed: RestoreFailure[] = [...refused];
    for (const path of restorable) {
      const entry = target.get(path);
      try {
        if (!entry) await removeWorkspaceFile(this.root, path);
        else {
          const mode = entry.mode === '100755' || entry.mode === '120000' ? entry.mode : '100644';
          await writeWorkspaceFile(this.root, path, contents.get(entry.id)!, mode);
        }
        restored.push(path);
      } catch (error) {
        // Includes a directory swapped for an outside link since the check: refused, not written.
        failed.push({ path, reason: toCheckpointError(error, `restoring ${path}`).message });
      }
    }
    return { ok: true, restored, conflicts, skipped, failed };
  }

  /** Blob contents by id, in one `cat-file --batch` call. */
  private async readBlobs(entries: TreeEntry[]): Promise<Map<string, Buffer>> {
    const ids = [...new Set(entries.map((e) => e.id))];
    const result = new Map<string, Buffer>();
    if (ids.length === 0) return result;
    const total = entries.reduce((sum, e) => sum + (e.size ?? 0), 0);
    const out = await this.git.runBuffer(['cat-file', '--batch'], {
      input: ids.map((id) => `${id}\n`).join(''),
      maxBuffer: total + ids.length * 200 + 1024,
    });
    let at = 0;
    const data = out.stdout;
    for (const id of ids) {
      const eol = data.indexOf(10, at);
      const header = data.subarray(at, eol).toString();
      const [gotId, type, size] = header.split(' ');
      if (gotId !== id || type !== 'blob' || size === undefined) {
        throw new CheckpointError(
          'git-failed',
          `git cat-file: unexpected answer for ${id}: ${header}`,
        );
      }
      const start = eol + 1;
      result.set(id, Buffer.from(data.subarray(start, start + Number(size))));
      at = start + Number(size) + 1;
    }
    return result;
  }
}

function sameState(now: FileState, recorded: TreeEntry | undefined): boolean {
  if (!recorded) return now.kind === 'absent';
  if (now.kind !== 'blob') return false;
  const mode = recorded.mode === '100755' || recorded.mode === '120000' ? recorded.mode : '100644';
  return now.mode === mode && now.id === recorded.id;
}

/** [major, minor] of the git program, or why it cannot be used. */
async function gitVersion(gitPath: string): Promise<[number, number] | string> {
  return new Promise((resolveVersion) => {
    execFile(
      gitPath,
      ['--version'],
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
        timeout: 10_000,
        windowsHide: true,
      },
      (error, stdout) => {
        if (error) {
          const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
          resolveVersion(
            missing
              ? `checkpoints (undo of agent turns) are off: git was not found${gitPath === 'git' ? ' on PATH' : ` at ${gitPath}`}; install git to turn them on`
              : `checkpoints are off: ${gitPath} --version failed: ${error.message}`,
          );
          return;
        }
        const match = /git version (\d+)\.(\d+)/.exec(stdout);
        resolveVersion(
          match
            ? [Number(match[1]), Number(match[2])]
            : `checkpoints are off: ${gitPath} does not look like git (${stdout.trim().slice(0, 100)})`,
        );
      },
    );
  });
}

async function initShadow(
  gitPath: string,
  shadowDir: string,
  homeDir: string,
  root: string,
): Promise<void> {
  await mkdir(shadowDir, { recursive: true });
  const env = gitEnvironment({ gitPath, gitDir: shadowDir, workTree: root, homeDir });
  // `init` refuses GIT_DIR/GIT_WORK_TREE together; it gets the directory as an argument.
  delete env.GIT_DIR;
  delete env.GIT_WORK_TREE;
  await new Promise<void>((done, fail) => {
    execFile(
      gitPath,
      ['init', '-q', '--bare', shadowDir],
      { env, cwd: shadowDir, timeout: 30_000, windowsHide: true },
      (error, _stdout, stderr) =>
        error ? fail(new Error(String(stderr) || error.message)) : done(),
    );
  });
  await writeFile(join(shadowDir, 'HEAD'), `ref: ${REF}\n`);
  await writeFile(join(shadowDir, 'arbor-workspace'), `${root}\n`);
}

/**
 * `info/exclude` and `info/attributes` of the shadow repo, rewritten on each
 * open. The attributes make git store every file's bytes as they are: no
 * end-of-line conversion, clean filter or ident expansion from the
 * workspace's `.gitattributes`, so a restored file is byte-equal.
 */
async function writeShadowRules(shadowDir: string, root: string, dataDir: string): Promise<void> {
  await mkdir(join(shadowDir, 'info'), { recursive: true });
  const exclude = ['# Written by Arbor checkpoints on every open.', '.git'];
  // A data directory inside the workspace must not snapshot itself.
  const fromRoot = relative(root, await realpath(dataDir).catch(() => dataDir));
  if (fromRoot !== '' && !fromRoot.startsWith('..') && !fromRoot.startsWith(sep)) {
    exclude.push(`/${fromRoot.split(sep).join('/')}/`);
  }
  await writeFile(join(shadowDir, 'info', 'exclude'), `${exclude.join('\n')}\n`);
  await writeFile(
    join(shadowDir, 'info', 'attributes'),
    '* -text -eol -filter -ident -working-tree-encoding\n',
  );
}

/** An `index.lock` left by a killed git (we run one call at a time, each bounded). */
async function removeStaleIndexLock(shadowDir: string): Promise<void> {
  const lock = join(shadowDir, 'index.lock');
  const stats = await lstat(lock).catch(() => undefined);
  if (stats && Date.now() - stats.mtimeMs > ADD_TIMEOUT_MS) await rm(lock, { force: true });
}
