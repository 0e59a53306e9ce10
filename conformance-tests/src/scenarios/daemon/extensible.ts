/** What a client may add to its requests: string ids, `_meta`, members and capabilities of later versions (versioning.md). */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { type DaemonContext, describe } from './context.js';

const META = { _meta: { 'dev.example/trace': { id: 'conformance' } } };

export const extensibleRequests: Scenario<DaemonContext> = {
  id: 'daemon-extensible-requests',
  role: 'daemon',
  title:
    'requests with string ids, _meta on every object, unknown members and unknown capability fields are served as without them',
  checks: ['daemon.version.unknown-members-accepted'],
  async run(ctx) {
    const check = 'daemon.version.unknown-members-accepted';
    const problems: string[] = [];
    const { conn } = await ctx.open();
    const init = await conn.request(
      Methods.Initialize.method,
      {
        ...ctx.initializeParams({
          capabilities: {
            ...META,
            conformance: { futureOption: true, ...META },
            'dev.example/capability': { level: 2 },
          },
        }),
        conformanceFutureMember: { since: 99 },
        ...META,
      },
      { id: 'init-with-extras', noResponseCheck: check },
    );
    if (!init?.result) {
      ctx.recorder.fail(check, `initialize with unknown capability fields got ${describe(init)}`);
      return;
    }
    conn.notify(Methods.Initialized.method, META);

    const created = await conn.request(
      Methods.SessionNew.method,
      {
        workspaceRoot: ctx.workspace,
        permissionMode: 'plan',
        chatContext: { kind: 'thread', ...META, conformanceFutureMember: 1 },
        conformanceFutureMember: 'ignored',
        ...META,
      },
      { id: 'new-with-extras', noResponseCheck: check },
    );
    const info = created?.result as JsonObject | undefined;
    if (info?.workspaceRoot !== ctx.workspace || info.permissionMode !== 'plan')
      problems.push(`session/new with _meta and unknown members got ${describe(created)}`);
    const sessionId = info?.sessionId;

    const listed = await conn.request(
      Methods.SessionList.method,
      { workspaceRoot: ctx.workspace, ...META, conformanceFutureMember: true },
      { id: 'list-with-extras', noResponseCheck: check },
    );
    const sessions = ((listed?.result as JsonObject | undefined)?.sessions ?? []) as JsonObject[];
    if (!sessions.some((s) => s.sessionId === sessionId))
      problems.push(`session/list with _meta and unknown members got ${describe(listed)}`);

    if (typeof sessionId === 'string') {
      const mode = await conn.request(
        Methods.SessionSetPermissionMode.method,
        { sessionId, mode: 'default', ...META, conformanceFutureMember: [1] },
        { id: 'mode-with-extras', noResponseCheck: check },
      );
      if ((mode?.result as JsonObject | undefined)?.mode !== 'default')
        problems.push(
          `session/setPermissionMode with _meta and unknown members got ${describe(mode)}`,
        );
    }
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};
