/**
 * Keeps a workspace's SearchIndex current. The first search starts the build
 * in the background: it lists the tree, then re-reads only the files whose
 * mtime or size changed since the index was last saved, in slices of a few
 * milliseconds between turns of the event loop, so other sessions go on. A
 * watcher on each indexed directory (one inotify watch per directory, not
 * per file) notes what changes; a search first re-indexes the paths noted
 * since the last one. Same rules as grep: `.gitignore`, node_modules and
 * .git skipped, symbolic links not followed, binary files and files over
 * 1 MiB not indexed.
 *
 * One index per workspace root, shared by the sessions that search it. It
 * closes (database and watchers) when the last of them is released, after
 * IDLE_CLOSE_MS without a search (a session that ended stops searching; the
 * index on disk makes reopening cheap), and when the daemon exits.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import { realRoot } from '../workspace/confinement.js';
import { looksBinary, walkFiles } from '../workspace/fileTools.js';
import { IgnoreStack } from '../workspace/pathPatterns.js';
import { withFile } from '../workspace/safeFs.js';
import { SearchIndex, type IndexHit, type IndexQuery, type IndexedFile } from './searchIndex.js';

export const MAX_INDEXED_FILE_BYTES = 1024 * 1024;
/** The build works this long between two turns of the event loop. */
const SLICE_MS = 10;
/** Content written per commit of the build (see SearchIndex.begin). */
const COMMIT_BYTES = 8 * 1024 * 1024;
/** Beyond this many directories changes are found by a walk at each search instead. */
const MAX_WATCHED_DIRECTORIES = 20_000;
/** An index nobody searched for this long is closed; the next search reopens it. */
export const IDLE_CLOSE_MS = 10 * 60_000;

export interface BuildStats {
  files: number;
  /** Characters read into the index by this build (files found unchanged not counted). */
  bytes: number;
  ms: number;
}

/** Where a build in progress is: files listed, then files checked against the index. */
export interface BuildProgress {
  phase: 'listing' | 'indexing';
  /** Files checked (read, or found unchanged). */
  checked: number;
  /** Files to check: known once listed; before, those the index held (0 if new). */
  total: number;
  /** Whether the index held files before this build (its results may be out of date). */
  refreshing: boolean;
}

export interface IndexSearch {
  hits: Generator<IndexHit>;
  /** Set when the answer comes from an index still being built. */
  building: BuildProgress | undefined;
}

/** Whether `rel` is skipped by the index's rules (an ignored or skipped ancestor included). */
function isSkipped(rootReal: string, rel: string, isDirectory: boolean): boolean {
  const parts = rel.split('/');
  if (parts.some((part) => part === '.git' || part === 'node_modules')) return true;
  let ignore = new IgnoreStack().enter(rootReal, '');
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    if (ignore.ignores(dir, true)) return true;
    ignore = ignore.enter(rootReal, dir);
  }
  return ignore.ignores(rel, isDirectory);
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class WorkspaceIndex {
  /** The build in progress; it never rejects (a failure is kept in `failure`). */
  private building: Promise<void> | undefined;
  /** The last build finished and nothing since asked for another. */
  private built = false;
  private failure: unknown;
  private progress: BuildProgress = { phase: 'listing', checked: 0, total: 0, refreshing: false };
  private lastBuild: BuildStats | undefined;
  private closed = false;
  private readonly dirty = new Set<string>();
  private readonly watchers = new Map<string, FSWatcher>();
  /** A watcher failed or there are too many directories: walk the tree at the next search. */
  private rescan = false;
  private readonly rootReal: string;

  constructor(
    private readonly root: string,
    private readonly index: SearchIndex,
  ) {
    this.rootReal = realRoot(root);
  }

  /** Resolves once the tree is indexed (the first call starts the build); rejects if it failed. */
  async ready(): Promise<BuildStats> {
    this.startBuild();
    await this.building;
    if (this.closed) throw new Error('the search index was closed');
    this.throwFailure();
    return this.lastBuild ?? { files: this.index.fileCount, bytes: 0, ms: 0 };
  }

  /**
   * Files containing every term, in index order, after re-indexing what
   * changed. While the index is being built this waits at most `waitMs` for
   * it, then answers from what is indexed so far and says how far the build
   * is: a model can use that answer, retry, or grep, where a call blocked
   * for the whole build of a large tree (half a minute) would stall the turn.
   */
  async search(query: IndexQuery, waitMs: number): Promise<IndexSearch> {
    if (this.closed) throw new Error('the search index is closed');
    if (this.rescan && this.built) {
      this.rescan = false;
      this.dirty.clear();
      this.built = false;
    }
    this.startBuild();
    if (!this.built) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.building,
        new Promise((resolve) => (timer = setTimeout(resolve, waitMs))),
      ]);
      clearTimeout(timer);
      if (this.closed) throw new Error('the search index was closed');
      this.throwFailure();
    }
    if (this.built) this.refreshDirty();
    return {
      hits: this.index.matches(query),
      building: this.built ? undefined : { ...this.progress },
    };
  }

  /** Files the index holds whose name contains a term (see SearchIndex.namedMatches). */
  namedMatches(query: IndexQuery, limit: number): IndexHit[] {
    return this.index.namedMatches(query, limit);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.index.close();
  }

  private startBuild(): void {
    if (this.built || this.building !== undefined || this.closed) return;
    this.building = this.build()
      .then((stats) => {
        if (stats !== undefined) {
          this.lastBuild = stats;
          this.built = true;
        }
      })
      .catch((error: unknown) => {
        if (!this.closed) this.failure = error; // the next search reports it, then tries again
      })
      .finally(() => {
        this.building = undefined;
      });
  }

  private throwFailure(): void {
    const failure = this.failure;
    if (failure === undefined) return;
    this.failure = undefined;
    throw failure;
  }

  /** Lists the tree, then brings the index in line with it; undefined if closed meanwhile. */
  private async build(): Promise<BuildStats | undefined> {
    const started = performance.now();
    const held = this.index.fileCount;
    this.progress = { phase: 'listing', checked: 0, total: held, refreshing: held > 0 };
    let slice = performance.now();
    const sliceOver = (): boolean => performance.now() - slice >= SLICE_MS;
    const paths: string[] = [];
    const walk = walkFiles(this.root, this.rootReal, '', {
      includeIgnored: false,
      onDirectory: (dir) => this.watch(dir),
    });
    for (const path of walk) {
      paths.push(path);
      if (sliceOver()) {
        await nextTurn();
        if (this.closed) return undefined;
        slice = performance.now();
      }
    }
    this.progress = { ...this.progress, phase: 'indexing', total: paths.length };
    this.index.begin();
    let bytes = 0;
    try {
      let written = 0;
      for (const path of paths) {
        const read = this.refreshFile(path);
        bytes += read;
        written += read;
        this.progress.checked += 1;
        if (written >= COMMIT_BYTES) {
          this.index.commit();
          this.index.begin();
          written = 0;
        }
        if (sliceOver()) {
          await nextTurn();
          if (this.closed) return undefined;
          slice = performance.now();
        }
      }
      const seen = new Set(paths);
      for (const path of this.index.paths()) if (!seen.has(path)) this.index.remove(path);
      this.index.commit();
      this.index.checkpoint();
    } catch (error) {
      if (!this.closed) this.index.rollback();
      throw error;
    }
    return { files: paths.length, bytes, ms: Math.round(performance.now() - started) };
  }

  private watch(dir: string): void {
    if (this.watchers.has(dir)) return;
    if (this.watchers.size >= MAX_WATCHED_DIRECTORIES) {
      this.rescan = true;
      return;
    }
    try {
      const watcher = watch(join(this.rootReal, dir), { persistent: false }, (_event, name) => {
        if (name === null) this.rescan = true;
        else this.dirty.add(dir === '' ? name : `${dir}/${name}`);
      });
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(dir);
        this.rescan = true;
      });
      this.watchers.set(dir, watcher);
    } catch {
      this.rescan = true;
    }
  }

  /**
   * Re-reads one file when its mtime or size changed; drops it when it cannot
   * be indexed. Returns the characters written.
   */
  private refreshFile(rel: string): number {
    let read: { stamp: IndexedFile; content: string | undefined } | 'unchanged';
    try {
      read = withFile(this.root, join(this.rootReal, rel), rel, (file) => {
        const stamp = { mtimeMs: file.stats.mtimeMs, size: file.stats.size };
        if (!file.stats.isFile()) return { stamp, content: undefined };
        const known = this.index.stamp(rel);
        if (known?.mtimeMs === stamp.mtimeMs && known.size === stamp.size) return 'unchanged';
        if (stamp.size > MAX_INDEXED_FILE_BYTES) return { stamp, content: undefined };
        const bytes = file.read();
        return { stamp, content: looksBinary(bytes) ? undefined : bytes.toString('utf8') };
      });
    } catch {
      this.index.remove(rel); // gone, unreadable, or swapped for a link
      return 0;
    }
    if (read === 'unchanged') return 0;
    this.index.put(rel, read.stamp, read.content);
    return read.content?.length ?? 0;
  }

  private refreshDirty(): void {
    if (this.dirty.size === 0) return;
    const paths = [...this.dirty];
    this.dirty.clear();
    if (paths.some((path) => basename(path) === '.gitignore')) {
      // The rules changed: let the next search walk the tree (unchanged files are not re-read).
      this.rescan = true;
    }
    this.index.batch(() => {
      for (const rel of paths) {
        let isDirectory: boolean;
        try {
          const stats = lstatSync(join(this.rootReal, rel));
          if (!stats.isFile() && !stats.isDirectory()) throw new Error('not indexed');
          isDirectory = stats.isDirectory();
        } catch {
          this.removeUnder(rel);
          continue;
        }
        if (isSkipped(this.rootReal, rel, isDirectory)) {
          this.removeUnder(rel);
        } else if (isDirectory) {
          const walk = walkFiles(this.root, this.rootReal, rel, {
            includeIgnored: false,
            onDirectory: (dir) => this.watch(dir),
          });
          for (const file of walk) this.refreshFile(file);
        } else {
          this.refreshFile(rel);
        }
      }
    });
  }

  /** A path that is gone or now skipped: the file, or everything that was below the directory. */
  private removeUnder(rel: string): void {
    this.index.remove(rel);
    // Only a directory that was indexed had files below it, and every such one is watched.
    if (!this.watchers.has(rel)) return;
    const prefix = `${rel}/`;
    for (const path of this.index.paths()) if (path.startsWith(prefix)) this.index.remove(path);
    for (const [dir, watcher] of this.watchers) {
      if (dir === rel || dir.startsWith(prefix)) {
        watcher.close();
        this.watchers.delete(dir);
      }
    }
  }
}

interface OpenIndex {
  index: WorkspaceIndex;
  /** The sessions' workspaces that search it (see releaseWorkspaceIndex). */
  users: Set<object>;
  idle: NodeJS.Timeout | undefined;
}

const indexes = new Map<string, OpenIndex>();
let closesAtExit = false;

/**
 * The index of the workspace at `root`, kept in `<dataDir>/search/`: opened
 * on first use, shared by every caller for the same root. `user` (a
 * session's Workspace) counts as one of its users until released.
 */
export function workspaceIndex(root: string, dataDir: string, user?: object): WorkspaceIndex {
  const rootReal = realRoot(root);
  const key = `${dataDir}\0${rootReal}`;
  let open = indexes.get(key);
  if (open === undefined) {
    const dir = join(dataDir, 'search');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = createHash('sha256').update(rootReal).digest('hex').slice(0, 24);
    const index = new WorkspaceIndex(root, new SearchIndex(join(dir, `${name}.db`)));
    open = { index, users: new Set(), idle: undefined };
    indexes.set(key, open);
    if (!closesAtExit) {
      closesAtExit = true;
      // A clean close folds the write-ahead log back into the database file.
      process.once('exit', closeWorkspaceIndexes);
    }
  }
  if (user !== undefined) open.users.add(user);
  clearTimeout(open.idle);
  open.idle = setTimeout(() => closeIndex(key), IDLE_CLOSE_MS);
  open.idle.unref();
  return open.index;
}

/** `user` searches no more (its session is gone): an index it was the last user of closes. */
export function releaseWorkspaceIndex(user: object): void {
  for (const [key, open] of indexes)
    if (open.users.delete(user) && open.users.size === 0) closeIndex(key);
}

function closeIndex(key: string): void {
  const open = indexes.get(key);
  if (open === undefined) return;
  indexes.delete(key);
  clearTimeout(open.idle);
  open.index.close();
}

/** Closes every open index (daemon shutdown, tests). */
export function closeWorkspaceIndexes(): void {
  for (const key of [...indexes.keys()]) closeIndex(key);
}

/** How many indexes are open (tests). */
export function openWorkspaceIndexCount(): number {
  return indexes.size;
}
