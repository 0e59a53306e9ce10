/**
 * The keyboard of a turn's tool-call tree, as the WAI-ARIA tree pattern
 * has it: one Tab stop per tree (roving tabindex), Up/Down to the previous
 * and next visible item, Right to expand or enter, Left to collapse or go to
 * the parent, Home/End, Enter and Space to toggle.
 */

const ITEM = '[role="treeitem"]';

export interface TreeKeyActions {
  /** Expands or collapses an item (building its body when needed). */
  setExpanded(item: HTMLElement, expanded: boolean): void;
}

export function attachTreeKeys(tree: HTMLElement, actions: TreeKeyActions): void {
  tree.addEventListener('keydown', (event) => {
    const item = event.target as HTMLElement;
    // Keys inside an item's body (an approval's buttons, a question's text box) are theirs.
    if (!item.matches?.(ITEM) || event.altKey || event.ctrlKey || event.metaKey) return;
    const expanded = item.getAttribute('aria-expanded') === 'true';
    let next: HTMLElement | undefined;
    switch (event.key) {
      case 'ArrowDown':
        next = step(tree, item, 1);
        break;
      case 'ArrowUp':
        next = step(tree, item, -1);
        break;
      case 'Home':
        next = visibleItems(tree)[0];
        break;
      case 'End':
        next = visibleItems(tree).at(-1);
        break;
      case 'ArrowRight':
        if (!expanded) actions.setExpanded(item, true);
        else next = childItems(item)[0];
        break;
      case 'ArrowLeft':
        if (expanded) actions.setExpanded(item, false);
        else next = parentItem(item);
        break;
      case 'Enter':
      case ' ':
        actions.setExpanded(item, !expanded);
        break;
      default:
        return;
    }
    event.preventDefault();
    if (next) focusItem(tree, next);
  });
  tree.addEventListener('focusin', (event) => {
    const item = event.target as HTMLElement;
    if (item.matches?.(ITEM)) makeTabStop(tree, item);
  });
}

/** Keeps exactly one item of the tree in the Tab order: the last focused one, else the first. */
export function ensureTabStop(tree: HTMLElement): void {
  const current = tree.querySelector<HTMLElement>(`${ITEM}[tabindex="0"]`);
  if (current && isVisible(tree, current)) return;
  const first = visibleItems(tree)[0];
  if (first) makeTabStop(tree, first);
}

function focusItem(tree: HTMLElement, item: HTMLElement): void {
  makeTabStop(tree, item);
  item.focus();
  item.scrollIntoView({ block: 'nearest' });
}

function makeTabStop(tree: HTMLElement, item: HTMLElement): void {
  for (const other of Array.from(tree.querySelectorAll<HTMLElement>(`${ITEM}[tabindex="0"]`)))
    if (other !== item) other.tabIndex = -1;
  item.tabIndex = 0;
}

/** Items whose every ancestor item is expanded, in document order. */
function visibleItems(tree: HTMLElement): HTMLElement[] {
  return Array.from(tree.querySelectorAll<HTMLElement>(ITEM)).filter((item) =>
    isVisible(tree, item),
  );
}

function isVisible(tree: HTMLElement, item: HTMLElement): boolean {
  const hiddenBody = item.parentElement?.closest('[hidden]');
  return !hiddenBody || !tree.contains(hiddenBody);
}

function step(tree: HTMLElement, item: HTMLElement, by: 1 | -1): HTMLElement | undefined {
  const items = visibleItems(tree);
  return items[items.indexOf(item) + by];
}

function childItems(item: HTMLElement): HTMLElement[] {
  const group = item.querySelector(':scope > .card-body > [role="group"]');
  return group ? Array.from(group.querySelectorAll<HTMLElement>(`:scope > ${ITEM}`)) : [];
}

function parentItem(item: HTMLElement): HTMLElement | undefined {
  return item.parentElement?.closest<HTMLElement>(ITEM) ?? undefined;
}
