/**
 * Read-only virtual documents for diff editors: the file before an edit, and
 * the content a pending write/edit approval proposes.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { Disposable } from '../util/disposable.js';
import { proposedEdit, resolveInWorkspace } from './workspacePaths.js';

export const DIFF_SCHEME = 'arbor-diff';

export class DiffDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  readonly #contents = new Map<string, string>();
  #counter = 0;

  constructor() {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.#contents.get(uri.toString()) ?? '';
  }

  #virtual(label: string, content: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${this.#counter++}/${label}` });
    this.#contents.set(uri.toString(), content);
    return uri;
  }

  /** After apply_edit: the old content on the left, the file on the right. */
  async showApplied(file: vscode.Uri, before: string, label: string): Promise<void> {
    const left = this.#virtual(label, before);
    await vscode.commands.executeCommand('vscode.diff', left, file, `${label} (Arbor edit)`, {
      preview: true,
      preserveFocus: true,
    });
  }

  /**
   * A turn's changes (checkpoint/diff) as a read-only `diff` document beside
   * the chat. The unified diff has only a few lines of context around each
   * change, so the whole file before and after cannot be rebuilt from it.
   */
  async showUnified(label: string, diff: string, truncated: boolean): Promise<void> {
    const note = truncated ? '\n# (cut: the diff is longer than 1,000,000 characters)\n' : '';
    const text = diff === '' ? '# No changes to show.\n' : `${diff}${note}`;
    const uri = this.#virtual(`${label}.diff`, text);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, 'diff');
    await vscode.window.showTextDocument(document, {
      viewColumn: vscode.ViewColumn.Beside,
      preview: true,
      preserveFocus: false,
    });
  }

  /** Before approving: the file now on the left, what the tool would write on the right. */
  async showProposed(args: unknown, folders: readonly string[]): Promise<void> {
    const edit = proposedEdit(args);
    if (!edit) {
      void vscode.window.showInformationMessage(
        'Arbor: this request carries no text edit to compare.',
      );
      return;
    }
    const file = resolveInWorkspace(edit.path, folders);
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const proposed = edit.apply(current);
    const label = vscode.workspace.asRelativePath(file, false);
    const left = fs.existsSync(file)
      ? vscode.Uri.file(file)
      : this.#virtual(`${label} (new file)`, '');
    const right = this.#virtual(`${label} (proposed)`, proposed);
    await vscode.commands.executeCommand(
      'vscode.diff',
      left,
      right,
      `${label} ↔ proposed by Arbor`,
      { preview: true },
    );
  }
}
