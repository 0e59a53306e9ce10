/**
 * The client-tool proxy (client-tools.md): tools a client declared in
 * `initialize`, offered to the model in `editor` sessions and run by sending
 * `tool/execute` to the client that sent the turn's chat/send. The gate runs
 * first like for any tool (the loop calls it before execute); arguments are
 * validated against the declared inputSchema here, before anything is sent.
 */
import {
  ToolExecuteResult,
  type ClientToolDeclaration,
  type ToolExecuteParams,
} from '@arbor/protocol';
import { Ajv, type ValidateFunction } from 'ajv';
import { z } from 'zod';
import { defineTool, type Tool } from './tool.js';

/** The connection of the client that provides a turn's client tools. */
export interface ClientToolHost {
  readonly clientId: string;
  /** The connection is gone: calls become error results without any request. */
  readonly isClosed: boolean;
  /**
   * Sends `tool/execute`; resolves with the raw result, rejects with the error
   * response or when the connection closes. Aborting `cancel` sends `$/cancelRequest`.
   */
  executeTool(params: ToolExecuteParams, cancel: AbortSignal): Promise<unknown>;
}

export const CLIENT_GONE =
  'The client that provides this tool disconnected; it cannot run now. Continue without it.';

function compile(ajv: Ajv, schema: Record<string, unknown>): ValidateFunction | string {
  try {
    return ajv.compile(schema);
  } catch (error) {
    return (error as Error).message;
  }
}

/** Tools for one turn; declarations whose schema does not compile are left out (and logged). */
export function createClientTools(
  declarations: readonly ClientToolDeclaration[],
  host: ClientToolHost,
  sessionId: string,
  log: (message: string) => void = () => undefined,
): Tool[] {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const tools: Tool[] = [];
  for (const declaration of declarations) {
    const validate = compile(ajv, declaration.inputSchema as Record<string, unknown>);
    if (typeof validate === 'string') {
      log(
        `client tool ${declaration.name} of ${host.clientId} left out: invalid inputSchema (${validate})`,
      );
      continue;
    }
    const input = z.unknown().superRefine((value, ctx) => {
      if (validate(value)) return;
      for (const e of validate.errors ?? []) {
        ctx.addIssue({
          code: 'custom',
          message: `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}`,
        });
      }
    });
    tools.push(
      defineTool({
        name: declaration.name,
        description: declaration.description,
        input,
        inputJsonSchema: declaration.inputSchema as Record<string, unknown>,
        category: declaration.category,
        origin: 'client',
        execute: async (args, ctx) => {
          if (host.isClosed) return { content: CLIENT_GONE, isError: true };
          const cancel = new AbortController();
          const onAbort = (): void => cancel.abort();
          ctx.signal.addEventListener('abort', onAbort, { once: true });
          try {
            const raw = await host.executeTool(
              {
                sessionId,
                turnId: ctx.turnId,
                nodeId: ctx.nodeId,
                toolCallId: ctx.toolCallId,
                name: declaration.name,
                args,
              },
              cancel.signal,
            );
            const result = ToolExecuteResult.safeParse(raw);
            if (!result.success)
              return {
                content: `The client answered ${declaration.name} with an invalid result.`,
                isError: true,
              };
            return { content: result.data.content, isError: result.data.isError === true };
          } catch (error) {
            if (host.isClosed) return { content: CLIENT_GONE, isError: true };
            const message = error instanceof Error ? error.message : String(error);
            return {
              content: `The client failed to run ${declaration.name}: ${message}`,
              isError: true,
            };
          } finally {
            ctx.signal.removeEventListener('abort', onAbort);
          }
        },
      }) as Tool,
    );
  }
  return tools;
}
