/**
 * The conformance driver of the client core (spec: conformance.md#driver).
 * When `ARBOR_CONFORMANCE_SCENARIO` is set, a client runs headless: it
 * initializes with the capabilities it really has, attaches to (or creates)
 * a session, optionally sends a message, answers approvals with a fixed
 * decision and questions with a fixed text, and otherwise behaves as for a user — the SessionTracker applies
 * events, re-attaches on seq gaps and answers `_arbor/conformance/state` from
 * the same SessionView a user's UI renders.
 *
 * Runtime-neutral: the caller connects (see conformanceDriverMain.ts for Node).
 */
import { ApprovalDecision } from '../approvalTypes.js';
import { Methods } from '../methods.js';
import type { QuestionRequestParams } from '../question.js';
import type { AttachRole } from '../session.js';
import type { ArborClient } from './arborClient.js';
import type { Disposable } from './events.js';
import { SessionTracker } from './sessionTracker.js';
import type { SessionView } from './sessionView.js';

/** The environment variables of the driver convention. */
export const DriverEnv = {
  scenario: 'ARBOR_CONFORMANCE_SCENARIO',
  daemonCommand: 'ARBOR_DAEMON_COMMAND',
  endpoint: 'ARBOR_CONFORMANCE_ENDPOINT',
  tokenFile: 'ARBOR_CONFORMANCE_TOKEN_FILE',
  session: 'ARBOR_CONFORMANCE_SESSION',
  role: 'ARBOR_CONFORMANCE_ROLE',
  message: 'ARBOR_CONFORMANCE_MESSAGE',
  approval: 'ARBOR_CONFORMANCE_APPROVAL',
  answer: 'ARBOR_CONFORMANCE_ANSWER',
} as const;

/** A decision given to every approval, or `ignore`: never decide (cancelled requests answer -32800). */
export type DriverApproval = ApprovalDecision | 'ignore';

export type DriverConnection =
  | { kind: 'socket'; endpoint: string; tokenFile: string | undefined }
  | { kind: 'stdio'; command: string };

export interface DriverConfig {
  scenario: string;
  connection: DriverConnection;
  /** Attach to this session; absent: create one with `session/new`. */
  sessionId: string | undefined;
  role: AttachRole;
  /** Sent with `chat/send` once attached. */
  message: string | undefined;
  approval: DriverApproval;
  /** What the user answers every question with (see driverAnswer); undefined: the default. */
  answer: string | undefined;
}

export class DriverConfigError extends Error {
  override name = 'DriverConfigError';
}

/**
 * Reads the driver convention from an environment. Undefined when
 * `ARBOR_CONFORMANCE_SCENARIO` is unset (driver mode off); throws
 * DriverConfigError when it is set but the rest is unusable.
 */
export function readDriverConfig(
  env: Readonly<Record<string, string | undefined>>,
): DriverConfig | undefined {
  const get = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const scenario = get(DriverEnv.scenario);
  if (scenario === undefined) return undefined;

  const endpoint = get(DriverEnv.endpoint);
  const command = get(DriverEnv.daemonCommand);
  let connection: DriverConnection;
  if (endpoint !== undefined) {
    connection = { kind: 'socket', endpoint, tokenFile: get(DriverEnv.tokenFile) };
  } else if (command !== undefined) {
    connection = { kind: 'stdio', command };
  } else {
    throw new DriverConfigError(
      `${DriverEnv.scenario} is set but neither ${DriverEnv.endpoint} nor ${DriverEnv.daemonCommand} says where the daemon is`,
    );
  }

  const role = get(DriverEnv.role) ?? 'controller';
  if (role !== 'controller' && role !== 'observer') {
    throw new DriverConfigError(`${DriverEnv.role} must be controller or observer, not ${role}`);
  }
  const approval = get(DriverEnv.approval) ?? 'deny';
  if (approval !== 'ignore' && !ApprovalDecision.safeParse(approval).success) {
    throw new DriverConfigError(
      `${DriverEnv.approval} must be allow, allowForSession, allowAlways, deny or ignore, not ${approval}`,
    );
  }
  return {
    scenario,
    connection,
    sessionId: get(DriverEnv.session),
    role,
    message: get(DriverEnv.message),
    approval: approval as DriverApproval,
    answer: get(DriverEnv.answer),
  };
}

export interface DriverOptions {
  /** Workspace root of a session the driver creates (its working directory). */
  workspaceRoot: string;
  /** Diagnostics (never stdout on stdio: the caller decides where they go). */
  log?: (line: string) => void;
}

export interface DriverRun {
  tracker: SessionTracker;
  view: SessionView;
  /** The session's id (created or attached). */
  sessionId: string;
}

/**
 * Runs the driver on a client that is connected but not initialized yet.
 * Resolves once the session is attached and the message (if any) sent; from
 * then on the tracker and the approval policy keep working until the
 * connection closes.
 */
export async function runConformanceDriver(
  client: ArborClient,
  config: DriverConfig,
  options: DriverOptions,
): Promise<DriverRun> {
  const log = options.log ?? (() => undefined);
  // Before initialize: the tracker's handlers make the client declare approvals and conformance.
  const tracker = new SessionTracker(client, { approvals: true, conformance: true });
  client.on('error', (error) => log(`client: ${error.message}`));
  await client.initialize();

  let view: SessionView;
  if (config.sessionId !== undefined) {
    view = await tracker.attach(config.sessionId, { role: config.role });
  } else {
    ({ view } = await tracker.create({ workspaceRoot: options.workspaceRoot }));
  }
  answerApprovals(view, config.approval);
  answerQuestions(view, config.answer, { ignore: config.approval === 'ignore' });
  view.on('error', (error) => log(`session ${view.sessionId}: ${error.message}`));

  if (config.message !== undefined) {
    try {
      const sent = await client.request(Methods.ChatSend, {
        sessionId: view.sessionId,
        text: config.message,
      });
      log(`sent the message: turn ${sent.turnId}`);
    } catch (error) {
      // A refused message is the daemon's answer, not a driver failure.
      log(`chat/send failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { tracker, view, sessionId: view.sessionId };
}

/**
 * Gives the policy's decision to every approval the session queues, as a user
 * clicking the same button each time would. `ignore` leaves them waiting: the
 * tracker answers -32800 when the daemon cancels them.
 */
export function answerApprovals(view: SessionView, approval: DriverApproval): Disposable {
  if (approval === 'ignore') return { dispose: () => undefined };
  // Requests re-sent on attach may already be queued.
  for (const pending of view.approvals.awaiting()) view.approvals.decide(pending.key, approval);
  return view.approvals.on('added', (pending) => view.approvals.decide(pending.key, approval));
}

/**
 * The answer a driven client gives to a question (conformance.md#conformance-driver-questions):
 * `text` where it is a valid answer, else the first option's label, else `ok`.
 */
export function driverAnswer(request: QuestionRequestParams, text: string | undefined): string {
  const labels = (request.options ?? []).map((option) => option.label);
  if (text !== undefined && (request.freeText || labels.includes(text))) return text;
  return labels[0] ?? 'ok';
}

/**
 * Answers every question the session queues, as a user typing the same answer
 * each time would (driverAnswer). `ignore` — set with the approval policy
 * `ignore`, a user who never decides — leaves them waiting: the tracker answers -32800 when the
 * daemon cancels them.
 */
export function answerQuestions(
  view: SessionView,
  text: string | undefined,
  { ignore }: { ignore: boolean },
): Disposable {
  if (ignore) return { dispose: () => undefined };
  for (const pending of view.questions.awaiting())
    view.questions.decide(pending.key, driverAnswer(pending.request, text));
  return view.questions.on('added', (pending) =>
    view.questions.decide(pending.key, driverAnswer(pending.request, text)),
  );
}
