/** The host's view of processes, from /proc (Linux): whether one lives, and what runs below it. */
import { readdirSync, readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name: state, ppid, … */
function statFields(pid: number | string): string[] {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
}

/** A process that exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    return statFields(pid)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** `pid` and every process below it (sandbox or not: bwrap's processes have host pids too). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(statFields(name)[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}
