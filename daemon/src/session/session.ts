/**
 * One live session: its settings, the clients attached to it and their roles,
 * its event bus, its messages (user text + final answer + tree per turn) and
 * at most one running turn. Turns run through the agent's TurnRunner; the
 * session is the runner's only way to reach clients (SessionEventSink).
 */
import { randomUUID } from 'node:crypto';
import {
  Methods,
  type AttachRole,
  type ExecutionTreeNode,
  type ExecutionTreeSnapshot,
  type NotificationDescriptor,
  type PermissionMode,
  type Script,
  type SessionInfo,
  type StopReason,
  type StoredMessage,
  type Usage,
} from '@arbor/protocol';
import type {
  HistoryMessage,
  SessionEventParams,
  SessionEventSink,
  TurnResult,
  TurnRunner,
} from '../agent/turnRunner.js';
import type { Logger } from '../logging/logger.js';
import { rpcErrors } from '../rpcError.js';
import { EventBus, type EventSubscriber, type ReplayKind } from './eventBus.js';

type MessageStatus = NonNullable<StoredMessage['status']>;

export interface SessionDeps {
  turnRunner(): Promise<TurnRunner>;
  log: Logger;
  replayRetention?: number;
}

interface RunningTurn {
  turnId: string;
  abort: AbortController;
}

export interface AttachOutcome {
  role: AttachRole;
  lastSeq: number;
  replay: ReplayKind;
  snapshot?: { tree?: ExecutionTreeSnapshot; turnId?: string; pendingApprovals: [] };
  /** Call once the attach response is on its way: replayed events follow it. */
  release(): void;
}

const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

export class Session {
  readonly bus: EventBus;
  script: Script | undefined;
  private readonly roles = new Map<string, AttachRole>();
  private readonly messages: StoredMessage[] = [];
  private running: RunningTurn | undefined;
  /** Nodes of the running turn, folded from tree/update, for attach snapshots. */
  private liveTree = new Map<string, ExecutionTreeNode>();
  private disposed = false;

  constructor(
    private readonly info: SessionInfo,
    /** Creation order, for stable newest-first paging. */
    readonly ordinal: number,
    private readonly deps: SessionDeps,
  ) {
    this.bus = new EventBus(info.sessionId, deps.replayRetention);
  }

  get id(): string {
    return this.info.sessionId;
  }

  describe(): SessionInfo {
    return { ...this.info, chatContext: { ...this.info.chatContext } };
  }

  roleOf(clientId: string): AttachRole | undefined {
    return this.roles.get(clientId);
  }

  attach(
    subscriber: EventSubscriber,
    role: AttachRole,
    sinceSeq: number | undefined,
  ): AttachOutcome {
    this.roles.set(subscriber.clientId, role);
    const subscription = this.bus.subscribe(subscriber, sinceSeq);
    const outcome: AttachOutcome = {
      role,
      lastSeq: subscription.lastSeq,
      replay: subscription.replay,
      release: subscription.release,
    };
    if (subscription.replay === 'snapshot') {
      outcome.snapshot = {
        ...(this.running && {
          turnId: this.running.turnId,
          tree: { version: 1, nodes: [...this.liveTree.values()] },
        }),
        pendingApprovals: [],
      };
    }
    return outcome;
  }

  /** false when the client was not attached. */
  detach(clientId: string): boolean {
    this.bus.unsubscribe(clientId);
    return this.roles.delete(clientId);
  }

  setPermissionMode(clientId: string, mode: PermissionMode): PermissionMode {
    this.requireController(clientId, 'session/setPermissionMode');
    if (this.info.permissionMode !== mode) {
      this.info.permissionMode = mode;
      this.touch();
    }
    // Broadcast even when unchanged: every client learns the confirmed mode.
    this.emit(Methods.SessionUpdate, { permissionMode: mode });
    return mode;
  }

  /**
   * Reserves the turn at once (so a second chat/send gets TurnInProgress) and
   * returns `begin`, to be called after the `{turnId}` response is sent.
   */
  startTurn(clientId: string, text: string): { turnId: string; begin: () => void } {
    this.requireController(clientId, 'chat/send');
    if (this.running) throw rpcErrors.turnInProgress(this.running.turnId);
    const turnId = `turn_${randomUUID()}`;
    const running: RunningTurn = { turnId, abort: new AbortController() };
    const history = this.history();
    this.running = running;
    this.info.state = 'running';
    this.liveTree = new Map();
    this.messages.push({
      id: `msg_${randomUUID()}`,
      turnId,
      role: 'user',
      content: text,
      createdAt: now(),
    });
    this.touch();
    return { turnId, begin: () => void this.runTurn(running, text, history) };
  }

  /** false: no matching turn was running. */
  cancelTurn(clientId: string, turnId: string | undefined): boolean {
    this.requireController(clientId, 'chat/cancel');
    const running = this.running;
    if (!running || (turnId !== undefined && turnId !== running.turnId)) return false;
    running.abort.abort();
    return true;
  }

  load(): { session: SessionInfo; messages: StoredMessage[] } {
    return { session: this.describe(), messages: this.messages.map((m) => ({ ...m })) };
  }

  /** Deleting a session cancels its turn and detaches everyone. */
  dispose(): void {
    this.disposed = true;
    this.running?.abort.abort();
    for (const clientId of [...this.roles.keys()]) this.detach(clientId);
  }

  private requireController(clientId: string, what: string): void {
    const role = this.roles.get(clientId);
    if (role === undefined) throw rpcErrors.notAttached(this.id);
    if (role !== 'controller') throw rpcErrors.notController(what);
  }

  private emit<D extends NotificationDescriptor>(
    descriptor: D,
    params: SessionEventParams<D>,
  ): void {
    if (this.disposed) return;
    const method: string = descriptor.method;
    if (method === Methods.TreeUpdate.method) {
      const { nodes } = params as unknown as SessionEventParams<typeof Methods.TreeUpdate>;
      for (const node of nodes)
        this.liveTree.set(node.id, { ...this.liveTree.get(node.id), ...node });
    } else if (method === Methods.SessionState.method) {
      const { state } = params as unknown as SessionEventParams<typeof Methods.SessionState>;
      this.info.state = state;
    }
    this.bus.emit(descriptor, params);
  }

  private async runTurn(
    running: RunningTurn,
    text: string,
    history: HistoryMessage[],
  ): Promise<void> {
    const { turnId, abort } = running;
    let open = true;
    const sink: SessionEventSink = {
      emit: (descriptor, params) => {
        // A runner that keeps emitting after its turn ended must not corrupt the next one.
        if (open) this.emit(descriptor, params);
        else
          this.deps.log.warn(
            `session ${this.id}: dropped ${descriptor.method} after turn ${turnId} ended`,
          );
      },
    };
    this.emit(Methods.SessionState, { state: 'running', turnId });

    let result: TurnResult | undefined;
    let failure: string | undefined;
    try {
      if (abort.signal.aborted) throw new Error('cancelled before start');
      const runner = await this.deps.turnRunner();
      result = await runner.run({
        sessionId: this.id,
        turnId,
        text,
        workspaceRoot: this.info.workspaceRoot,
        model: this.info.model,
        script: this.script,
        permissionMode: () => this.info.permissionMode,
        history,
        events: sink,
        signal: abort.signal,
      });
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
      this.deps.log.error(`session ${this.id}: turn ${turnId} failed: ${failure}`);
    }
    open = false;

    const stopReason: StopReason =
      result?.stopReason ?? (abort.signal.aborted ? 'cancelled' : 'error');
    const usage = result?.usage ?? ZERO_USAGE;
    const errorMessage = result?.error ?? (stopReason === 'error' ? failure : undefined);
    this.messages.push({
      id: `msg_${randomUUID()}`,
      turnId,
      role: 'assistant',
      content: result?.text ?? '',
      createdAt: now(),
      status: messageStatus(stopReason),
      tree: result?.tree ?? { version: 1, nodes: [...this.liveTree.values()] },
      usage,
    });
    this.running = undefined;
    this.touch();
    this.emit(Methods.SessionState, {
      state: 'idle',
      turnId,
      stopReason,
      usage,
      ...(errorMessage !== undefined && { error: { message: errorMessage } }),
    });
    this.info.state = 'idle';
  }

  private history(): HistoryMessage[] {
    const out: HistoryMessage[] = [];
    for (const message of this.messages) {
      if (message.role === 'user' || message.role === 'assistant') {
        if (message.content.length > 0) out.push({ role: message.role, content: message.content });
      }
    }
    return out;
  }

  private touch(): void {
    this.info.updatedAt = now();
  }
}

function now(): string {
  return new Date().toISOString();
}

function messageStatus(stopReason: StopReason): MessageStatus {
  const byReason: Record<StopReason, MessageStatus> = {
    end_turn: 'complete',
    cancelled: 'cancelled',
    budget_exceeded: 'budget_exceeded',
    max_iterations: 'max_iterations',
    error: 'error',
    interrupted: 'interrupted',
  };
  return byReason[stopReason];
}
