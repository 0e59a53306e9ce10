/**
 * What each turn changed, and undoing it, at the `arbor chat` prompt
 * (checkpoints.md): the changed files printed after a turn, `/undo [n]`
 * (checkpoint/restore to before the last — or n-th last — turn that changed
 * files, asking first and again before overwriting files changed since) and
 * `/diff [n]` (checkpoint/diff of that turn, coloured on a terminal).
 */
import {
  ArborErrorCodes,
  CheckpointConflictData,
  Methods,
  type CheckpointRestoreResult,
  type FileChangeStatus,
  type StoredMessage,
  type TurnChanges,
} from '@arbor/protocol';
import type { ArborClient, SessionView } from '@arbor/protocol/client';
import type { Style } from './terminalStyle.js';

export const UNDO_COMMAND = '/undo';
export const DIFF_COMMAND = '/diff';

const LETTER: Record<FileChangeStatus, string> = { added: 'A', modified: 'M', deleted: 'D' };

/** `  M src/io.py +3 −1` per file, then `  and N more`. */
export function formatChanges(changes: TurnChanges, style: Style): string[] {
  const lines = changes.files.map((file) => {
    const letter = LETTER[file.status];
    const coloured =
      file.status === 'added'
        ? style.green(letter)
        : file.status === 'deleted'
          ? style.red(letter)
          : style.yellow(letter);
    const counts = file.binary
      ? style.dim('binary')
      : `${style.green(`+${file.added}`)} ${style.red(`−${file.removed}`)}`;
    return `  ${coloured} ${file.path} ${counts}`;
  });
  if (changes.omitted) lines.push(style.dim(`  and ${changes.omitted} more`));
  return lines;
}

/** The turn's changed files under a heading, or nothing when it changed none. */
export function formatTurnChanges(changes: TurnChanges | undefined, style: Style): string[] {
  if (!changes || (changes.files.length === 0 && !changes.omitted)) return [];
  const count = changes.files.length + (changes.omitted ?? 0);
  return [
    style.bold(`Changed ${count} file${count === 1 ? '' : 's'}:`),
    ...formatChanges(changes, style),
  ];
}

/** A unified diff, coloured like git's: headers bold, hunks cyan, lines added green, removed red. */
export function colorDiff(diff: string, style: Style): string[] {
  const lines = diff.replace(/\n$/, '').split('\n');
  return lines.map((line) => {
    if (
      /^(diff --git|index |--- |\+\+\+ |new file|deleted file|similarity|rename |Binary)/.test(line)
    )
      return style.bold(line);
    if (line.startsWith('@@')) return style.cyan(line);
    if (line.startsWith('+')) return style.green(line);
    if (line.startsWith('-')) return style.red(line);
    return line;
  });
}

/** The turn node's `changes` in a view's tree (the turn node is the root). */
export function changesOfView(view: SessionView): TurnChanges | undefined {
  for (const root of view.tree.roots()) if (root.changes) return root.changes;
  return undefined;
}

interface ChangedTurn {
  turnId: string;
  /** The user's message, to name the turn. */
  text: string;
  changes: TurnChanges;
}

/**
 * The session's turns that changed files, oldest first, without those a
 * restore here already undid. A continued session (`--session`) learns the
 * earlier ones from session/load the first time they are needed.
 */
export class ChangedTurns {
  readonly #turns: ChangedTurn[] = [];
  #loaded = false;

  record(turnId: string, text: string, changes: TurnChanges | undefined): void {
    if (!changes || this.#turns.some((t) => t.turnId === turnId)) return;
    this.#turns.push({ turnId, text, changes });
  }

  /** The n-th last changed turn (1: the last), or undefined. */
  async nth(client: ArborClient, view: SessionView, n: number): Promise<ChangedTurn | undefined> {
    await this.#load(client, view);
    return this.#turns[this.#turns.length - n];
  }

  get count(): number {
    return this.#turns.length;
  }

  /** Every turn from `turnId` on: what a restore to before it undoes. */
  from(turnId: string): ChangedTurn[] {
    const index = this.#turns.findIndex((t) => t.turnId === turnId);
    return index < 0 ? [] : this.#turns.slice(index);
  }

  /** After a restore to before `turnId`: it and the later turns are undone. */
  restored(turnId: string): void {
    const index = this.#turns.findIndex((t) => t.turnId === turnId);
    if (index >= 0) this.#turns.splice(index);
  }

  async #load(client: ArborClient, view: SessionView): Promise<void> {
    if (this.#loaded) return;
    this.#loaded = true;
    let messages: StoredMessage[];
    try {
      messages = (await client.request(Methods.SessionLoad, { sessionId: view.sessionId }))
        .messages;
    } catch {
      return; // what this process saw is all there is to undo
    }
    const known = new Set(this.#turns.map((t) => t.turnId));
    const earlier: ChangedTurn[] = [];
    for (const m of messages) {
      if (m.role !== 'assistant' || known.has(m.turnId)) continue;
      const changes = m.tree?.nodes.find((n) => n.parentId === null)?.changes;
      const text = messages.find((u) => u.turnId === m.turnId && u.role === 'user')?.content;
      if (changes) earlier.push({ turnId: m.turnId, text: text ?? m.turnId, changes });
    }
    this.#turns.unshift(...earlier);
  }
}

/** How the commands talk to the user: lines out, and a yes/no question. */
export interface CommandIo {
  print(lines: readonly string[]): void;
  /** true only for an explicit yes. */
  confirm(question: string): Promise<boolean>;
  style: Style;
}

/** `/undo` or `/undo <n>`: n (≥ 1), or undefined when the line is not the command; NaN for a bad n. */
export function parseTurnCommand(line: string, command: string): number | undefined {
  if (line !== command && !line.startsWith(`${command} `)) return undefined;
  const arg = line.slice(command.length).trim();
  if (arg === '') return 1;
  return /^[1-9]\d*$/.test(arg) ? Number(arg) : Number.NaN;
}

function available(client: ArborClient): boolean {
  const capability = Methods.CheckpointRestore.capability;
  return !capability || client.hasCapability(capability);
}

function name(turn: ChangedTurn): string {
  const text = turn.text.replace(/\s+/g, ' ').trim();
  return `“${text.length > 60 ? `${text.slice(0, 59)}…` : text}”`;
}

function nothing(log: ChangedTurns): string {
  return log.count === 0
    ? 'no turn of this session changed files'
    : `only ${log.count} turn${log.count === 1 ? '' : 's'} of this session changed files`;
}

/** Runs `/undo [n]`. */
export async function runUndoCommand(
  client: ArborClient,
  view: SessionView,
  log: ChangedTurns,
  n: number,
  io: CommandIo,
): Promise<void> {
  const { style } = io;
  if (Number.isNaN(n))
    return io.print([`usage: ${UNDO_COMMAND} [n]  (n: how many changed turns back)`]);
  if (!available(client)) return io.print(['this daemon keeps no checkpoints; nothing to undo']);
  const target = await log.nth(client, view, n);
  if (!target) return io.print([nothing(log)]);
  if (!target.changes.restorable)
    return io.print([`the files before ${name(target)} were not recorded; it cannot be undone`]);
  const undone = log.from(target.turnId);
  const files = new Map<string, TurnChanges['files'][number]>();
  let omitted = 0;
  for (const turn of undone) {
    for (const file of turn.changes.files) if (!files.has(file.path)) files.set(file.path, file);
    omitted += turn.changes.omitted ?? 0;
  }
  const later = undone.length - 1;
  io.print([
    `Restore the files to before ${name(target)}${later > 0 ? ` (and undo ${later} later turn${later === 1 ? '' : 's'})` : ''}?`,
    ...formatChanges({ files: [...files.values()], restorable: true, omitted }, style),
  ]);
  if (!(await io.confirm('Restore? [y/N] '))) return io.print(['nothing restored']);
  const params = { sessionId: view.sessionId, turnId: target.turnId };
  let result: CheckpointRestoreResult;
  try {
    result = await client.request(Methods.CheckpointRestore, params);
  } catch (error) {
    const conflict = conflictOf(error);
    if (!conflict) return io.print([restoreError(error)]);
    io.print([
      style.yellow(
        'These files changed since this session last changed them; nothing was restored:',
      ),
      ...conflict.map((path) => `  ${path}`),
    ]);
    if (!(await io.confirm('Overwrite them too? [y/N] '))) return io.print(['nothing restored']);
    try {
      result = await client.request(Methods.CheckpointRestore, { ...params, force: true });
    } catch (retryError) {
      return io.print([restoreError(retryError)]);
    }
  }
  log.restored(target.turnId);
  io.print(formatRestoreResult(result, style));
}

/** Runs `/diff [n]`. */
export async function runDiffCommand(
  client: ArborClient,
  view: SessionView,
  log: ChangedTurns,
  n: number,
  io: CommandIo,
): Promise<void> {
  if (Number.isNaN(n))
    return io.print([`usage: ${DIFF_COMMAND} [n]  (n: how many changed turns back)`]);
  if (!available(client)) return io.print(['this daemon keeps no checkpoints; no diff to show']);
  const target = await log.nth(client, view, n);
  if (!target) return io.print([nothing(log)]);
  try {
    const { diff, truncated } = await client.request(Methods.CheckpointDiff, {
      sessionId: view.sessionId,
      turnId: target.turnId,
    });
    io.print([
      io.style.dim(`changes of ${name(target)}:`),
      ...(diff === '' ? ['(no textual changes)'] : colorDiff(diff, io.style)),
      ...(truncated ? [io.style.yellow('(the diff was cut at 1,000,000 characters)')] : []),
    ]);
  } catch (error) {
    io.print([`no diff: ${error instanceof Error ? error.message : String(error)}`]);
  }
}

function formatRestoreResult(result: CheckpointRestoreResult, style: Style): string[] {
  const n = result.restored.length;
  const lines = [style.green(`restored ${n} file${n === 1 ? '' : 's'}`)];
  lines.push(...result.restored.map((path) => `  ${path}`));
  if (result.overwritten?.length)
    lines.push(style.yellow(`overwrote changes made since: ${result.overwritten.join(', ')}`));
  for (const failed of result.failed ?? [])
    lines.push(style.red(`  not restored: ${failed.path} (${failed.reason})`));
  return lines;
}

function conflictOf(error: unknown): string[] | undefined {
  const e = error as { code?: unknown; data?: unknown } | null;
  if (e?.code !== ArborErrorCodes.CheckpointConflict) return undefined;
  const data = CheckpointConflictData.safeParse(e.data);
  return data.success ? data.data.files : [];
}

function restoreError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === ArborErrorCodes.TurnInProgress)
    return 'a turn is running in this session; undo when it has ended';
  if (code === ArborErrorCodes.CheckpointUnavailable)
    return 'that turn has no checkpoint to restore';
  if (code === ArborErrorCodes.NotController)
    return 'only a controller of the session can restore files';
  return `nothing restored: ${error instanceof Error ? error.message : String(error)}`;
}
