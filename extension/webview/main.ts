/**
 * The chat webview's entry point. Host messages are validated, applied to the
 * model, and drawn once per animation frame: a burst of `tree` and `text`
 * messages costs one DOM pass, not one per message.
 *
 * The validator (zod and the protocol's schemas) is a second script, loaded
 * after the first paint: the view draws at once, and what the host sends
 * meanwhile waits for it.
 */
import type { WebviewMessage } from '../src/shared/messages.js';
import { ChatModel } from './model/chatModel.js';
import { ChatView } from './render/chatView.js';
import type { HostMessageValidator } from './validator.js';

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

/** Host messages that arrived before the validator, in order. */
let held: unknown[] | undefined = [];
let validate: HostMessageValidator | undefined;

function receive(raw: unknown): void {
  const parsed = validate!(raw);
  if (!parsed.ok) {
    console.warn('arbor: ignored an invalid message from the extension host', parsed.error);
    return;
  }
  model.apply(parsed.value);
  if (model.hasChanges) schedule();
}

window.addEventListener('message', (event: MessageEvent) => {
  if (held) held.push(event.data);
  else receive(event.data);
});
window.addEventListener(
  'arbor-validator',
  () => {
    validate = (window as unknown as { arborValidator: HostMessageValidator }).arborValidator;
    const waiting = held ?? [];
    held = undefined;
    for (const raw of waiting) receive(raw);
  },
  { once: true },
);

// Tell the host we are here; it answers with the whole state (reload, reopen).
post({ type: 'ready' });
view.render(model.takeDirty());

// The validator after the first frame is on screen; same nonce, same origin as this script.
const self = document.currentScript as HTMLScriptElement | null;
requestAnimationFrame(() =>
  setTimeout(() => {
    const script = document.createElement('script');
    script.nonce = self?.nonce ?? '';
    script.src = (self?.src ?? '').replace(/chat\.js(\?.*)?$/, 'validator.js$1');
    script.onerror = () => console.error(`arbor: the webview could not load ${script.src}`);
    document.body.append(script);
  }),
);
