/** How every client words a node's progress (tree.md#progress). */
import type { ExecutionTreeNode } from '../tree.js';

/**
 * "3/5: Indexing src/", "60%" when only a fraction is meaningful, "3" from a
 * node that gives no total; undefined when the node shows no progress: none
 * sent, cleared with null, or the node is no longer running
 * (tree.md#tree-progress-cleared).
 */
export function progressText(node: ExecutionTreeNode): string | undefined {
  const progress = node.progress;
  if (!progress || node.status !== 'running') return undefined;
  const amount =
    progress.total === undefined
      ? `${progress.progress}`
      : progress.total === 1 && progress.progress <= 1
        ? `${Math.round(progress.progress * 100)}%`
        : `${progress.progress}/${progress.total}`;
  return progress.message ? `${amount}: ${progress.message}` : amount;
}
