/**
 * Editor tools: declared to the daemon in `initialize` as client tools, run on
 * `tool/execute`. Every path is confined to the workspace folders.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ClientToolDeclaration, ToolExecuteParams, ToolExecuteResult } from '@arbor/protocol';
import { DiffDocuments } from './diffDocuments.js';
import { runVscodeTask, TASK_WAIT_MINUTES, type ToolToken } from './vscodeTasks.js';
import { proposedEdit, resolveInWorkspace } from './workspacePaths.js';

export const EDITOR_TOOLS: readonly ClientToolDeclaration[] = [
  {
    name: 'open_file',
    category: 'read',
    description:
      'Opens a workspace file in the editor and reveals a line range (1-based, inclusive).',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Workspace-relative or absolute path' },
        startLine: { type: 'integer', minimum: 1 },
        endLine: { type: 'integer', minimum: 1 },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'get_selection',
    category: 'read',
    description: "Returns the active editor's file, selection range and selected text.",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'get_diagnostics',
    category: 'read',
    description:
      'Returns the errors and warnings VS Code knows for one file, or for the whole workspace.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      additionalProperties: false,
    },
  },
  {
    name: 'apply_edit',
    category: 'write',
    description:
      'Edits a workspace file in the editor and shows the diff. With oldText: replaces its single occurrence by newText; without: newText becomes the whole file.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        oldText: { type: 'string' },
        newText: { type: 'string' },
      },
      required: ['path', 'newText'],
      additionalProperties: false,
    },
  },
  {
    name: 'run_vscode_task',
    category: 'execute',
    description: [
      'Runs one of the workspace\'s VS Code tasks: those in .vscode/tasks.json and those extensions contribute (npm scripts, tsc builds, …), as the user\'s "Run Task" does.',
      'Prefer it over run_command and run_task for the build, test or lint the project configured as VS Code tasks: it runs them with their configured command, options and environment, and their problem matchers feed get_diagnostics (call it after the task ends).',
      `Waits for the task to end (at most ${TASK_WAIT_MINUTES} minutes) and returns its exit code; a non-zero exit code is an error result. A background (watch) task returns once started and keeps running.`,
      "The task's output stays in VS Code's terminal panel and is not returned: use run_command when you need to read the output.",
      'An unknown name returns the list of available tasks.',
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        name: {
          type: 'string',
          description:
            'The task\'s label (e.g. "build"), or "<source>: <label>" (e.g. "npm: test"), or "<workspace folder>: <label>"',
        },
      },
      required: ['name'],
      additionalProperties: false,
    },
  },
];

const MAX_DIAGNOSTICS = 200;

export class EditorTools {
  constructor(private readonly diffs: DiffDocuments) {}

  async execute(params: ToolExecuteParams, token: ToolToken): Promise<ToolExecuteResult> {
    try {
      const args = (params.args ?? {}) as Record<string, unknown>;
      if (params.name === 'run_vscode_task') return await runVscodeTask(args, token);
      const content = await this.#run(params.name, args);
      if (token.isCancellationRequested) return { content: 'Cancelled', isError: true };
      return { content };
    } catch (error) {
      return { content: error instanceof Error ? error.message : String(error), isError: true };
    }
  }

  async #run(name: string, args: Record<string, unknown>): Promise<string> {
    switch (name) {
      case 'open_file':
        return this.#openFile(args);
      case 'get_selection':
        return this.#selection();
      case 'get_diagnostics':
        return this.#diagnostics(args);
      case 'apply_edit':
        return this.#applyEdit(args);
      default:
        throw new Error(`Unknown editor tool ${name}`);
    }
  }

  #folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => f.uri.fsPath);
  }

  #relative(uri: vscode.Uri): string {
    return vscode.workspace.asRelativePath(uri, false);
  }

  async #openFile(args: Record<string, unknown>): Promise<string> {
    const file = resolveInWorkspace(String(args['path'] ?? ''), this.#folders());
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const start = Math.max(1, Number(args['startLine'] ?? 1)) - 1;
    const end = Math.max(start + 1, Number(args['endLine'] ?? start + 1)) - 1;
    const range = new vscode.Range(
      Math.min(start, doc.lineCount - 1),
      0,
      Math.min(end, doc.lineCount - 1),
      0,
    );
    await vscode.window.showTextDocument(doc, {
      selection: range,
      preview: true,
      preserveFocus: true,
    });
    return `Opened ${this.#relative(doc.uri)} at lines ${range.start.line + 1}-${range.end.line + 1}.`;
  }

  #selection(): string {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return JSON.stringify({ file: null, note: 'No active editor.' });
    const folders = this.#folders();
    const inWorkspace =
      folders.length > 0 &&
      (() => {
        try {
          resolveInWorkspace(editor.document.uri.fsPath, folders);
          return true;
        } catch {
          return false;
        }
      })();
    if (!inWorkspace)
      return JSON.stringify({ file: null, note: 'The active editor is outside the workspace.' });
    const s = editor.selection;
    return JSON.stringify({
      file: this.#relative(editor.document.uri),
      language: editor.document.languageId,
      start: { line: s.start.line + 1, character: s.start.character + 1 },
      end: { line: s.end.line + 1, character: s.end.character + 1 },
      text: editor.document.getText(s),
    });
  }

  #diagnostics(args: Record<string, unknown>): string {
    const folders = this.#folders();
    const severity = ['error', 'warning', 'info', 'hint'];
    let entries: [vscode.Uri, readonly vscode.Diagnostic[]][];
    if (typeof args['path'] === 'string') {
      const uri = vscode.Uri.file(resolveInWorkspace(args['path'], folders));
      entries = [[uri, vscode.languages.getDiagnostics(uri)]];
    } else {
      entries = vscode.languages.getDiagnostics().filter(([uri]) => {
        try {
          resolveInWorkspace(uri.fsPath, folders);
          return uri.scheme === 'file';
        } catch {
          return false;
        }
      });
    }
    const out = entries.flatMap(([uri, list]) =>
      list.map((d) => ({
        file: this.#relative(uri),
        line: d.range.start.line + 1,
        character: d.range.start.character + 1,
        severity: severity[d.severity] ?? 'info',
        message: d.message,
        source: d.source,
      })),
    );
    return JSON.stringify({ diagnostics: out.slice(0, MAX_DIAGNOSTICS), total: out.length });
  }

  async #applyEdit(args: Record<string, unknown>): Promise<string> {
    const edit = proposedEdit(args);
    if (!edit) throw new Error('apply_edit needs path and newText.');
    const file = resolveInWorkspace(edit.path, this.#folders());
    const uri = vscode.Uri.file(file);
    const exists = fs.existsSync(file);
    const before = exists ? (await vscode.workspace.openTextDocument(uri)).getText() : '';
    const after = edit.apply(before);
    const workspaceEdit = new vscode.WorkspaceEdit();
    if (!exists) workspaceEdit.createFile(uri, { ignoreIfExists: true });
    if (exists) {
      const doc = await vscode.workspace.openTextDocument(uri);
      workspaceEdit.replace(
        uri,
        new vscode.Range(doc.positionAt(0), doc.positionAt(before.length)),
        after,
      );
    } else {
      workspaceEdit.insert(uri, new vscode.Position(0, 0), after);
    }
    if (!(await vscode.workspace.applyEdit(workspaceEdit)))
      throw new Error(`VS Code refused the edit to ${edit.path}.`);
    const doc = await vscode.workspace.openTextDocument(uri);
    await doc.save();
    await this.diffs.showApplied(uri, before, this.#relative(uri));
    return `Edited ${this.#relative(uri)} (${before.length} -> ${after.length} characters).`;
  }
}
