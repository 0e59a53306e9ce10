/**
 * Chooses the Node.js the daemon runs on and checks that it can.
 *
 * The daemon keeps its store in SQLite, through better-sqlite3 when its
 * native binding matches the runtime (the .vsix ships it built for Node 20)
 * and through Node's built-in node:sqlite otherwise (Node >= 22.13 / 23.5,
 * where it is unflagged and complete enough; see daemon/src/store/sqlite/).
 * So the daemon runs on Node 20 and on Node >= 22.13, and with no Node
 * installed at all on VS Code's own runtime (Electron as Node, via
 * ELECTRON_RUN_AS_NODE) when that runtime has node:sqlite.
 */
import { execFile } from 'node:child_process';
import { isBuiltin } from 'node:module';

export const MIN_NODE_MAJOR = 20;

export type NodeCheck = { ok: true; version: string } | { ok: false; message: string };

/** How to start the daemon: `command` with `env` added to the environment. */
export interface DaemonRuntime {
  command: string;
  env: Record<string, string>;
  /** For the log: which Node this is and why it was chosen. */
  describe: string;
}

/** Settings values that mean "choose for me": the default `node` from PATH, else VS Code's runtime. */
export function isAutomaticNodePath(nodePath: string): boolean {
  return nodePath === '' || nodePath === 'node';
}

/**
 * The runtime for `nodePath`, or a sentence saying why there is none (a
 * configuration problem: retrying would not help).
 */
export async function chooseDaemonRuntime(
  nodePath: string,
  host: { execPath: string; version: string; hasNodeSqlite: boolean } = vscodeRuntime(),
): Promise<{ ok: true; runtime: DaemonRuntime } | { ok: false; message: string }> {
  const automatic = isAutomaticNodePath(nodePath);
  const command = automatic ? 'node' : nodePath;
  const check = await checkNode(command);
  if (check.ok)
    return { ok: true, runtime: { command, env: {}, describe: `Node ${check.version}` } };
  if (!automatic) return check;
  // No usable `node` on PATH: VS Code's own runtime, when its Node can hold the store.
  if (host.hasNodeSqlite && nodeVersionVerdict('VS Code', host.version).ok)
    return {
      ok: true,
      runtime: {
        command: host.execPath,
        env: { ELECTRON_RUN_AS_NODE: '1' },
        describe: `VS Code's runtime, Node ${host.version} (${check.message})`,
      },
    };
  return {
    ok: false,
    message: `${check.message} VS Code's own runtime (Node ${host.version}) cannot run it either.`,
  };
}

function vscodeRuntime(): { execPath: string; version: string; hasNodeSqlite: boolean } {
  return {
    execPath: process.execPath,
    version: process.versions.node,
    hasNodeSqlite: isBuiltin('node:sqlite'),
  };
}

export function checkNode(nodePath: string): Promise<NodeCheck> {
  return new Promise((resolve) => {
    execFile(nodePath, ['-p', 'process.versions.node'], { timeout: 10_000 }, (error, stdout) => {
      if (error) {
        const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
        resolve({
          ok: false,
          message: missing
            ? `Arbor needs Node.js ${MIN_NODE_MAJOR} or newer to run its daemon, but "${nodePath}" was not found. Install Node.js or set "arbor.nodePath".`
            : `Arbor could not run "${nodePath}": ${error.message}`,
        });
        return;
      }
      resolve(nodeVersionVerdict(nodePath, stdout.trim()));
    });
  });
}

/** Pure: can a Node of this `process.versions.node` run the daemon? */
export function nodeVersionVerdict(nodePath: string, version: string): NodeCheck {
  const match = /^v?(\d+)\.(\d+)\./.exec(version);
  if (!match) return { ok: false, message: `"${nodePath}" did not report a Node.js version.` };
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major < MIN_NODE_MAJOR) {
    return {
      ok: false,
      message: `Arbor needs Node.js ${MIN_NODE_MAJOR} or newer to run its daemon; "${nodePath}" is ${version}. Install a newer Node.js or set "arbor.nodePath".`,
    };
  }
  // Node 20: the bundled better-sqlite3. 22.13+ / 23.5+ / 24+: node:sqlite.
  // Between them neither works (the binding's ABI differs, node:sqlite is
  // missing, flagged or lacks what the store uses).
  const nodeSqlite = major >= 24 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13);
  if (major !== MIN_NODE_MAJOR && !nodeSqlite) {
    return {
      ok: false,
      message: `Arbor's daemon runs on Node.js 20 or on 22.13 and newer; "${nodePath}" is ${version}. Install one of those or set "arbor.nodePath".`,
    };
  }
  return { ok: true, version };
}
