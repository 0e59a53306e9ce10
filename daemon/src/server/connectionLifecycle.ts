/**
 * LSP's lifecycle for one connection: uninitialized -> initialized ->
 * shutdown -> closed. Decides what may be served in each state.
 */
import { ArborErrorCodes } from '@arbor/protocol';
import { RpcError, rpcErrors } from '../rpcError.js';

export type LifecycleState = 'uninitialized' | 'initialized' | 'shutdown' | 'closed';

export class ConnectionLifecycle {
  private current: LifecycleState = 'uninitialized';

  get state(): LifecycleState {
    return this.current;
  }

  /** Throws the error the spec gives for a request in the current state. */
  admitRequest(isInitialize: boolean): void {
    switch (this.current) {
      case 'uninitialized':
        if (!isInitialize) throw rpcErrors.notInitialized();
        return;
      case 'initialized':
        if (isInitialize) {
          throw new RpcError(ArborErrorCodes.AlreadyInitialized, 'initialize was already received');
        }
        return;
      case 'shutdown':
      case 'closed':
        throw rpcErrors.invalidRequest('the connection is shut down; only exit is accepted');
    }
  }

  /** Before initialize only `exit` counts; after shutdown too. */
  admitNotification(isExit: boolean): boolean {
    if (isExit) return this.current !== 'closed';
    return this.current === 'initialized';
  }

  initialized(): void {
    this.current = 'initialized';
  }

  shutDown(): void {
    if (this.current === 'initialized') this.current = 'shutdown';
  }

  get shutdownRequested(): boolean {
    return this.current === 'shutdown';
  }

  close(): void {
    this.current = 'closed';
  }
}
