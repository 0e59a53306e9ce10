/**
 * `/model [provider:model]` at the `arbor chat` prompt: shows the session's
 * model, or switches it from the next turn on without starting a new chat
 * (session/setModel, sessions.md#session-set-model).
 */
import { Methods } from '@arbor/protocol';
import type { ArborClient, SessionView } from '@arbor/protocol/client';

export const MODEL_COMMAND = '/model';

/** Whether a prompt line is the /model command (with or without an argument). */
export function isModelCommand(line: string): boolean {
  return line === MODEL_COMMAND || line.startsWith(`${MODEL_COMMAND} `);
}

/** Runs `/model …`; returns the line to show the user. */
export async function runModelCommand(
  client: ArborClient,
  view: SessionView,
  line: string,
): Promise<string> {
  const model = line.slice(MODEL_COMMAND.length).trim();
  if (model === '') return `model: ${view.model ?? 'the daemon’s default'}`;
  const capability = Methods.SessionSetModel.capability;
  if (capability && !client.hasCapability(capability))
    return 'this daemon cannot switch the model of a session; start a new chat with --model';
  try {
    const result = await client.request(Methods.SessionSetModel, {
      sessionId: view.sessionId,
      model,
    });
    return `model: ${result.model} from the next turn on`;
  } catch (error) {
    return `model not changed: ${error instanceof Error ? error.message : String(error)}`;
  }
}
