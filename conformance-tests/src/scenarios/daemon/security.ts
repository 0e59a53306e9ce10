/**
 * Security (security.md) and the stored tree (tree.md#snapshot), as a client
 * sees them, driven by the scripted provider.
 *
 * Secrets: the one secret of a daemon the suite knows is the socket token
 * (socket targets only). The suite hands it to tools, has tools return it,
 * plants it in a workspace file that `run_command` prints and has the model
 * write it, then looks for it in everything the daemon sends back. Streamed
 * text deltas are not judged: a secret split across `chat/chunk` events may
 * escape redaction there (security.md#secrets), the stored answer may not.
 *
 * A command's environment: the suite sets the environment only of a daemon
 * it starts itself (stdio), and gives it variables a command must not see.
 *
 * Workspace tools are a daemon's own business, so each scenario uses the
 * built-in tools its session's `tools/list` gives, by the names and arguments
 * builtin-tools.md documents (`read_file`, `list_dir`, `write_file` with a
 * `path`, `run_command` with a `command`), and skips the checks that need a
 * tool the daemon does not offer.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import { removeDir } from '../../harness/process.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import {
  type DaemonContext,
  type Initialized,
  describe,
  notes,
  requireDaemonCapability,
} from './context.js';
import { canonical } from './approvals.js';
import { scriptedSession, send, waitTurnEnd } from './turns.js';

const NO_SECRETS = 'daemon.security.no-secrets-on-wire';
const REDACT = 'daemon.security.redact-known-secrets';
const MODEL_CREDENTIALS = 'daemon.security.model-credentials-stripped';
const CONFINED = 'daemon.security.workspace-confined';
const PROTECTED_RESOLVED = 'daemon.security.protected-paths-resolved';
const SANDBOX = 'daemon.security.command-sandbox';
const ENV_SCRUBBED = 'daemon.security.command-env-scrubbed';
const SNAPSHOT_FLAT = 'daemon.tree.snapshot-flat';
const SNAPSHOT_STREAM = 'daemon.tree.snapshot-equals-stream';

const MARKER = '[redacted]';
/** Statuses of a call that did not run or ended with an error result: refused. */
const REFUSED = new Set(['error', 'denied', 'blocked']);

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

/** The built-in tools a session offers, by name (empty when the daemon has no tools/list). */
async function toolNames(c: Initialized, sessionId: string): Promise<Set<string>> {
  if (c.init.capabilities.tools === undefined) return new Set();
  const listed = await c.conn.request(Methods.ToolsList.method, { sessionId });
  const tools = ((listed?.result as JsonObject | undefined)?.tools ?? []) as JsonObject[];
  return new Set(tools.filter((t) => t.origin !== 'client').map((t) => String(t.name)));
}

/** A session whose script is set once the tools it offers are known. */
async function toolSession(
  ctx: DaemonContext,
  c: Initialized,
  kind = 'thread',
): Promise<{ sessionId: string; names: Set<string> }> {
  const sessionId = await scriptedSession(ctx, c, { '*': [{ text: 'unused' }] }, 'auto', kind);
  return { sessionId, names: await toolNames(c, sessionId) };
}

async function setScript(c: Initialized, sessionId: string, conversations: JsonObject) {
  const set = await c.conn.request(Methods.SetScript.method, {
    sessionId,
    script: { version: 1, conversations },
  });
  if (!set || set.error) throw new Skip(`_arbor/testing/setScript failed: ${describe(set)}`);
}

/** Runs one turn to its end; its tree merged from its tree/updates, in first-appearance order. */
async function runTurn(
  ctx: DaemonContext,
  c: Initialized,
  sessionId: string,
  text: string,
): Promise<{ turnId: string; tree: Map<string, JsonObject> }> {
  const turnId = await send(ctx, c.conn, sessionId, text);
  await waitTurnEnd(ctx, c.conn, sessionId, turnId);
  const tree = new Map<string, JsonObject>();
  for (const n of notes(c.conn, sessionId))
    if (n.method === Methods.TreeUpdate.method && n.params.turnId === turnId)
      for (const node of (n.params.nodes ?? []) as JsonObject[])
        tree.set(String(node.id), { ...tree.get(String(node.id)), ...node });
  return { turnId, tree };
}

/** The tool nodes of a tree in the order they were announced. */
const toolNodes = (tree: Map<string, JsonObject>): JsonObject[] =>
  [...tree.values()].filter((n) => n.kind === 'tool');

/** One model reply per call, so the calls run, and are announced, in this order. */
const oneByOne = (calls: JsonObject[], end: string): JsonObject[] => [
  ...calls.map((call) => ({ toolCalls: [call] })),
  { text: end },
];

/** The assistant message session/load keeps for `turnId`. */
async function storedAnswer(
  c: Initialized,
  sessionId: string,
  turnId: string,
): Promise<JsonObject | undefined> {
  const loaded = await c.conn.request(Methods.SessionLoad.method, { sessionId });
  const messages = ((loaded?.result as JsonObject | undefined)?.messages ?? []) as JsonObject[];
  return messages.find((m) => m.role === 'assistant' && m.turnId === turnId);
}

const SECRET_TOOL = {
  name: 'conformance_secret_echo',
  description: 'A read-category client tool of the conformance suite; its result holds a secret.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  category: 'read',
};
const SECRET_FILE = 'conformance-secret.txt';

export const secretsRedacted: Scenario<DaemonContext> = {
  id: 'daemon-secrets-redacted',
  role: 'daemon',
  title:
    'the socket token, given to tools, returned by them, printed by run_command and written by the model, is in no message of the daemon and [redacted] where it was',
  checks: [NO_SECRETS, REDACT],
  async run(ctx) {
    const r = ctx.recorder;
    if (ctx.target.kind !== 'socket')
      throw new Skip(
        'needs a socket target (--socket): the socket token is the secret of the daemon the suite knows',
      );
    const token = ctx.target.token;
    // security-token-generated asks for 128 bits; a shorter value could be ordinary text.
    if (token.length < 16)
      throw new Skip(`the socket token has ${token.length} characters, too few to tell from text`);
    const c = await ctx.connect('secrets', {
      capabilities: { clientTools: {} },
      tools: [SECRET_TOOL],
    });
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    c.conn.handle(Methods.ToolExecute.method, () => ({
      content: `conformance: the client read ${token}`,
    }));
    writeFileSync(path.join(ctx.workspace, SECRET_FILE), `${token}\n`);
    const { sessionId, names } = await toolSession(ctx, c, 'editor');
    const key = 'conformance-secret';
    const command = names.has('run_command');
    const calls: JsonObject[] = [
      { id: 'secret-memory-write', name: 'memory_write', arguments: { key, value: token } },
      { id: 'secret-memory-read', name: 'memory_read', arguments: { key } },
      ...(c.init.capabilities.clientTools !== undefined
        ? [{ id: 'secret-client', name: SECRET_TOOL.name, arguments: { text: token } }]
        : []),
      ...(command
        ? [
            {
              id: 'secret-command',
              name: 'run_command',
              arguments: { command: `cat ${SECRET_FILE}` },
            },
          ]
        : []),
    ];
    const [first, ...rest] = oneByOne(calls, `conformance: done with ${token}.`);
    await setScript(c, sessionId, {
      'a secret': [{ ...first, text: `conformance: the token is ${token}. ` }, ...rest],
    });
    const { turnId, tree } = await runTurn(ctx, c, sessionId, 'conformance: a secret');
    const answer = await storedAnswer(c, sessionId, turnId);

    const leaks = c.conn.messages
      .map((m) => m.message as JsonObject)
      .filter((m) => m.method !== Methods.ChatChunk.method && JSON.stringify(m).includes(token))
      .map((m) => {
        if (m.method !== Methods.TreeUpdate.method)
          return String(m.method ?? `the response to request ${String(m.id)}`);
        const nodes = ((m.params as JsonObject).nodes ?? []) as JsonObject[];
        return `tree/update of ${nodes
          .filter((n) => JSON.stringify(n).includes(token))
          .map((n) => String(n.name))
          .join(', ')}`;
      });
    r.expect(
      NO_SECRETS,
      leaks.length === 0,
      `the socket token appears in ${[...new Set(leaks)].join('; ')}`,
    );

    const problems: string[] = [];
    const content = typeof answer?.content === 'string' ? answer.content : undefined;
    if (content === undefined)
      problems.push(`session/load keeps no answer text of the turn: ${show(answer)}`);
    else if (!content.includes(MARKER) || content.includes(token))
      problems.push(`the stored answer is ${show(content)}, expected the token as ${MARKER}`);
    if (command) {
      const node = toolNodes(tree).find((n) => n.name === 'run_command');
      const preview = typeof node?.resultPreview === 'string' ? node.resultPreview : '';
      if (!preview.includes(MARKER) || preview.includes(token))
        problems.push(
          `run_command printed the token, its result is ${show(node?.resultPreview)}, expected the token as ${MARKER}`,
        );
    }
    r.expect(REDACT, problems.length === 0, problems.join('; '));
  },
};

export const modelCredentials: Scenario<DaemonContext> = {
  id: 'daemon-model-credentials',
  role: 'daemon',
  title:
    'a local: model with credentials in its URL: session/new, session/list and session/load report it without them, and they appear in no message',
  checks: [MODEL_CREDENTIALS],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect('models');
    const password = `conformance-pw-${randomUUID().slice(0, 8)}`;
    const given = `local:conformance@http://conformance-user:${password}@127.0.0.1:9/v1`;
    const expected = 'local:conformance@http://127.0.0.1:9/v1';
    const created = await c.conn.request(Methods.SessionNew.method, {
      workspaceRoot: ctx.workspace,
      model: given,
    });
    const info = created?.result as JsonObject | undefined;
    if (!info)
      throw new Skip(
        `the daemon takes no local: model with credentials in its URL: session/new got ${describe(created)}`,
      );
    const sessionId = String(info.sessionId);
    const listed = await c.conn.request(Methods.SessionList.method, {
      workspaceRoot: ctx.workspace,
    });
    const entry = (
      ((listed?.result as JsonObject | undefined)?.sessions ?? []) as JsonObject[]
    ).find((s) => s.sessionId === sessionId);
    const loaded = await c.conn.request(Methods.SessionLoad.method, { sessionId });
    const stored = (loaded?.result as JsonObject | undefined)?.session as JsonObject | undefined;
    const reported: [string, unknown][] = [
      [Methods.SessionNew.method, info.model],
      [Methods.SessionList.method, entry?.model],
      [Methods.SessionLoad.method, stored?.model],
    ];
    if (reported.every(([, model]) => model === undefined))
      throw new Skip('the daemon reports no model of the session');
    const wrong = reported
      .filter(([, model]) => model !== undefined && model !== expected)
      .map(([where, model]) => `${where} reports ${show(model)}`);
    const leaks = c.conn.messages
      .map((m) => m.message as JsonObject)
      .filter((m) => JSON.stringify(m).includes(password))
      .map((m) => String(m.method ?? `the response to request ${String(m.id)}`));
    r.expect(
      MODEL_CREDENTIALS,
      wrong.length === 0 && leaks.length === 0,
      [
        ...wrong.map((w) => `${w}, expected ${expected}`),
        ...(leaks.length
          ? [`the URL's password appears in ${[...new Set(leaks)].join(', ')}`]
          : []),
      ].join('; '),
    );
  },
};

/** A client that denies whatever it is asked: a call the daemon asks about does not run. */
async function denyingClient(
  ctx: DaemonContext,
  label: string,
  env?: NodeJS.ProcessEnv,
): Promise<Initialized & { asked: JsonObject[] }> {
  const c = await ctx.connect(label, { capabilities: { approvals: {} }, ...(env && { env }) });
  const asked: JsonObject[] = [];
  c.conn.handle(Methods.ApprovalRequest.method, (params) => {
    asked.push(params as JsonObject);
    return { decision: 'deny' };
  });
  return { ...c, asked };
}

export const workspaceConfined: Scenario<DaemonContext> = {
  id: 'daemon-workspace-confined',
  role: 'daemon',
  title:
    'read_file, list_dir and write_file on paths out of the workspace (.., absolute, through a symbolic link): error results, nothing read, listed or changed there',
  checks: [CONFINED],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await denyingClient(ctx, 'confined');
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    const { sessionId, names } = await toolSession(ctx, c);
    const tools = ['read_file', 'list_dir', 'write_file'].filter((n) => names.has(n));
    if (tools.length === 0)
      throw new Skip("the session's tools/list has no read_file, list_dir or write_file");

    // A sibling of the workspace, so that `..` reaches it.
    const outside = mkdtempSync(
      path.join(path.dirname(ctx.workspace), 'arbor-conformance-outside-'),
    );
    try {
      const tag = randomUUID().slice(0, 8);
      const entry = `conformance-outside-${tag}.txt`;
      const secret = `conformance: outside the workspace ${tag}`;
      writeFileSync(path.join(outside, entry), secret);
      symlinkSync(outside, path.join(ctx.workspace, 'out-dir'));
      symlinkSync(path.join(outside, entry), path.join(ctx.workspace, 'out-file'));
      const up = path.relative(ctx.workspace, outside);
      const paths: Record<string, string[]> = {
        read_file: [`${up}/${entry}`, path.join(outside, entry), `out-dir/${entry}`, 'out-file'],
        list_dir: [up, outside, 'out-dir'],
        write_file: [
          `${up}/w-dotdot.txt`,
          path.join(outside, 'w-absolute.txt'),
          'out-dir/w-link.txt',
          'out-file',
        ],
      };
      const calls = tools.flatMap((name) =>
        paths[name]!.map((p, i) => ({
          id: `confined-${name}-${i + 1}`,
          name,
          arguments:
            name === 'write_file' ? { path: p, content: 'conformance: not here' } : { path: p },
        })),
      );
      await setScript(c, sessionId, { 'stay inside': oneByOne(calls, 'Stayed inside.') });
      const { tree } = await runTurn(ctx, c, sessionId, 'conformance: stay inside');
      const nodes = toolNodes(tree);
      const problems: string[] = [];
      if (nodes.length !== calls.length)
        problems.push(
          `${calls.length} calls were scripted, the turn's tree has ${nodes.length} tool nodes`,
        );
      calls.forEach((call, i) => {
        const node = nodes[i];
        if (!node || node.name !== call.name) return;
        const what = `${call.name} ${show(call.arguments.path)}`;
        const preview = String(node.resultPreview ?? '');
        if (!REFUSED.has(String(node.status)))
          problems.push(`${what} ended ${String(node.status)}, not with an error result`);
        if (call.name === 'read_file' && preview.includes(secret))
          problems.push(`${what} showed the outside file: ${show(preview)}`);
        if (call.name === 'list_dir' && preview.includes(entry))
          problems.push(`${what} listed the outside directory: ${show(preview)}`);
      });
      const after = readdirSync(outside);
      if (after.length !== 1 || readFileSync(path.join(outside, entry), 'utf8') !== secret)
        problems.push(`the directory outside the workspace changed: it holds ${after.join(', ')}`);
      r.expect(CONFINED, problems.length === 0, problems.join('; '));
    } finally {
      removeDir(outside);
    }
  },
};

export const protectedResolved: Scenario<DaemonContext> = {
  id: 'daemon-protected-paths-resolved',
  role: 'daemon',
  title:
    'auto mode, write_file through a symbolic link to .git/: refused (or asked, and denied), nothing written in .git/',
  checks: [PROTECTED_RESOLVED],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await denyingClient(ctx, 'git');
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    const { sessionId, names } = await toolSession(ctx, c);
    if (!names.has('write_file')) throw new Skip("the session's tools/list has no write_file");
    mkdirSync(path.join(ctx.workspace, '.git'));
    symlinkSync('.git', path.join(ctx.workspace, 'conformance-gitdir'));
    const target = path.join(ctx.workspace, '.git', 'conformance-resolved.txt');
    const call = {
      id: 'resolved-git-write',
      name: 'write_file',
      arguments: { path: 'conformance-gitdir/conformance-resolved.txt', content: 'conformance' },
    };
    await setScript(c, sessionId, { 'into git': oneByOne([call], 'Tried.') });
    const { tree } = await runTurn(ctx, c, sessionId, 'conformance: into git');
    const node = toolNodes(tree).find((n) => n.name === 'write_file');
    const asked = c.asked.some((a) => a.name === 'write_file');
    const written = existsSync(target);
    r.expect(
      PROTECTED_RESOLVED,
      !written && (asked || REFUSED.has(String(node?.status))),
      written
        ? `write_file ${call.arguments.path} wrote .git/conformance-resolved.txt${asked ? ' after a denial' : ' unasked'}`
        : `write_file ${call.arguments.path} was not asked and ended ${String(node?.status)}, not with an error result`,
    );
  },
};

export const commandSandbox: Scenario<DaemonContext> = {
  id: 'daemon-command-sandbox',
  role: 'daemon',
  title:
    "run_command either says it ran without a sandbox, on its result's second line, or ran in one: a private /tmp, nothing written outside the workspace, the suite's process unseen",
  checks: [SANDBOX],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await denyingClient(ctx, 'sandbox');
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    const { sessionId, names } = await toolSession(ctx, c);
    if (!names.has('run_command')) throw new Skip("the session's tools/list has no run_command");
    // In /tmp itself: a sandbox's private /tmp hides it, whatever TMPDIR says.
    let host: string;
    try {
      host = mkdtempSync('/tmp/arbor-conformance-host-');
    } catch (error) {
      throw new Skip(`cannot create a directory in /tmp: ${String(error)}`);
    }
    try {
      writeFileSync(path.join(host, 'marker'), 'conformance');
      const outsideTarget = path.join(host, 'written-by-command');
      const probe = 'conformance-sandbox-probe.txt';
      const command = [
        `if [ -e '${host}/marker' ]; then echo conformance-host-tmp; else echo conformance-private-tmp; fi`,
        `{ echo x > '${outsideTarget}'; } 2>/dev/null`,
        `if [ -e /proc/${process.pid} ]; then echo conformance-pid-seen; else echo conformance-pid-hidden; fi`,
        `echo ok > ${probe}`,
      ].join('\n');
      const call = { id: 'sandbox-probe', name: 'run_command', arguments: { command } };
      await setScript(c, sessionId, { 'probe the sandbox': oneByOne([call], 'Probed.') });
      const { tree } = await runTurn(ctx, c, sessionId, 'conformance: probe the sandbox');
      const node = toolNodes(tree).find((n) => n.name === 'run_command');
      const result = String(node?.resultPreview ?? '');
      const lines = result.split('\n');
      const noteAt = lines.findIndex((l) => l.startsWith('[ran without a sandbox'));
      const problems: string[] = [];
      if (noteAt >= 0) {
        if (noteAt !== 1 || !/^\[ran without a sandbox: .*\S.*\]$/.test(lines[noteAt]!))
          problems.push(
            `the result says ${show(lines[noteAt])} on line ${noteAt + 1}, expected "[ran without a sandbox: <reason>]" on line 2`,
          );
      } else {
        // Nothing said: the command ran in a sandbox, and shows it.
        if (lines.includes('conformance-host-tmp'))
          problems.push("the command saw the host's /tmp (no private /tmp)");
        if (existsSync(outsideTarget))
          problems.push(`the command wrote ${outsideTarget}, outside the workspace`);
        if (lines.includes('conformance-pid-seen'))
          problems.push(`the command saw the suite's process (/proc/${process.pid})`);
        if (!existsSync(path.join(ctx.workspace, probe)))
          problems.push('the command could not write in the workspace');
      }
      r.expect(
        SANDBOX,
        problems.length === 0,
        `${problems.join('; ')}${noteAt < 0 ? ', yet its result does not say it ran without a sandbox' : ''} (result ${show(result)})`,
      );
    } finally {
      removeDir(host);
    }
  },
};

export const commandEnv: Scenario<DaemonContext> = {
  id: 'daemon-command-env',
  role: 'daemon',
  title:
    'a daemon started with a secret-named variable and one holding a URL with a password: run_command sees neither',
  checks: [ENV_SCRUBBED],
  async run(ctx) {
    const r = ctx.recorder;
    if (ctx.target.kind !== 'stdio')
      throw new Skip(
        'needs a stdio target (--command): the suite sets the environment only of a daemon it starts',
      );
    const tag = randomUUID().slice(0, 12);
    // Names no configuration's sandbox.allowEnv lets through unless on purpose.
    const env = {
      CONFORMANCE_PROBE_SECRET: `conformance-secret-${tag}`,
      CONFORMANCE_PROBE_URL: `https://conformance:pw-${tag}@example.invalid/v1`,
      CONFORMANCE_PROBE_PLAIN: 'conformance-plain',
    };
    const c = await denyingClient(ctx, 'env', env);
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    const { sessionId, names } = await toolSession(ctx, c);
    if (!names.has('run_command')) throw new Skip("the session's tools/list has no run_command");
    const call = {
      id: 'env-names',
      name: 'run_command',
      arguments: { command: "env | grep '^CONFORMANCE_PROBE_' | cut -d= -f1" },
    };
    await setScript(c, sessionId, { 'show the environment': oneByOne([call], 'Shown.') });
    const { tree } = await runTurn(ctx, c, sessionId, 'conformance: show the environment');
    const node = toolNodes(tree).find((n) => n.name === 'run_command');
    const result = String(node?.resultPreview ?? '');
    const lines = result.split('\n');
    if (!lines.includes('CONFORMANCE_PROBE_PLAIN')) {
      // The ordinary variable is missing too: not the environment the daemon was started with.
      r.skip(ENV_SCRUBBED, `the command did not show the daemon's environment: ${show(result)}`);
      return;
    }
    const kept = ['CONFORMANCE_PROBE_SECRET', 'CONFORMANCE_PROBE_URL'].filter((n) =>
      lines.includes(n),
    );
    r.expect(
      ENV_SCRUBBED,
      kept.length === 0,
      `the command's environment holds ${kept.join(' and ')} (result ${show(result)})`,
    );
  },
};

/** A node's fields for comparison: `_meta` left out, a cleared `progress` the same as none. */
function comparable(node: JsonObject): string {
  const { _meta: _ignored, ...rest } = node;
  if (rest.progress === null) delete rest.progress;
  return canonical(rest);
}

export const storedTree: Scenario<DaemonContext> = {
  id: 'daemon-stored-tree',
  role: 'daemon',
  title:
    "a turn with tool calls and a subtask: the tree session/load keeps with its answer is flat, parents first, and equals the merge of the turn's tree/updates",
  checks: [SNAPSHOT_FLAT, SNAPSHOT_STREAM],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect('tree');
    const sessionId = await scriptedSession(ctx, c, {
      'a stored tree': [
        {
          text: 'Storing and asking. ',
          toolCalls: [
            { id: 'tree-write', name: 'memory_write', arguments: { key: 'k', value: 'v' } },
            {
              id: 'tree-subtask',
              name: 'run_subtask',
              arguments: { title: 'Read back', instructions: 'conformance: read back the value' },
            },
          ],
        },
        { text: 'Stored.' },
      ],
      'read back the value': [
        { toolCalls: [{ id: 'tree-read', name: 'memory_read', arguments: { key: 'k' } }] },
        { text: 'Read it.' },
      ],
    });
    const { turnId, tree } = await runTurn(ctx, c, sessionId, 'conformance: a stored tree');
    const answer = await storedAnswer(c, sessionId, turnId);
    const stored = (answer?.tree as JsonObject | undefined)?.nodes;
    if (!Array.isArray(stored)) {
      const why = `session/load keeps no tree with the turn's answer: ${show(answer)}`;
      r.skip(SNAPSHOT_FLAT, why);
      r.skip(SNAPSHOT_STREAM, why);
      return;
    }
    const nodes = stored as JsonObject[];
    const ids = nodes.map((n) => String(n.id));
    const flat: string[] = [];
    const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
    if (twice.length) flat.push(`nodes listed more than once: ${[...new Set(twice)].join(', ')}`);
    const missing = [...tree.keys()].filter((id) => !ids.includes(id));
    if (missing.length) flat.push(`nodes of the turn missing: ${missing.join(', ')}`);
    const extra = ids.filter((id) => !tree.has(id));
    if (extra.length) flat.push(`nodes no tree/update of the turn announced: ${extra.join(', ')}`);
    const early = nodes
      .filter((n, i) => n.parentId !== null && !ids.slice(0, i).includes(String(n.parentId)))
      .map((n) => `${String(n.id)} before its parent ${String(n.parentId)}`);
    if (early.length) flat.push(early.join(', '));
    r.expect(SNAPSHOT_FLAT, flat.length === 0, flat.join('; '));

    const differ = nodes
      .filter((n) => tree.has(String(n.id)))
      .flatMap((n) => {
        const merged = tree.get(String(n.id))!;
        if (comparable(n) === comparable(merged)) return [];
        const fields = [...new Set([...Object.keys(n), ...Object.keys(merged)])].filter(
          (key) => key !== '_meta' && canonical(n[key] ?? null) !== canonical(merged[key] ?? null),
        );
        return [
          `${String(n.id)} (${String(n.name)}): ${fields.map((key) => `${key} stored as ${show(n[key])}, merged ${show(merged[key])}`).join(', ')}`,
        ];
      });
    r.expect(SNAPSHOT_STREAM, differ.length === 0, differ.join('; '));
  },
};
