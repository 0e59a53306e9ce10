/** Finds the Node.js the daemon runs on and checks that it is new enough. */
import { execFile } from 'node:child_process';

export const MIN_NODE_MAJOR = 20;

export type NodeCheck = { ok: true; version: string } | { ok: false; message: string };

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

/** Pure: the verdict on a `process.versions.node` string. */
export function nodeVersionVerdict(nodePath: string, version: string): NodeCheck {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (!Number.isFinite(major))
    return { ok: false, message: `"${nodePath}" did not report a Node.js version.` };
  if (major < MIN_NODE_MAJOR) {
    return {
      ok: false,
      message: `Arbor needs Node.js ${MIN_NODE_MAJOR} or newer to run its daemon; "${nodePath}" is ${version}. Install a newer Node.js or set "arbor.nodePath".`,
    };
  }
  return { ok: true, version };
}
