/** The status-bar item: turn state and the session's cost; click opens the chat. */
import * as vscode from 'vscode';
import type { ChatStatus } from '../chat/chatController.js';
import { Disposable } from '../util/disposable.js';

const ICON: Record<ChatStatus['state'], string> = {
  offline: '$(debug-disconnect)',
  idle: '$(comment-discussion)',
  running: '$(loading~spin)',
  requires_action: '$(shield)',
};
const LABEL: Record<ChatStatus['state'], string> = {
  offline: 'daemon not running',
  idle: 'idle',
  running: 'working',
  requires_action: 'approval needed',
};

export class ArborStatusBar extends Disposable {
  readonly #item = this._register(
    vscode.window.createStatusBarItem('arbor.status', vscode.StatusBarAlignment.Right, 100),
  );

  constructor() {
    super();
    this.#item.name = 'Arbor';
    this.#item.command = 'arbor.chat.focus';
    this.update({ state: 'offline', sessionCost: 0 });
    this.#item.show();
  }

  update(status: ChatStatus): void {
    const cost =
      status.sessionCost === null
        ? 'cost unknown'
        : `$${status.sessionCost.toFixed(status.sessionCost < 0.01 && status.sessionCost > 0 ? 4 : 2)}`;
    const asks = status.state === 'requires_action' && status.waitingFor === 'question';
    const label = asks ? 'question for you' : LABEL[status.state];
    const icon = asks ? '$(question)' : ICON[status.state];
    this.#item.text = `${icon} Arbor${status.state === 'idle' ? '' : `: ${label}`} · ${cost}`;
    this.#item.tooltip = `Arbor: ${label}. Session cost ${cost}.`;
    this.#item.accessibilityInformation = {
      label: `Arbor ${label}, session cost ${cost}`,
    };
    this.#item.backgroundColor =
      status.state === 'requires_action'
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
  }
}
