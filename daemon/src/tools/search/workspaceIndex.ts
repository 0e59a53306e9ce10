/**
 * Keeps a workspace's SearchIndex current. The first search builds it in the
 * background — the walk goes in batches, yielding to the event loop between
 * them, and re-reads only files whose mtime or size changed since the index
 * was last saved — while a watcher on each indexed directory (one inotify
 * watch per directory, not per file) notes what changes; a search first
 * re-indexes the paths noted since the last one. Same rules as grep:
 * `.gitignore`, node_modules and .git skipped, symbolic links not followed,
 * binary files and files over 1 MiB not indexed. One index per workspace
 * root, shared by its sessions, for as long as the daemon runs.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import { realRoot } from '../workspace/confinement.js';
import { looksBinary, walkFiles } from '../workspace/fileTools.js';
import { IgnoreStack } from '../workspace/pathPatterns.js';
import { withFile } from '../workspace/safeFs.js';
import { SearchIndex, type IndexHit, type IndexedFile } from './searchIndex.js';

export const MAX_INDEXED_FILE_BYTES = 1024 * 1024;
/** Files read per batch of the build, between two turns of the event loop. */
const BUILD_BATCH = 200;
/** Beyond this many directories changes are found by a walk at each search instead. */
const MAX_WATCHED_DIRECTORIES = 20_000;

export interface BuildStats {
  files: number;
  ms: number;
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

export class WorkspaceIndex {
  private building: Promise<BuildStats> | undefined;
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

  /** Resolves once the tree is indexed; the first call starts the build. */
  ready(): Promise<BuildStats> {
    this.building ??= this.build().catch((error: unknown) => {
      this.building = undefined; // the next search tries again
      throw error;
    });
    return this.building;
  }

  /** Files containing every term, best first, after re-indexing what changed. */
  async search(terms: readonly string[]): Promise<Generator<IndexHit>> {
    await this.ready();
    if (this.rescan) {
      this.rescan = false;
      this.dirty.clear();
      this.building = undefined;
      await this.ready();
    }
    this.refreshDirty();
    return this.index.search(terms);
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.index.close();
  }

  private async build(): Promise<BuildStats> {
    const started = performance.now();
    const seen = new Set<string>();
    const walk = walkFiles(this.root, this.rootReal, '', {
      includeIgnored: false,
      onDirectory: (dir) => this.watch(dir),
    });
    for (let done = false; !done;) {
      this.index.batch(() => {
        for (let i = 0; i < BUILD_BATCH; i++) {
          const next = walk.next();
          if (next.done === true) {
            done = true;
            return;
          }
          seen.add(next.value);
          this.refreshFile(next.value);
        }
      });
      // Other sessions' work goes on while a large tree is indexed.
      if (!done) await new Promise((resolve) => setImmediate(resolve));
    }
    this.index.batch(() => {
      for (const path of this.index.paths()) if (!seen.has(path)) this.index.remove(path);
    });
    return { files: seen.size, ms: Math.round(performance.now() - started) };
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

  /** Re-reads one file when its mtime or size changed; drops it when it cannot be indexed. */
  private refreshFile(rel: string): void {
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
      return;
    }
    if (read !== 'unchanged') this.index.put(rel, read.stamp, read.content);
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

const indexes = new Map<string, WorkspaceIndex>();

/** The index of the workspace at `root`, kept in `<dataDir>/search/`; opened on first use. */
export function workspaceIndex(root: string, dataDir: string): WorkspaceIndex {
  const rootReal = realRoot(root);
  const key = `${dataDir}\0${rootReal}`;
  let index = indexes.get(key);
  if (index === undefined) {
    const dir = join(dataDir, 'search');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = createHash('sha256').update(rootReal).digest('hex').slice(0, 24);
    index = new WorkspaceIndex(root, new SearchIndex(join(dir, `${name}.db`)));
    indexes.set(key, index);
  }
  return index;
}

/** Closes every open index (tests, shutdown). */
export function closeWorkspaceIndexes(): void {
  for (const index of indexes.values()) index.close();
  indexes.clear();
}
