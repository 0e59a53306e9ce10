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

const vscode = acquireVsCodeApi();
const model = new ChatModel();
const post = (message: WebviewMessage): void => vscode.postMessage(message);
const view = new ChatView(model, post);
document.body.append(view.root);

const saved = vscode.getState() as { draft?: string } | undefined;
if (saved?.draft) view.draft = saved.draft;
window.addEventListener('pagehide', () => vscode.setState({ draft: view.draft }));
document.addEventListener('input', () => vscode.setState({ draft: view.draft }));

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
