/**
 * The editor's Arbor commands: Add Selection to Chat, Add File to Chat,
 * Explain Selection, Fix Selection, Open Chat with Current File. The first
 * two and the last put a reference into the composer (the user adds their
 * question); Explain and Fix send a prompt at once.
 */
import * as vscode from 'vscode';
import type { ChatController } from '../chat/chatController.js';
import type { ChatViewProvider } from '../chat/chatViewProvider.js';
import { Disposable } from '../util/disposable.js';
import {
  explainPrompt,
  fileReference,
  fixPrompt,
  quoteExcerpt,
  selectedLines,
  type CodeExcerpt,
} from './chatReference.js';

export const EDITOR_COMMANDS = {
  addSelection: 'arbor.addSelectionToChat',
  addFile: 'arbor.addFileToChat',
  explainSelection: 'arbor.explainSelection',
  fixSelection: 'arbor.fixSelection',
  openWithFile: 'arbor.openChatWithCurrentFile',
} as const;

/** At most this many of the editor's problems go into a Fix prompt. */
const MAX_PROBLEMS = 10;

export class EditorCommands extends Disposable {
  constructor(
    private readonly controller: ChatController,
    private readonly chatView: ChatViewProvider,
  ) {
    super();
    this.#register(EDITOR_COMMANDS.addSelection, async () => {
      await this.#insert(quoteExcerpt(this.#excerpt()));
    });
    this.#register(EDITOR_COMMANDS.addFile, async (uri?: vscode.Uri) => {
      await this.#insert(fileReference(this.#path(uri ?? this.#editor().document.uri)));
    });
    this.#register(EDITOR_COMMANDS.explainSelection, async () => {
      await this.#send(explainPrompt(this.#excerpt()));
    });
    this.#register(EDITOR_COMMANDS.fixSelection, async () => {
      const editor = this.#editor();
      const range = this.#selectionOrLine(editor);
      const problems = vscode.languages
        .getDiagnostics(editor.document.uri)
        .filter((d) => d.range.intersection(range) !== undefined)
        .slice(0, MAX_PROBLEMS)
        .map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
      await this.#send(fixPrompt(this.#excerpt(), problems));
    });
    this.#register(EDITOR_COMMANDS.openWithFile, async () => {
      const path = this.#path(this.#editor().document.uri);
      await this.chatView.reveal();
      await this.controller.newChat();
      this.chatView.postWhenReady({ type: 'composerInsert', text: `${fileReference(path)} ` });
    });
  }

  #register(id: string, run: (...args: never[]) => Promise<void>): void {
    this._register(
      vscode.commands.registerCommand(id, async (...args: never[]) => {
        try {
          await run(...args);
        } catch (error) {
          void vscode.window.showErrorMessage(`Arbor: ${(error as Error).message}`);
        }
      }),
    );
  }

  async #insert(text: string): Promise<void> {
    await this.chatView.reveal();
    this.chatView.postWhenReady({ type: 'composerInsert', text });
  }

  async #send(prompt: string): Promise<void> {
    await this.chatView.reveal();
    await this.controller.send(prompt);
  }

  #editor(): vscode.TextEditor {
    const editor = vscode.window.activeTextEditor;
    if (!editor) throw new Error('Open a file in the editor first.');
    return editor;
  }

  /** The selection, or the cursor's line when nothing is selected. */
  #selectionOrLine(editor: vscode.TextEditor): vscode.Range {
    const { selection, document } = editor;
    return selection.isEmpty ? document.lineAt(selection.active.line).range : selection;
  }

  #excerpt(): CodeExcerpt {
    const editor = this.#editor();
    const range = this.#selectionOrLine(editor);
    return {
      path: this.#path(editor.document.uri),
      ...selectedLines(range.start, range.end),
      languageId: editor.document.languageId,
      text: editor.document.getText(range),
    };
  }

  /** Relative to its workspace folder (what the daemon's tools take); absolute outside one. */
  #path(uri: vscode.Uri): string {
    return vscode.workspace.asRelativePath(uri, false);
  }
}
