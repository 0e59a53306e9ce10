/**
 * API keys live in VS Code's SecretStorage and reach the daemon only through
 * its environment when it is spawned — never over the protocol, never in settings.
 */
import * as vscode from 'vscode';

export const PROVIDER_KEYS = [
  { provider: 'openai', label: 'OpenAI', env: 'OPENAI_API_KEY' },
  { provider: 'anthropic', label: 'Anthropic', env: 'ANTHROPIC_API_KEY' },
] as const;

const secretName = (provider: string) => `arbor.apiKey.${provider}`;

export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** Environment entries for the daemon process. */
  async environment(): Promise<Record<string, string>> {
    const env: Record<string, string> = {};
    for (const { provider, env: name } of PROVIDER_KEYS) {
      const value = await this.secrets.get(secretName(provider));
      if (value) env[name] = value;
    }
    return env;
  }

  /** "Arbor: Set API Key": returns true when a key changed (the daemon must restart to see it). */
  async prompt(): Promise<boolean> {
    const pick = await vscode.window.showQuickPick(
      PROVIDER_KEYS.map((p) => ({ label: p.label, description: p.env, provider: p.provider })),
      { title: 'Arbor: Set API Key', placeHolder: 'Which provider?' },
    );
    if (!pick) return false;
    const value = await vscode.window.showInputBox({
      title: `${pick.label} API key`,
      prompt:
        'Stored in VS Code secret storage; passed to the daemon in its environment. Leave empty to remove.',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return false;
    if (value.trim() === '') await this.secrets.delete(secretName(pick.provider));
    else await this.secrets.store(secretName(pick.provider), value.trim());
    return true;
  }
}
