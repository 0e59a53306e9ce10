import assert from 'node:assert/strict';
/**
 * An editor for `arbor acp`: the ACP SDK's own client side, speaking to a
 * spawned `bin/arbor.js acp` over its stdin/stdout, recording every
 * `session/update` and answering permission requests through a test hook.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { ScriptInput } from '@arbor/protocol';
import {
  client,
  methods,
  ndJsonStream,
  type ClientApp,
  type ClientContext,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { ARBOR_BIN } from '../helpers/wire.js';

export type PermissionHook = (
  request: RequestPermissionRequest,
  signal: AbortSignal,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

export interface AcpEditor {
  agent: ClientContext;
  child: ChildProcess;
  /** Every session/update, in arrival order. */
  updates: SessionNotification[];
  permissionRequests: RequestPermissionRequest[];
  /** Answers the next permission requests; unset: the test fails on one. */
  onPermission: PermissionHook | undefined;
  stderr(): string;
  /** Closes stdin and resolves with the exit code. */
  close(): Promise<number | null>;
}

export function tempDir(prefix = 'arbor-acp-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeScript(dir: string, script: ScriptInput): string {
  const file = join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(script));
  return file;
}

export interface EditorOptions {
  /** The bridge's environment (default: the test's). */
  env?: NodeJS.ProcessEnv;
  /** Adds the editor's own handlers (fs/*, terminal/*). */
  handlers?: (app: ClientApp) => ClientApp;
}

export function startAcp(args: string[], options: EditorOptions = {}): AcpEditor {
  const child = spawn(process.execPath, [ARBOR_BIN, 'acp', ...args], {
    stdio: 'pipe',
    ...(options.env && { env: options.env }),
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const editor: AcpEditor = {
    agent: undefined as unknown as ClientContext,
    child,
    updates: [],
    permissionRequests: [],
    onPermission: undefined,
    stderr: () => stderr,
    close: async () => {
      child.stdin!.end();
      return exited;
    },
  };
  const app = client({ name: 'acp-test-editor' })
    .onNotification(methods.client.session.update, ({ params }) => {
      editor.updates.push(params);
    })
    .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
      editor.permissionRequests.push(params);
      if (!editor.onPermission)
        throw new Error(`unexpected permission request: ${JSON.stringify(params)}`);
      return editor.onPermission(params, signal);
    });
  const connection = (options.handlers?.(app) ?? app).connect(
    ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    ),
  );
  editor.agent = connection.agent;
  return editor;
}

/** Resolves once `condition` holds, polling; fails with `what` after `timeoutMs`. */
/** `arbor acp` on the scripted provider, its sessions in `dataDir`. */
export function scriptedAcp(
  dataDir: string,
  scriptFile: string,
  extra: string[] = [],
  options: EditorOptions = {},
): AcpEditor {
  return startAcp(
    ['--data-dir', dataDir, '--provider', 'scripted', '--script', scriptFile, ...extra],
    options,
  );
}

export async function until(
  what: string,
  condition: () => boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Closes each bridge as an editor would; one that hangs is killed, and any exit but 0 fails the test. */
export async function closeAll(editors: AcpEditor[], graceMs: number): Promise<void> {
  for (const editor of editors.splice(0)) {
    const code = await Promise.race([
      editor.close(),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), graceMs)),
    ]);
    if (code === 'hung') editor.child.kill('SIGKILL');
    assert.equal(code, 0, `arbor acp exited with ${String(code)}:\n${editor.stderr()}`);
  }
}
