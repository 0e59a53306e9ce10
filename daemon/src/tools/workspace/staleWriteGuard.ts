/**
 * The stale-write guard. The agent may only overwrite or edit a file as it
 * last saw it: when a file changed on disk after the agent's last read (or
 * write) of it in this session, the write is refused and the model is told to
 * read it again. A chokidar watcher on the workspace notices changes as they
 * happen (content hashes tell an external edit from the agent's own write, or
 * from a bare touch); a stat + hash check at write time covers what the
 * watcher has not reported yet.
 *
 * Cheap on big trees: the watcher watches the files the agent has read or
 * written in this session, not the whole workspace (bench/watcher.ts: a
 * whole-tree chokidar watch of 50,000 files takes seconds and hundreds of MiB,
 * and one inotify watch per file). It never follows symbolic links (so never
 * leaves the root) and skips node_modules and .git; files there still get
 * the write-time check. glob and grep read the disk at call time, so they are
 * always fresh without it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, relative, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

/** Directories the watcher never enters. */
export const UNWATCHED_DIRECTORIES = ['node_modules', '.git'];

interface Seen {
  hash: string;
  mtimeMs: number;
  size: number;
  /** The watcher saw the content change since the agent last saw it. */
  changed: boolean;
}

export function hashOf(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

export function watchedPathFilter(rootReal: string): (path: string) => boolean {
  return (path: string) => {
    const rel = relative(rootReal, path);
    if (rel === '' || rel.startsWith('..')) return false;
    return rel.split(sep).some((part) => UNWATCHED_DIRECTORIES.includes(part));
  };
}

export interface WatcherHandle {
  /** Resolves when the paths given so far are watched. */
  readonly ready: Promise<void>;
  /** Watches one more path (a file, or a directory with everything below it). */
  add(path: string): void;
  /** Stops watching a path given to add. */
  unwatch(path: string): void;
  /** The path is watched now (chokidar sets a watch up shortly after add). */
  isWatching(path: string): boolean;
  close(): Promise<void>;
}

/** A chokidar watcher inside a workspace, as the guard and the benchmark use it. */
export function watchWorkspace(
  rootReal: string,
  onChange: (path: string) => void,
  onError: (error: unknown) => void = () => undefined,
  initial: readonly string[] = [],
): WatcherHandle {
  const watcher: FSWatcher = watch([...initial], {
    ignoreInitial: true,
    followSymlinks: false,
    ignored: watchedPathFilter(rootReal),
    persistent: false,
  });
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  watcher.on('change', onChange).on('unlink', onChange).on('add', onChange);
  watcher.on('error', onError);
  return {
    ready,
    add: (path) => void watcher.add(path),
    unwatch: (path) => void watcher.unwatch(path),
    isWatching: (path) => watcher.getWatched()[dirname(path)]?.includes(basename(path)) ?? false,
    close: () => watcher.close(),
  };
}

export class StaleWriteGuard {
  private readonly seen = new Map<string, Seen>();
  private watcher: WatcherHandle | undefined;
  private closed = false;

  constructor(
    private readonly rootReal: string,
    private readonly options: { watch: boolean; log?: (message: string) => void } = { watch: true },
  ) {}

  /** Resolves once every file seen so far is watched (tests). */
  async ready(timeoutMs = 3000): Promise<void> {
    this.startWatching();
    const watcher = this.watcher;
    if (!watcher) return;
    const deadline = Date.now() + timeoutMs;
    const ignored = watchedPathFilter(this.rootReal);
    while (
      [...this.seen.keys()].some((p) => !ignored(p) && !watcher.isWatching(p)) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** The agent read (or wrote) `real` with this content. */
  saw(real: string, content: Buffer | string, stats?: Stats): void {
    this.startWatching();
    const stat = stats ?? statSync(real);
    const first = !this.seen.has(real);
    this.seen.set(real, {
      hash: hashOf(content),
      mtimeMs: stat.mtimeMs,
      size: stat.size,
      changed: false,
    });
    if (first) this.watcher?.add(real);
  }

  /**
   * The agent saw `real` with this content where the disk is not the truth
   * (an editor's buffer, workspaceIo.ts): judged by content alone, see staleText.
   */
  sawText(real: string, content: Buffer | string): void {
    this.seen.set(real, { hash: hashOf(content), mtimeMs: Number.NaN, size: -1, changed: false });
  }

  /** The agent has read or written `real` in this session. */
  hasSeen(real: string): boolean {
    return this.seen.has(real);
  }

  /**
   * Why writing `real` must be refused, given its content now where the
   * agent saw it (`undefined`: it is gone there), or undefined.
   */
  staleText(real: string, display: string, current: string | undefined): string | undefined {
    const seen = this.seen.get(real);
    if (seen === undefined) return undefined;
    const reread = `Read ${display} again (read_file) and redo the change on its current content.`;
    if (current === undefined)
      return `${display} was deleted or moved after you last read it. ${reread}`;
    if (hashOf(current) !== seen.hash)
      return `${display} changed in the editor after you last read it (someone else edited it). ${reread}`;
    return undefined;
  }

  /** The agent deleted `real` itself: creating it again is not a stale write. */
  forget(real: string): void {
    if (this.seen.delete(real)) this.watcher?.unwatch(real);
  }

  /** Why writing `real` must be refused now, or undefined when it may go ahead. */
  staleReason(real: string, display: string): string | undefined {
    const seen = this.seen.get(real);
    if (seen === undefined) return undefined;
    const reread = `Read ${display} again (read_file) and redo the change on its current content.`;
    let stat: Stats;
    try {
      stat = statSync(real);
    } catch {
      return `${display} was deleted or moved on disk after you last read it. ${reread}`;
    }
    if (seen.changed || stat.mtimeMs !== seen.mtimeMs || stat.size !== seen.size) {
      let current: string;
      try {
        current = hashOf(readFileSync(real));
      } catch {
        return `${display} cannot be read to check it is unchanged. ${reread}`;
      }
      if (current !== seen.hash) {
        return `${display} changed on disk after you last read it (someone else edited it). ${reread}`;
      }
      seen.changed = false;
      seen.mtimeMs = stat.mtimeMs;
      seen.size = stat.size;
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    const watcher = this.watcher;
    this.watcher = undefined;
    await watcher?.close();
  }

  private startWatching(): void {
    if (this.watcher || this.closed || !this.options.watch) return;
    this.watcher = watchWorkspace(
      this.rootReal,
      (path) => this.onDiskChange(path),
      (error) => this.options.log?.(`workspace watcher: ${String(error)}`),
    );
  }

  private onDiskChange(path: string): void {
    const seen = this.seen.get(path);
    if (seen === undefined) return;
    let hash: string | undefined;
    try {
      hash = hashOf(readFileSync(path));
    } catch {
      hash = undefined;
    }
    if (hash !== seen.hash) seen.changed = true;
  }
}
