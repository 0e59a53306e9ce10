/** Sessions, attach and roles (sessions.md). */
import { Methods } from '@arbor/protocol';
import path from 'node:path';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import { type DaemonContext, describe, errorCode } from './context.js';

export const sessions: Scenario<DaemonContext> = {
  id: 'daemon-sessions',
  role: 'daemon',
  title: 'new, list, load, unknown ids, bad roots, attach as observer, observers cannot chat',
  checks: [
    'daemon.sessions.new',
    'daemon.sessions.invalid-workspace-root',
    'daemon.sessions.list',
    'daemon.sessions.load',
    'daemon.sessions.not-found',
    'daemon.sessions.attach-role',
    'daemon.sessions.observer-cannot-control',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const { conn } = await ctx.connect();
    const created = await conn.request(
      Methods.SessionNew.method,
      { workspaceRoot: ctx.workspace, permissionMode: 'plan' },
      { noResponseCheck: 'daemon.sessions.new' },
    );
    const info = created?.result as JsonObject | undefined;
    if (!info) {
      r.fail('daemon.sessions.new', `session/new got ${describe(created)}`);
      throw new Abort('no session');
    }
    r.expect(
      'daemon.sessions.new',
      info.state === 'idle' &&
        info.workspaceRoot === ctx.workspace &&
        info.permissionMode === 'plan',
      `session/new answered state ${String(info.state)}, root ${String(info.workspaceRoot)}, mode ${String(info.permissionMode)}; expected idle, ${ctx.workspace}, plan`,
    );
    const sessionId = info.sessionId as string;

    for (const root of [path.join(ctx.workspace, 'does-not-exist'), 'relative/root']) {
      const bad = await conn.request(
        Methods.SessionNew.method,
        { workspaceRoot: root },
        { noResponseCheck: 'daemon.sessions.invalid-workspace-root' },
      );
      if (bad)
        r.expect(
          'daemon.sessions.invalid-workspace-root',
          errorCode(bad) === -33009,
          `session/new with root ${root} got ${describe(bad)}, expected -33009`,
        );
    }

    const list = await conn.request(
      Methods.SessionList.method,
      {},
      { noResponseCheck: 'daemon.sessions.list' },
    );
    const listed = ((list?.result as JsonObject | undefined)?.sessions ?? []) as JsonObject[];
    r.expect(
      'daemon.sessions.list',
      listed.some((s) => s.sessionId === sessionId),
      `session/list does not include the new session: ${describe(list)}`,
    );

    const load = await conn.request(
      Methods.SessionLoad.method,
      { sessionId },
      { noResponseCheck: 'daemon.sessions.load' },
    );
    const loaded = load?.result as { session?: JsonObject; messages?: unknown } | undefined;
    r.expect(
      'daemon.sessions.load',
      loaded?.session?.sessionId === sessionId && Array.isArray(loaded?.messages),
      `session/load got ${describe(load)}`,
    );

    const missing = await conn.request(
      Methods.SessionLoad.method,
      { sessionId: 'conformance-no-such-session' },
      { noResponseCheck: 'daemon.sessions.not-found' },
    );
    if (missing)
      r.expect(
        'daemon.sessions.not-found',
        errorCode(missing) === -33004,
        `session/load of an unknown id got ${describe(missing)}, expected -33004`,
      );

    // Re-attach the creator as an observer: then it may watch but not drive.
    await conn.request(Methods.SessionDetach.method, { sessionId });
    const attach = await conn.request(
      Methods.SessionAttach.method,
      { sessionId, role: 'observer' },
      { noResponseCheck: 'daemon.sessions.attach-role' },
    );
    const attached = attach?.result as JsonObject | undefined;
    if (
      !r.expect(
        'daemon.sessions.attach-role',
        attached?.role === 'observer',
        `session/attach as observer got ${describe(attach)}`,
      )
    )
      return;
    const chat = await conn.request(
      Methods.ChatSend.method,
      { sessionId, text: 'an observer may not start a turn' },
      { noResponseCheck: 'daemon.sessions.observer-cannot-control' },
    );
    if (chat)
      r.expect(
        'daemon.sessions.observer-cannot-control',
        errorCode(chat) === -33006,
        `chat/send by an observer got ${describe(chat)}, expected -33006`,
      );
  },
};
