/** The daemon's method table: every client-to-daemon method it serves. */
import type { DaemonContext } from '../daemonContext.js';
import type { ClientContext } from '../clientConnection.js';
import { MethodRouter } from '../methodRouter.js';
import { registerChatMethods } from './chatMethods.js';
import { registerCheckpointMethods } from './checkpointMethods.js';
import { registerAgentsMethods } from './agentsMethods.js';
import { registerCommandsMethods } from './commandsMethods.js';
import { registerSessionMethods } from './sessionMethods.js';
import { registerTestingMethods } from './testingMethods.js';
import { registerToolsMethods } from './toolsMethods.js';

export function buildRouter(context: DaemonContext): MethodRouter<ClientContext> {
  const router = new MethodRouter<ClientContext>();
  registerSessionMethods(router, context.sessions);
  registerChatMethods(router, context.sessions);
  if (context.tools) registerToolsMethods(router, context.sessions, context.tools);
  if (context.checkpoints) registerCheckpointMethods(router, context.sessions);
  if (context.commands) registerCommandsMethods(router, context.sessions);
  if (context.agents) registerAgentsMethods(router, context.agents);
  if (context.testing) registerTestingMethods(router, context.sessions);
  return router;
}
