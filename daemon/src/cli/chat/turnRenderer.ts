/**
 * Renders one turn of a SessionView. Live (a terminal): streamed text scrolls
 * while the tree, plan and approval prompt are redrawn below it with
 * spinners. Plain (a pipe): text is written as it streams, notices as they
 * happen, and the tree is printed once at the end — no escape sequences.
 */
import type { StopReason } from '@arbor/protocol';
import type { Disposable, SessionView, ToolCatalogue } from '@arbor/protocol/client';
import type { ApprovalDisplay } from './approvalPrompt.js';
import { changesOfView, formatTurnChanges } from './checkpointCommands.js';
import { LiveScreen, type ScreenStream } from './liveScreen.js';
import {
  formatBudget,
  formatCostSummary,
  formatPlan,
  formatTree,
  formatTurnEnd,
} from './turnFormat.js';
import type { Style } from './terminalStyle.js';

export interface TurnRendererOptions {
  out: ScreenStream;
  style: Style;
  live: boolean;
  /** Spinner / running-time refresh period on a terminal. */
  frameMs?: number;
  /** The session's tools, for tool lines that say what each call is about. */
  tools?: ToolCatalogue;
}

export interface TurnEnd {
  stopReason: StopReason;
  error?: string | undefined;
}

export class TurnRenderer implements ApprovalDisplay, Disposable {
  readonly #view: SessionView;
  readonly #out: ScreenStream;
  readonly #style: Style;
  readonly #tools: ToolCatalogue | undefined;
  readonly #screen: LiveScreen | undefined;
  readonly #subscriptions: Disposable[] = [];
  #timer: NodeJS.Timeout | undefined;
  #pending: NodeJS.Timeout | undefined;
  #frame = 0;
  #prompt: readonly string[] | undefined;
  /** What is typed at a question, shown under its prompt (live only). */
  #typed: string | undefined;
  /** Plain mode: whether the output ends at the start of a row. */
  #atRowStart = true;
  #wroteText = false;

  constructor(view: SessionView, options: TurnRendererOptions) {
    this.#view = view;
    this.#out = options.out;
    this.#style = options.style;
    this.#tools = options.tools;
    if (options.live) {
      this.#screen = new LiveScreen(options.out);
      this.#timer = setInterval(() => {
        this.#frame++;
        this.#redraw();
      }, options.frameMs ?? 100);
      this.#timer.unref();
    }
    this.#subscriptions.push(
      view.on('text', (chunk) => {
        const node = view.tree.get(chunk.nodeId);
        const isAnswer = node ? node.kind === 'turn' : chunk.nodeId === chunk.turnId;
        if (isAnswer) this.#text(chunk.text);
      }),
      view.on('tree', () => this.#scheduleRedraw()),
      view.on('reset', () => this.#scheduleRedraw()),
      view.on('plan', () => this.#scheduleRedraw()),
      view.on('budget', (notice) => this.note([formatBudget(notice, this.#style)])),
    );
    this.#redraw();
  }

  prompt(lines: readonly string[] | undefined): void {
    this.#prompt = lines;
    if (this.#screen) this.#redraw();
    else if (lines) this.#print(lines);
  }

  /** Live: the answer being typed shows under the prompt. Plain: stdout is no terminal to echo on. */
  typing(text: string | undefined): void {
    if (!this.#screen || text === this.#typed) return;
    this.#typed = text;
    this.#redraw();
  }

  note(lines: readonly string[]): void {
    if (this.#screen) this.#screen.print(lines);
    else this.#print(lines);
  }

  /** Prints the final tree, plan, cost summary and how the turn ended; stops redrawing. */
  finish(end: TurnEnd): void {
    this.dispose();
    const lines = [
      ...(this.#wroteText ? [''] : []),
      ...formatTree(this.#view.tree, { style: this.#style, now: Date.now(), tools: this.#tools }),
      ...this.#planLines(),
    ];
    const changes = formatTurnChanges(changesOfView(this.#view), this.#style);
    if (changes.length > 0) lines.push('', ...changes);
    const cost = this.#view.cost;
    if (cost) lines.push('', ...formatCostSummary(cost, this.#style));
    lines.push(formatTurnEnd(end.stopReason, this.#style, end.error));
    if (this.#screen) {
      this.#screen.setBlock([]);
      this.#screen.print(lines);
      this.#screen.clear();
    } else {
      this.#print(lines);
    }
  }

  /** Stops listening and redrawing (finish() calls it). */
  dispose(): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#pending) clearTimeout(this.#pending);
    this.#timer = undefined;
    this.#pending = undefined;
    for (const subscription of this.#subscriptions.splice(0)) subscription.dispose();
  }

  #text(text: string): void {
    this.#wroteText = true;
    if (this.#screen) {
      this.#screen.text(text);
      return;
    }
    this.#out.write(text);
    this.#atRowStart = text.endsWith('\n');
  }

  #print(lines: readonly string[]): void {
    const lead = this.#atRowStart ? '' : '\n';
    this.#out.write(`${lead}${lines.join('\n')}\n`);
    this.#atRowStart = true;
  }

  #planLines(): string[] {
    const plan = formatPlan(this.#view.plan, this.#style);
    return plan.length > 0 ? ['', ...plan] : [];
  }

  /** Bursts of tree updates (parallel tools) are drawn once. */
  #scheduleRedraw(): void {
    if (!this.#screen || this.#pending) return;
    this.#pending = setTimeout(() => {
      this.#pending = undefined;
      this.#redraw();
    }, 30);
  }

  #redraw(): void {
    if (!this.#screen || this.#timer === undefined) return;
    if (this.#pending) {
      clearTimeout(this.#pending);
      this.#pending = undefined;
    }
    const tree = formatTree(this.#view.tree, {
      style: this.#style,
      now: Date.now(),
      spinnerFrame: this.#frame,
      tools: this.#tools,
    });
    const block = ['', ...tree, ...this.#planLines()];
    if (this.#prompt) block.push('', ...this.#prompt);
    if (this.#prompt && this.#typed !== undefined) block.push(`  › ${this.#typed}`);
    this.#screen.setBlock(block);
  }
}
