/** A Disposable base with `_register`, so every owned resource has one owner and one end. */
import type * as vscode from 'vscode';

export interface DisposableLike {
  dispose(): unknown;
}

export abstract class Disposable implements vscode.Disposable {
  #disposables: DisposableLike[] = [];
  #disposed = false;

  protected get isDisposed(): boolean {
    return this.#disposed;
  }

  protected _register<T extends DisposableLike>(value: T): T {
    if (this.#disposed) value.dispose();
    else this.#disposables.push(value);
    return value;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const d of this.#disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // One failing disposal must not keep the others alive.
      }
    }
  }
}
