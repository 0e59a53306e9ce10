/**
 * Checkpoints (checkpoints.md, protocol 1.1), driven by the scripted provider:
 * the suite fills the scenario's workspace with a few files, runs a turn in
 * `auto` mode that modifies one, creates one and deletes one, and judges what
 * the turn node says it changed, what `session/load` keeps, `checkpoint/diff`,
 * and `checkpoint/restore` as the files on disk show it.
 *
 * A daemon's own tools are its business, so the script uses the two the
 * reference daemon and Arbor's daemon both offer: `write_file` (`path`,
 * `content`) and `run_command` (`command`, a POSIX shell in the workspace
 * root) for the deletion. Every scenario needs `capabilities.checkpoints`
 * (a 1.0 daemon is skipped), `testing.scriptedProvider` and those two tools
 * (per `tools/list`). A turn node that announces no restorable checkpoint
 * (no `changes`, or `restorable: false`, which the spec allows) leaves the
 * diff and restore checks unjudged.
 */
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { ArborErrorCodes, Methods } from '@arbor/protocol';
import type { Recorder } from '../../checks/results.js';
import type { JsonObject, ResponseMessage } from '../../harness/connection.js';
import { makeTempDir, removeDir } from '../../harness/process.js';
import type { Scenario } from '../scenario.js';
import { Abort, Skip } from '../scenario.js';
import {
  type DaemonContext,
  type Initialized,
  describe,
  errorCode,
  notes,
  requireDaemonCapability,
} from './context.js';
import { canonical } from './approvals.js';
import { FINAL_STATUSES } from './turnEnd.js';
import { isTurnEvent, scriptedSession, send, waitTurnEnd } from './turns.js';

const TURN_CHANGES = 'daemon.checkpoints.turn-changes';
const CHANGES_STORED = 'daemon.checkpoints.changes-stored';
const RESTORE_FILES = 'daemon.checkpoints.restore-files';
const RESTORE_CONFLICT = 'daemon.checkpoints.restore-conflict';
const RESTORE_BUSY = 'daemon.checkpoints.restore-busy';
const RESTORE_CONTROLLER = 'daemon.checkpoints.restore-controller';
const RESTORE_UNKNOWN = 'daemon.checkpoints.restore-unknown-turn';
const RESTORE_CONFINED = 'daemon.checkpoints.restore-confined';
const DIFF = 'daemon.checkpoints.diff';

/** The workspace before the turn. */
const INITIAL: Record<string, string> = {
  'a.txt': 'alpha\nbeta\ngamma\n',
  'c.txt': 'doomed\nline\n',
  'keep.txt': 'never touched\n',
};
const A_AFTER = 'alpha\nBETA\ngamma\n';
const B_AFTER = 'fresh\nsecond\n';
/** What the turn changed, as `changes.files` must list it. */
const EXPECTED = [
  { path: 'a.txt', status: 'modified', added: 1, removed: 1 },
  { path: 'c.txt', status: 'deleted', added: 0, removed: 2 },
  { path: 'new/b.txt', status: 'added', added: 2, removed: 0 },
];

const CHANGE = 'conformance: change the workspace';
const LOOK = 'conformance: look only';
const BUSY = 'conformance: keep busy';
const write = (id: string, file: string, content: string): JsonObject => ({
  id,
  name: 'write_file',
  arguments: { path: file, content },
});
const SCRIPT: JsonObject = {
  'change the workspace': [
    {
      toolCalls: [
        write('conformance-write-a', 'a.txt', A_AFTER),
        write('conformance-write-b', 'new/b.txt', B_AFTER),
        { id: 'conformance-rm-c', name: 'run_command', arguments: { command: 'rm c.txt' } },
      ],
    },
    { text: 'Changed the workspace.' },
  ],
  'look only': [{ text: 'Nothing to change.' }],
  'keep busy': [{ text: 'Still thinking.', delayMs: 5000 }],
};

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 400) ?? 'missing';

type Files = Map<string, Buffer>;

/** Every regular file under `root` (symbolic links not followed), by relative path with '/'. */
function filesOf(root: string): Files {
  const files: Files = new Map();
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), rel);
      else if (entry.isFile()) files.set(rel, readFileSync(path.join(dir, entry.name)));
      else if (entry.isSymbolicLink()) files.set(rel, Buffer.from(`-> symlink`));
    }
  };
  walk(root, '');
  return files;
}

/** How `now` differs from `then`, in words; empty when the same. */
function difference(then: Files, now: Files): string {
  const out: string[] = [];
  for (const [p, content] of then) {
    const after = now.get(p);
    if (!after) out.push(`${p} is gone`);
    else if (!after.equals(content))
      out.push(`${p} is ${show(after.toString('utf8'))}, was ${show(content.toString('utf8'))}`);
  }
  for (const p of now.keys()) if (!then.has(p)) out.push(`${p} appeared`);
  return out.join('; ');
}

function seed(root: string, files: Record<string, string>): void {
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    writeFileSync(path.join(root, p), content);
  }
}

/** Connects, skips without checkpoints / scripted provider / the two tools, opens an auto session. */
async function setup(ctx: DaemonContext): Promise<{ c: Initialized; sessionId: string }> {
  const c = await ctx.connect('controller');
  requireDaemonCapability(c.init, 'checkpoints');
  requireDaemonCapability(c.init, 'testing.scriptedProvider');
  const sessionId = await scriptedSession(ctx, c, SCRIPT, 'auto');
  const listed = await c.conn.request(Methods.ToolsList.method, { sessionId });
  const names = (((listed?.result as JsonObject | undefined)?.tools ?? []) as JsonObject[]).map(
    (t) => t.name,
  );
  const missing = ['write_file', 'run_command'].filter((n) => !names.includes(n));
  if (missing.length > 0)
    throw new Skip(
      `the session's tools/list has no ${missing.join(' or ')}, the built-in tools the suite's script changes files with`,
    );
  return { c, sessionId };
}

interface Turn {
  turnId: string;
  /** The turn node's id (kind turn, parentId null). */
  nodeId: string | undefined;
  /** `changes` of the upsert that gave the turn node its final status. */
  changes: JsonObject | undefined;
}

/** Runs one turn to its end; the turn node's id and final `changes`. */
async function runTurn(
  ctx: DaemonContext,
  c: Initialized,
  sessionId: string,
  text: string,
): Promise<Turn> {
  const turnId = await send(ctx, c.conn, sessionId, text);
  await waitTurnEnd(ctx, c.conn, sessionId, turnId);
  const updates = notes(c.conn, sessionId).filter(
    (e) => e.method === Methods.TreeUpdate.method && e.params.turnId === turnId,
  );
  const nodes = updates.flatMap((u) => (u.params.nodes ?? []) as JsonObject[]);
  const nodeId = nodes.find((n) => n.kind === 'turn' && n.parentId === null)?.id as
    string | undefined;
  const final = nodes.find((n) => n.id === nodeId && FINAL_STATUSES.has(String(n.status)));
  return { turnId, nodeId, changes: final?.changes as JsonObject | undefined };
}

/** checkpoints-turn-changes, for the turn that modified, created and deleted one file each. */
function judgeTurnChanges(r: Recorder, c: Initialized, sessionId: string, turn: Turn): void {
  const updates = notes(c.conn, sessionId).filter(
    (e) => e.method === Methods.TreeUpdate.method && e.params.turnId === turn.turnId,
  );
  const elsewhere = updates
    .flatMap((u) => (u.params.nodes ?? []) as JsonObject[])
    .filter((n) => n.id !== turn.nodeId && n.changes !== undefined);
  if (elsewhere.length > 0) {
    r.fail(
      TURN_CHANGES,
      `changes on a node other than the turn node: ${show(elsewhere.map((n) => ({ id: n.id, kind: n.kind, changes: n.changes })))}`,
    );
    return;
  }
  const files = (turn.changes?.files ?? []) as JsonObject[];
  const listed = files.map((f) => String(f.path)).sort();
  const twice = listed.filter((p, i) => listed.indexOf(p) !== i);
  const wrong = EXPECTED.filter((e) => {
    const got = files.find((f) => f.path === e.path);
    return !got || got.status !== e.status || got.added !== e.added || got.removed !== e.removed;
  });
  const extra = listed.filter((p) => !EXPECTED.some((e) => e.path === p));
  r.expect(
    TURN_CHANGES,
    turn.changes !== undefined &&
      twice.length === 0 &&
      wrong.length === 0 &&
      extra.length === 0 &&
      !turn.changes.omitted,
    turn.changes === undefined
      ? `the upsert that gave the turn node ${String(turn.nodeId)} its final status carries no changes, though the turn modified a.txt, created new/b.txt and deleted c.txt`
      : `the turn node's final changes ${show(turn.changes)}; expected each of ${show(EXPECTED)} once${twice.length ? ` (listed twice: ${twice.join(', ')})` : ''}${extra.length ? ` and nothing else (also: ${extra.join(', ')})` : ''}`,
  );
}

/** The turn announced a checkpoint restore can use; otherwise the restore and diff checks stay unjudged. */
function restorable(turn: Turn): void {
  if (turn.changes?.restorable !== true)
    throw new Skip(
      `the turn node announces no restorable checkpoint (changes ${show(turn.changes)}): restore and diff are not judged`,
    );
}

const restore = (
  c: Initialized,
  sessionId: string,
  turnId: string,
  force?: boolean,
): Promise<ResponseMessage | undefined> =>
  c.conn.request(Methods.CheckpointRestore.method, {
    sessionId,
    turnId,
    ...(force === undefined ? {} : { force }),
  });

/** A turn that changed files through two tools: then restore, diff and their errors. */
export const checkpointRestore: Scenario<DaemonContext> = {
  id: 'daemon-checkpoint-restore',
  role: 'daemon',
  title:
    'a turn modifies, creates and deletes a file: its final turn upsert and session/load list them; checkpoint/diff shows them (path limits it); restore for a turn without checkpoint, for an unknown turn and by an observer changes nothing; restore puts every file back and leaves the rest alone',
  checks: [TURN_CHANGES, CHANGES_STORED, DIFF, RESTORE_UNKNOWN, RESTORE_CONTROLLER, RESTORE_FILES],
  async run(ctx) {
    const r = ctx.recorder;
    const root = ctx.workspace;
    seed(root, INITIAL);
    const initial = filesOf(root);
    const { c, sessionId } = await setup(ctx);
    const changed = await runTurn(ctx, c, sessionId, CHANGE);
    const afterTurn = filesOf(root);
    const b = afterTurn.get('new/b.txt')?.toString('utf8');
    if (
      afterTurn.get('a.txt')?.toString('utf8') !== A_AFTER ||
      b !== B_AFTER ||
      afterTurn.has('c.txt')
    )
      throw new Skip(
        `the turn's write_file and run_command calls did not change the workspace as scripted: ${difference(initial, afterTurn) || 'nothing changed'}`,
      );
    judgeTurnChanges(r, c, sessionId, changed);
    const looked = await runTurn(ctx, c, sessionId, LOOK);

    // checkpoints-changes-stored
    if (changed.changes !== undefined) {
      const loaded = await c.conn.request(Methods.SessionLoad.method, { sessionId });
      const messages = ((loaded?.result as JsonObject | undefined)?.messages ?? []) as JsonObject[];
      const stored = messages
        .filter((m) => m.turnId === changed.turnId)
        .flatMap((m) => ((m.tree as JsonObject | undefined)?.nodes ?? []) as JsonObject[])
        .find((n) => n.id === changed.nodeId);
      r.expect(
        CHANGES_STORED,
        stored !== undefined && canonical(stored.changes) === canonical(changed.changes),
        stored === undefined
          ? `session/load holds no stored tree with the turn node ${String(changed.nodeId)} (${describe(loaded)})`
          : `the stored turn node's changes ${show(stored.changes)} differ from the streamed ${show(changed.changes)}`,
      );
    }
    restorable(changed);

    // checkpoints-diff
    const all = await c.conn.request(Methods.CheckpointDiff.method, {
      sessionId,
      turnId: changed.turnId,
    });
    const diff = String((all?.result as JsonObject | undefined)?.diff ?? '');
    const missing = [...EXPECTED.map((e) => e.path), '-beta', '+BETA', '+fresh', '-doomed'].filter(
      (s) => !diff.includes(s),
    );
    const one = await c.conn.request(Methods.CheckpointDiff.method, {
      sessionId,
      turnId: changed.turnId,
      path: 'a.txt',
    });
    const oneDiff = String((one?.result as JsonObject | undefined)?.diff ?? '');
    const none = await c.conn.request(Methods.CheckpointDiff.method, {
      sessionId,
      turnId: looked.turnId,
    });
    const problems = [
      !all?.result || missing.length > 0
        ? `the turn's diff ${all?.result ? `lacks ${missing.join(', ')}: ${show(diff)}` : `got ${describe(all)}`}`
        : '',
      (all?.result as JsonObject | undefined)?.truncated === true
        ? 'a diff of a few lines came with truncated: true'
        : '',
      !one?.result || !oneDiff.includes('a.txt') || /new\/b\.txt|c\.txt/.test(oneDiff)
        ? `the diff limited to path a.txt ${one?.result ? `is ${show(oneDiff)}` : `got ${describe(one)}`}`
        : '',
      errorCode(none) !== ArborErrorCodes.CheckpointUnavailable
        ? `checkpoint/diff for a turn that changed nothing got ${describe(none)}, expected -33013`
        : '',
    ].filter(Boolean);
    r.expect(DIFF, problems.length === 0, problems.join('; '));

    // checkpoints-restore-unknown-turn
    const nothing = await restore(c, sessionId, looked.turnId);
    const unknown = await restore(c, sessionId, 'conformance-no-such-turn');
    const afterUnknown = filesOf(root);
    r.expect(
      RESTORE_UNKNOWN,
      errorCode(nothing) === ArborErrorCodes.CheckpointUnavailable &&
        errorCode(unknown) === ArborErrorCodes.CheckpointUnavailable &&
        difference(afterTurn, afterUnknown) === '',
      `checkpoint/restore for a turn that changed nothing got ${describe(nothing)}, for an unknown turnId ${describe(unknown)} (expected -33013 for both); the workspace ${difference(afterTurn, afterUnknown) || 'is unchanged'}`,
    );

    // checkpoints-restore-controller: the same client, re-attached as an observer.
    const stepped = await c.conn.request(Methods.SessionAttach.method, {
      sessionId,
      role: 'observer',
    });
    if ((stepped?.result as JsonObject | undefined)?.role !== 'observer') {
      r.fail('daemon.sessions.attach-role', `re-attaching as observer got ${describe(stepped)}`);
      throw new Abort('attach failed');
    }
    const refused = await restore(c, sessionId, changed.turnId);
    const afterObserver = filesOf(root);
    r.expect(
      RESTORE_CONTROLLER,
      errorCode(refused) === ArborErrorCodes.NotController &&
        difference(afterTurn, afterObserver) === '',
      `checkpoint/restore by an observer got ${describe(refused)} (expected -33006); the workspace ${difference(afterTurn, afterObserver) || 'is unchanged'}`,
    );
    const back = await c.conn.request(Methods.SessionAttach.method, {
      sessionId,
      role: 'controller',
    });
    if ((back?.result as JsonObject | undefined)?.role !== 'controller') {
      r.fail('daemon.sessions.attach-role', `re-attaching as controller got ${describe(back)}`);
      throw new Abort('attach failed');
    }

    // checkpoints-restore-files: the user's own file, made after the turn, stays.
    writeFileSync(path.join(root, 'later.txt'), 'the user wrote this after the turn\n');
    const expected = new Map(initial).set(
      'later.txt',
      Buffer.from('the user wrote this after the turn\n'),
    );
    const restored = await restore(c, sessionId, changed.turnId);
    const afterRestore = filesOf(root);
    r.expect(
      RESTORE_FILES,
      restored?.result !== undefined && difference(expected, afterRestore) === '',
      `checkpoint/restore got ${describe(restored)}; against the workspace before the turn (plus the user's later.txt): ${difference(expected, afterRestore) || 'the same'}`,
    );
  },
};

/** A file the turn changed is edited on disk after it: -33012 and nothing changed, then force. */
export const checkpointConflict: Scenario<DaemonContext> = {
  id: 'daemon-checkpoint-conflict',
  role: 'daemon',
  title:
    'a file the turn changed is edited on disk after it: checkpoint/restore answers -33012 listing it in data.files and changes nothing; with force it restores',
  checks: [RESTORE_CONFLICT],
  async run(ctx) {
    const r = ctx.recorder;
    const root = ctx.workspace;
    seed(root, INITIAL);
    const initial = filesOf(root);
    const { c, sessionId } = await setup(ctx);
    const turn = await runTurn(ctx, c, sessionId, CHANGE);
    restorable(turn);
    writeFileSync(path.join(root, 'a.txt'), 'the user edited this\n');
    const edited = filesOf(root);
    const refused = await restore(c, sessionId, turn.turnId);
    const afterRefused = filesOf(root);
    const files = (refused?.error?.data as JsonObject | undefined)?.files;
    if (
      !r.expect(
        RESTORE_CONFLICT,
        errorCode(refused) === ArborErrorCodes.CheckpointConflict &&
          Array.isArray(files) &&
          canonical(files) === canonical(['a.txt']) &&
          difference(edited, afterRefused) === '',
        `checkpoint/restore after a.txt was edited on disk got ${describe(refused)} with data ${show(refused?.error?.data)} (expected -33012 with data.files ["a.txt"]); the workspace ${difference(edited, afterRefused) || 'is unchanged'}`,
      )
    )
      return;
    const forced = await restore(c, sessionId, turn.turnId, true);
    const afterForced = filesOf(root);
    r.expect(
      RESTORE_CONFLICT,
      forced?.result !== undefined && difference(initial, afterForced) === '',
      `checkpoint/restore with force got ${describe(forced)}; against the workspace before the turn: ${difference(initial, afterForced) || 'the same'}`,
    );
  },
};

/** checkpoint/restore while a later turn runs: -33005, nothing changed. */
export const checkpointBusy: Scenario<DaemonContext> = {
  id: 'daemon-checkpoint-busy',
  role: 'daemon',
  title:
    "checkpoint/restore of a turn that changed files, while the session's next turn runs: -33005 and nothing changed",
  checks: [RESTORE_BUSY],
  async run(ctx) {
    const r = ctx.recorder;
    const root = ctx.workspace;
    seed(root, INITIAL);
    const { c, sessionId } = await setup(ctx);
    const turn = await runTurn(ctx, c, sessionId, CHANGE);
    restorable(turn);
    const afterTurn = filesOf(root);
    const running = await send(ctx, c.conn, sessionId, BUSY);
    await c.conn.waitFor(isTurnEvent(sessionId, running), 3000);
    const refused = await restore(c, sessionId, turn.turnId);
    const afterRefused = filesOf(root);
    await c.conn.request(Methods.ChatCancel.method, { sessionId, turnId: running });
    await waitTurnEnd(ctx, c.conn, sessionId, running);
    r.expect(
      RESTORE_BUSY,
      errorCode(refused) === ArborErrorCodes.TurnInProgress &&
        difference(afterTurn, afterRefused) === '',
      `checkpoint/restore while a turn ran got ${describe(refused)} (expected -33005); the workspace ${difference(afterTurn, afterRefused) || 'is unchanged'}`,
    );
  },
};

/**
 * The directory holding a changed file is replaced by a symbolic link to a
 * directory outside the workspace, whose file has the content the turn left:
 * whatever the restore answers (a conflict, then forced), nothing outside is
 * written.
 */
export const checkpointConfined: Scenario<DaemonContext> = {
  id: 'daemon-checkpoint-confined',
  role: 'daemon',
  title:
    'after the turn the directory of a file it changed becomes a symbolic link to a directory outside the workspace: checkpoint/restore (forced on a conflict) writes nothing there',
  checks: [RESTORE_CONFINED],
  async run(ctx) {
    const r = ctx.recorder;
    const root = ctx.workspace;
    seed(root, INITIAL);
    seed(root, { 'new/b.txt': 'before the turn\n' });
    const { c, sessionId } = await setup(ctx);
    const turn = await runTurn(ctx, c, sessionId, CHANGE);
    restorable(turn);
    const outside = makeTempDir('arbor-conformance-outside-');
    try {
      // Just what the turn left there: a daemon that follows the link sees no conflict.
      writeFileSync(path.join(outside, 'b.txt'), readFileSync(path.join(root, 'new/b.txt')));
      rmSync(path.join(root, 'new'), { recursive: true, force: true });
      symlinkSync(outside, path.join(root, 'new'), 'dir');
      const before = filesOf(outside);
      let answer = await restore(c, sessionId, turn.turnId);
      if (errorCode(answer) === ArborErrorCodes.CheckpointConflict)
        answer = await restore(c, sessionId, turn.turnId, true);
      const after = filesOf(outside);
      const link = lstatSync(path.join(root, 'new'), { throwIfNoEntry: false });
      r.expect(
        RESTORE_CONFINED,
        difference(before, after) === '',
        `checkpoint/restore got ${describe(answer)}; outside the workspace, in the directory new/ now links to: ${difference(before, after)}${link?.isSymbolicLink() ? '' : ' (new/ is no link any more)'}`,
      );
    } finally {
      removeDir(outside);
    }
  },
};
