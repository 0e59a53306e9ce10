/**
 * Allow-for-session grants: per session, per tool, optionally narrowed by the
 * tool's grant key (e.g. run_command grants one command line). They live as
 * long as the session is loaded; subtasks read the same object.
 */
const EVERY_CALL = Symbol('every call');

export class SessionGrants {
  private readonly byTool = new Map<string, Set<string | typeof EVERY_CALL>>();

  /** `key` undefined: the grant covers every call of the tool. */
  grant(tool: string, key: string | undefined): void {
    let keys = this.byTool.get(tool);
    if (keys === undefined) this.byTool.set(tool, (keys = new Set()));
    keys.add(key ?? EVERY_CALL);
  }

  covers(tool: string, key: string | undefined): boolean {
    const keys = this.byTool.get(tool);
    if (keys === undefined) return false;
    return keys.has(EVERY_CALL) || (key !== undefined && keys.has(key));
  }

  clear(): void {
    this.byTool.clear();
  }

  get isEmpty(): boolean {
    return this.byTool.size === 0;
  }
}
