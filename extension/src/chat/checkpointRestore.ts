/**
 * "Restore to before this turn" without VS Code (checkpoints.md): what the
 * restore puts back, from the stored turns; the user's confirmation; the
 * conflict answer (-33012) and the forced retry. The dialogs are injected, so
 * the flow runs in Node tests against a real daemon.
 */
import {
  ArborErrorCodes,
  CheckpointConflictData,
  Methods,
  type CheckpointRestoreResult,
  type StoredMessage,
} from '@arbor/protocol';
import type { ArborClient } from '@arbor/protocol/client';

/** What "Restore to before this turn" would do, from the stored turns (session/load). */
export interface RestorePlan {
  /** The turn and every later one: their changes are undone together. */
  turnIds: string[];
  /** The files those turns changed, each once (what the confirmation lists). */
  files: string[];
  /** Files the turns changed but did not list (more than 200 in a turn). */
  omitted: number;
}

/**
 * A restore to before `turnId` puts back every file the session's turns
 * changed from that turn on (checkpoints-restore-files); undefined when the
 * store does not hold the turn.
 */
export function restorePlan(
  messages: readonly StoredMessage[],
  turnId: string,
): RestorePlan | undefined {
  const order: string[] = [];
  for (const m of messages) if (!order.includes(m.turnId)) order.push(m.turnId);
  const start = order.indexOf(turnId);
  if (start < 0) return undefined;
  const turnIds = order.slice(start);
  const files = new Set<string>();
  let omitted = 0;
  for (const m of messages) {
    if (m.role !== 'assistant' || !turnIds.includes(m.turnId)) continue;
    const changes = m.tree?.nodes.find((n) => n.parentId === null)?.changes;
    if (!changes) continue;
    for (const file of changes.files) files.add(file.path);
    omitted += changes.omitted ?? 0;
  }
  return { turnIds, files: [...files], omitted };
}

/** The files of a -33012 CheckpointConflict, or undefined for any other error. */
export function conflictFiles(error: unknown): string[] | undefined {
  const e = error as { code?: unknown; data?: unknown } | null;
  if (e?.code !== ArborErrorCodes.CheckpointConflict) return undefined;
  const data = CheckpointConflictData.safeParse(e.data);
  return data.success ? data.data.files : [];
}

export interface RestoreDialogs {
  /** Asks before anything changes: these files go back. */
  confirm(plan: RestorePlan): Promise<boolean>;
  /** Nothing was restored: these files changed since; overwrite them? */
  confirmOverwrite(files: readonly string[]): Promise<boolean>;
}

export type RestoreOutcome =
  | { kind: 'restored'; plan: RestorePlan; result: CheckpointRestoreResult }
  | { kind: 'declined' }
  /** The store does not hold the turn. */
  | { kind: 'unknownTurn' };

/**
 * Confirms, sends checkpoint/restore, and on a conflict asks whether to
 * overwrite and retries with `force`. Other errors (-33005 while a turn
 * runs, -33013 nothing to restore) are thrown for the caller to show.
 */
export async function restoreTurn(
  client: Pick<ArborClient, 'request'>,
  sessionId: string,
  turnId: string,
  dialogs: RestoreDialogs,
): Promise<RestoreOutcome> {
  const loaded = await client.request(Methods.SessionLoad, { sessionId });
  const plan = restorePlan(loaded.messages, turnId);
  if (!plan) return { kind: 'unknownTurn' };
  if (!(await dialogs.confirm(plan))) return { kind: 'declined' };
  try {
    const result = await client.request(Methods.CheckpointRestore, { sessionId, turnId });
    return { kind: 'restored', plan, result };
  } catch (error) {
    const files = conflictFiles(error);
    if (!files) throw error;
    if (!(await dialogs.confirmOverwrite(files))) return { kind: 'declined' };
    const result = await client.request(Methods.CheckpointRestore, {
      sessionId,
      turnId,
      force: true,
    });
    return { kind: 'restored', plan, result };
  }
}
