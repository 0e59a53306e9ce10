/**
 * The chat webview view. Security baseline: scripts only from the extension's
 * dist/webview folder, a CSP with a per-load nonce, no inline scripts or
 * styles, and every message from the webview validated before use.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { parseWebviewMessage, type HostMessage } from '../shared/messages.js';
import { Disposable } from '../util/disposable.js';
import type { ChatController } from './chatController.js';

export const CHAT_VIEW_ID = 'arbor.chat';

export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  #view: vscode.WebviewView | undefined;
  /** The webview's script said `ready` and has the full state. */
  #ready = false;
  /** For postWhenReady: sent once the (revealed) webview is ready. */
  #queued: HostMessage[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: ChatController,
    private readonly output: vscode.OutputChannel,
  ) {
    super();
    this._register(vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this));
    controller.attachWebview((message) => this.post(message));
  }

  post(message: HostMessage): void {
    void this.#view?.webview.postMessage(message);
  }

  /**
   * Posts now if the webview is up, else right after it loads and got the
   * full state (a message posted before would be lost or overwritten).
   */
  postWhenReady(message: HostMessage): void {
    if (this.#view && this.#ready) this.post(message);
    else this.#queued.push(message);
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.#view = view;
    this.#ready = false;
    const assets = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    view.webview.options = { enableScripts: true, localResourceRoots: [assets] };
    view.webview.html = renderHtml(view.webview, assets);
    const sub = view.webview.onDidReceiveMessage((raw: unknown) => {
      const parsed = parseWebviewMessage(raw);
      if (!parsed.ok) {
        this.output.appendLine(`[webview] ignored an invalid message: ${parsed.error}`);
        return;
      }
      void this.controller.handle(parsed.value).then(() => {
        if (parsed.value.type !== 'ready') return;
        this.#ready = true;
        for (const message of this.#queued.splice(0)) this.post(message);
      });
    });
    view.onDidDispose(() => {
      sub.dispose();
      if (this.#view === view) {
        this.#view = undefined;
        this.#ready = false;
      }
    });
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }
}

export function renderHtml(webview: vscode.Webview, assets: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const uri = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(assets, file)).toString();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uri('codicon.css')}">
<link rel="stylesheet" href="${uri('chat.css')}">
<title>Arbor</title>
</head>
<body>
<script nonce="${nonce}" src="${uri('chat.js')}"></script>
</body>
</html>`;
}
