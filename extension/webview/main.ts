/**
 * The chat webview's entry point. Host messages are validated, applied to the
 * model, and drawn once per animation frame: a burst of `tree` and `text`
 * messages costs one DOM pass, not one per message.
 */
import { parseHostMessage, type WebviewMessage } from '../src/shared/messages.js';
import { ChatModel } from './model/chatModel.js';
import { ChatView } from './render/chatView.js';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** What the webview keeps across a reload: the draft, and which cards the user opened or closed. */
interface SavedState {
  draft?: string;
  expanded?: [string, boolean][];
}
/** Enough for the cards of many turns; the oldest choices go first. */
const MAX_EXPANDED = 2000;

const vscode = acquireVsCodeApi();
const saved = (vscode.getState() ?? {}) as SavedState;
const expanded = new Map<string, boolean>(Array.isArray(saved.expanded) ? saved.expanded : []);
const model = new ChatModel();
const post = (message: WebviewMessage): void => vscode.postMessage(message);
const view = new ChatView(model, post, {
  get: (key) => expanded.get(key),
  set: (key, value) => {
    expanded.delete(key);
    expanded.set(key, value);
    if (expanded.size > MAX_EXPANDED) expanded.delete(expanded.keys().next().value!);
    save();
  },
});
document.body.append(view.root);

function save(): void {
  vscode.setState({ draft: view.draft, expanded: [...expanded] } satisfies SavedState);
}
if (saved.draft) view.draft = saved.draft;
window.addEventListener('pagehide', save);
document.addEventListener('input', save);

let scheduled = false;
function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    view.render(model.takeDirty());
  });
}

window.addEventListener('message', (event: MessageEvent) => {
  const parsed = parseHostMessage(event.data);
  if (!parsed.ok) {
    console.warn('arbor: ignored an invalid message from the extension host', parsed.error);
    return;
  }
  model.apply(parsed.value);
  if (model.hasChanges) schedule();
});

// Tell the host we are here; it answers with the whole state (reload, reopen).
post({ type: 'ready' });
view.render(model.takeDirty());
