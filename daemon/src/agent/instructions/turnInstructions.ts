/**
 * Workspace instructions for one turn. The workspace root's `AGENTS.md` and
 * `.arbor/instructions.md` go into the system prompt of the root loop and of
 * every subtask. A directory below the root may have its own `AGENTS.md`:
 * the nearest one above a file the model writes applies to it (the AGENTS.md
 * convention), and is given to the model with that call's result, once per
 * turn. The turn node lists every file the model had
 * (tree.md#tree-turn-instructions), so the user sees what it was told.
 */
import { dirname } from 'node:path';
import type { InstructionsFile } from '@arbor/protocol';
import type { ToolResult } from '../toolResult.js';
import type { Tool } from '../../tools/tool.js';
import { resolveInWorkspace } from '../../tools/workspace/confinement.js';
import type { Log } from '../turnContext.js';
import {
  InstructionsFiles,
  MAX_INSTRUCTIONS_CHARS,
  type InstructionsRead,
  type InstructionsText,
} from './instructionsFile.js';

export const AGENTS_FILE = 'AGENTS.md';
/** The workspace root's files, in the order the model gets them. */
export const ROOT_INSTRUCTIONS = [AGENTS_FILE, '.arbor/instructions.md'] as const;

/** One reader for the daemon's life: files are read again only when they change. */
const files = new InstructionsFiles();

export class TurnInstructions {
  private readonly root: readonly InstructionsText[];
  private readonly given = new Set<string>();
  private readonly listed: InstructionsFile[];

  constructor(
    private readonly workspaceRoot: string,
    /** Receives the whole list whenever it grows (the turn node's `instructions`). */
    private readonly list: (files: readonly InstructionsFile[]) => void,
    private readonly log: Log,
  ) {
    this.root = ROOT_INSTRUCTIONS.map((path) => this.read(path)).filter(
      (file): file is InstructionsText => file !== undefined,
    );
    for (const file of this.root) this.given.add(file.path);
    this.listed = this.root.map(listing);
    if (this.listed.length > 0) this.list(this.listed);
  }

  /** What every loop's system prompt ends with: the root's instructions, none when it has none. */
  sections(): string[] {
    if (this.root.length === 0) return [];
    return [
      'The workspace gives these instructions; follow them unless the user says otherwise.',
      ...this.root.map(section),
    ];
  }

  /**
   * A call's result, with the instructions of the nearest `AGENTS.md` below
   * the root above the file it wrote, the first time this turn writes under
   * that file's directory.
   */
  afterTool(tool: Tool, args: unknown, result: ToolResult): ToolResult {
    if (tool.category !== 'write' || tool.targetPath === undefined) return result;
    let target: string | undefined;
    try {
      target = tool.targetPath(args);
    } catch {
      return result;
    }
    if (target === undefined) return result;
    const nearest = this.nearestAgentsFile(target);
    if (nearest === undefined || this.given.has(nearest)) return result;
    this.given.add(nearest);
    const file = this.read(nearest);
    if (file === undefined) return result;
    this.listed.push(listing(file));
    this.list(this.listed);
    const folder = dirname(file.path);
    return {
      ...result,
      content: `${result.content}\n\n${section(file)}\n(These instructions apply to files under ${folder}/.)`,
    };
  }

  /** The nearest AGENTS.md in a directory strictly below the root, from `target`'s directory up. */
  private nearestAgentsFile(target: string): string | undefined {
    let relativeDir: string;
    try {
      const resolved = resolveInWorkspace(this.workspaceRoot, target);
      relativeDir = dirname(InstructionsFiles.relativePath(this.workspaceRoot, resolved.real));
    } catch {
      return undefined; // the tool refused it as well
    }
    for (let dir = relativeDir; dir !== '.' && dir !== '' && dir !== '/'; dir = dirname(dir)) {
      const candidate = `${dir}/${AGENTS_FILE}`;
      if (this.read(candidate) !== undefined) return candidate;
    }
    return undefined;
  }

  /** The file, or undefined when there is none or it was refused (logged). */
  private read(path: string): InstructionsText | undefined {
    const read: InstructionsRead | undefined = files.read(this.workspaceRoot, path);
    if (read === undefined) return undefined;
    if ('refused' in read) {
      this.log('warn', `instructions ${path} not given to the model: ${read.refused}`);
      return undefined;
    }
    return read;
  }
}

function listing(file: InstructionsText): InstructionsFile {
  return {
    path: file.path,
    chars: [...file.text].length,
    ...(file.truncated && { truncated: true }),
  };
}

/** One file as the model reads it, with a note where it was cut. */
function section(file: InstructionsText): string {
  const cut = file.truncated
    ? `\n[${file.path} is longer than ${MAX_INSTRUCTIONS_CHARS} characters: only its start is given]`
    : '';
  return `Instructions from ${file.path}:\n${file.text}${cut}`;
}
