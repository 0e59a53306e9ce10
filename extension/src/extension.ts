/**
 * Arbor for VS Code: the reference client of the Arbor Agent Protocol.
 *
 * Bundled by esbuild to CommonJS (dist/extension.cjs): VS Code loads
 * extensions with `require`, and the package is `"type": "module"` for the
 * ESM webview and tests, hence the `.cjs` extension.
 */
import * as vscode from 'vscode';
import type { InitializeResult, ToolExecuteResult } from '@arbor/protocol';
import { ChatController } from './chat/chatController.js';
import { CHAT_VIEW_ID, ChatViewProvider } from './chat/chatViewProvider.js';
import { EditorCommands } from './commands/editorCommands.js';
import { ApiKeys } from './daemon/apiKeys.js';
import { DaemonSupervisor } from './daemon/daemonSupervisor.js';
import { ArborStatusBar } from './status/statusBar.js';
import { DiffDocuments } from './tools/diffDocuments.js';
import { EDITOR_TOOLS, EditorTools } from './tools/editorTools.js';
import { Disposable } from './util/disposable.js';

class ArborExtension extends Disposable {
  readonly output = this._register(vscode.window.createOutputChannel('Arbor'));
  readonly apiKeys: ApiKeys;
  readonly supervisor: DaemonSupervisor;
  readonly controller: ChatController;
  readonly chatView: ChatViewProvider;
  readonly tools: EditorTools;
  /** The daemon's answer to the last `initialize` (for the exported API). */
  lastInit: InitializeResult | undefined;

  constructor(context: vscode.ExtensionContext) {
    super();
    this.apiKeys = new ApiKeys(context.secrets);
    const diffs = this._register(new DiffDocuments());
    const tools = (this.tools = new EditorTools(diffs));
    this.supervisor = this._register(
      new DaemonSupervisor(
        context.extensionUri,
        this.output,
        async () => ({
          options: {
            tools: EDITOR_TOOLS,
            onToolExecute: (params, token) => tools.execute(params, token),
          },
          env: await this.apiKeys.environment(),
        }),
        // Runs inside start(), after the controller below exists.
        (client) => this.controller.setupClient(client),
      ),
    );
    this.controller = this._register(
      new ChatController(this.supervisor, this.output, diffs, context.workspaceState),
    );
    this.chatView = this._register(
      new ChatViewProvider(context.extensionUri, this.controller, this.output),
    );
    this._register(this.supervisor.onDidConnect(({ init }) => (this.lastInit = init)));
    const status = this._register(new ArborStatusBar());
    this._register(this.controller.onDidChangeStatus((s) => status.update(s)));

    const command = (id: string, run: () => unknown) =>
      this._register(
        vscode.commands.registerCommand(id, async () => {
          try {
            return await run();
          } catch (error) {
            void vscode.window.showErrorMessage(`Arbor: ${(error as Error).message}`);
            return undefined;
          }
        }),
      );
    command('arbor.newChat', async () => {
      await this.chatView.reveal();
      await this.controller.newChat();
    });
    command('arbor.cancel', () => this.controller.cancel());
    command('arbor.setPermissionMode', () => this.controller.pickMode());
    command('arbor.setApiKey', async () => {
      if (await this.apiKeys.prompt()) {
        const restart = await vscode.window.showInformationMessage(
          'Arbor: the daemon reads API keys at start. Restart it now?',
          'Restart Daemon',
        );
        if (restart) await this.supervisor.restart();
      }
    });
    command('arbor.showLogs', () => this.output.show(true));
    command('arbor.showToolServers', () => this.controller.showToolServers());
    command('arbor.restartDaemon', () => this.supervisor.restart());
    this._register(new EditorCommands(this.controller, this.chatView));
    // For tests and other extensions: which session the chat shows.
    command('arbor.internal.currentSession', () => this.controller.currentSessionId);

    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (
          event.affectsConfiguration('arbor.daemon') ||
          event.affectsConfiguration('arbor.nodePath') ||
          event.affectsConfiguration('arbor.trace.server')
        ) {
          void vscode.window
            .showInformationMessage(
              'Arbor: daemon settings changed. Restart the daemon to apply them?',
              'Restart Daemon',
            )
            .then((c) => {
              if (c) void this.supervisor.restart();
            });
        }
      }),
    );
    void this.supervisor.start();
    void CHAT_VIEW_ID;
  }
}

let extension: ArborExtension | undefined;

/** What the extension exports (tests and other extensions). */
export interface ArborApi {
  /** The session the chat view shows. */
  currentSessionId(): string | undefined;
  /** The live daemon connection: who answered and the editor tools declared to it. */
  connection():
    | { serverName: string; protocolVersion: number; clientTools: boolean; declaredTools: string[] }
    | undefined;
  /** The daemon connection's state and, when failed or restarting, the sentence the user is shown. */
  connectionState(): { status: string; message?: string };
  /** The spawned daemon's process id, for tests that make it crash. */
  daemonPid(): number | undefined;
  /**
   * Runs an editor tool as the daemon's `tool/execute` would, without the
   * daemon (so without its permission gate): for the extension-host tests.
   */
  executeEditorTool(
    name: string,
    args: Record<string, unknown>,
    token?: { readonly isCancellationRequested: boolean },
  ): Promise<ToolExecuteResult>;
}

export function activate(context: vscode.ExtensionContext): ArborApi {
  extension = new ArborExtension(context);
  context.subscriptions.push(extension);
  return {
    currentSessionId: () => extension?.controller.currentSessionId,
    connection: () => {
      const init = extension?.supervisor.client ? extension.lastInit : undefined;
      if (!init) return undefined;
      return {
        serverName: init.serverInfo.name,
        protocolVersion: init.protocolVersion,
        clientTools: init.capabilities.clientTools !== undefined,
        declaredTools: EDITOR_TOOLS.map((t) => t.name),
      };
    },
    connectionState: () => ({ ...(extension?.supervisor.state ?? { status: 'stopped' }) }),
    daemonPid: () => extension?.supervisor.pid,
    executeEditorTool: async (name, args, token = { isCancellationRequested: false }) => {
      if (!extension) throw new Error('Arbor is not active.');
      return extension.tools.execute(
        { sessionId: 'test', turnId: 'test', nodeId: 'test', toolCallId: 'test', name, args },
        token,
      );
    },
  };
}

export async function deactivate(): Promise<void> {
  await extension?.supervisor.stop();
  extension = undefined;
}
