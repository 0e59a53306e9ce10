/**
 * An agent profile's data policy (`dataPolicy`): what of a turn the daemon
 * keeps once the turn is over. Live clients see the whole turn as it runs;
 * what goes to disk — the event log, the stored message, tree and parts,
 * the transcript later turns start from, the artifacts — is the policy's
 * form of it, and the stored message says what was left out
 * (sessions.md#stored-omitted), so a reloaded turn never looks complete when
 * it is not.
 *
 * - `text: false`: the model's text (root and subtasks) is not kept;
 * - `toolCalls: false`: tool calls keep their name, status and timing, not their arguments;
 * - `toolResults: false`, `dropResultsOf`: the results (previews, output, artifacts) are not kept.
 */
import {
  Methods,
  type ExecutionTreeNode,
  type ExecutionTreeSnapshot,
  type OmittedData,
  type StoredPart,
} from '@arbor/protocol';
import type { ProviderMessage } from '../providers/provider.js';
import {
  MemoryArtifactStore,
  type Artifact,
  type ArtifactStore,
} from '../agent/context/artifacts.js';
import { matchesToolPattern, type DataPolicy, type NamedAgentProfile } from './agentProfile.js';

/** What a stored chat/chunk says instead of its text (the event stays: replay has no gaps). */
export const NOT_KEPT_TEXT = '…';
/** What a stored transcript says instead of a result the policy keeps out. */
export const NOT_KEPT_RESULT = '[result not kept: the agent profile keeps no results of this tool]';

/** The order `omitted` lists them in. */
const OMITTED_ORDER: readonly OmittedData[] = ['text', 'toolCalls', 'toolResults'];

export class TurnDataPolicy {
  /** What this turn has really left out so far: only that is reported. */
  private readonly dropped = new Set<OmittedData>();

  private constructor(private readonly policy: DataPolicy) {}

  /** The profile's policy; undefined when it keeps everything (the default). */
  static of(agent: NamedAgentProfile | undefined): TurnDataPolicy | undefined {
    const policy = agent?.profile.dataPolicy;
    if (
      policy === undefined ||
      (policy.text && policy.toolCalls && policy.toolResults && policy.dropResultsOf.length === 0)
    )
      return undefined;
    return new TurnDataPolicy(policy);
  }

  /** Whether some tool results may be left out: then artifacts stay in memory for the turn. */
  get dropsResults(): boolean {
    return !this.policy.toolResults || this.policy.dropResultsOf.length > 0;
  }

  /** What the turn left out, for the stored message; empty when nothing. */
  omitted(): OmittedData[] {
    return OMITTED_ORDER.filter((kind) => this.dropped.has(kind));
  }

  /** The answer's text as stored. */
  text(text: string): string {
    if (this.policy.text || text === '') return text;
    this.dropped.add('text');
    return '';
  }

  /** The turn's parts as stored: without text runs when text is not kept. */
  parts(parts: readonly StoredPart[]): StoredPart[] {
    if (this.policy.text) return [...parts];
    return parts.filter((part) => {
      if (part.type !== 'text') return true;
      this.dropped.add('text');
      return false;
    });
  }

  tree(tree: ExecutionTreeSnapshot): ExecutionTreeSnapshot {
    return { ...tree, nodes: tree.nodes.map((node) => this.node(node)) };
  }

  /** A node as stored: the turn node's result is the answer (text), the others' are tool results. */
  node(node: ExecutionTreeNode): ExecutionTreeNode {
    let kept = node;
    const without = (fields: readonly (keyof ExecutionTreeNode)[], kind: OmittedData): void => {
      for (const field of fields) {
        if (kept[field] === undefined) continue;
        if (kept === node) kept = { ...node };
        delete kept[field];
        this.dropped.add(kind);
      }
    };
    // The turn's result is its answer (an error message is not); a compaction's, a summary of the talk.
    if ((node.kind === 'turn' && node.isError !== true) || node.kind === 'compaction') {
      if (!this.policy.text) without(['resultPreview'], 'text');
      return kept;
    }
    if (node.kind === 'turn') return kept;
    if (!this.policy.toolCalls && (node.kind === 'tool' || node.kind === 'subtask'))
      without(['argsPreview', 'injectedArgs'], 'toolCalls');
    if (this.dropsResultOf(node.name))
      without(['resultPreview', 'output', 'artifactId'], 'toolResults');
    return kept;
  }

  /** A session event as the event log keeps it (clients got it whole). */
  event(
    method: string,
    params: Readonly<Record<string, unknown>>,
  ): Readonly<Record<string, unknown>> {
    if (method === Methods.TreeUpdate.method) {
      const nodes = params['nodes'] as readonly ExecutionTreeNode[];
      return { ...params, nodes: nodes.map((node) => this.node(node)) };
    }
    if (method === Methods.ChatChunk.method && !this.policy.text) {
      this.dropped.add('text');
      return { ...params, text: NOT_KEPT_TEXT };
    }
    return params;
  }

  /**
   * The transcript later turns start from, as stored: what the policy keeps
   * out is not there either (the model's calls and results stay paired).
   */
  transcript(messages: readonly ProviderMessage[]): ProviderMessage[] {
    return messages.map((message) => {
      if (message.role === 'assistant') {
        const { native: _native, ...rest } = message;
        const kept: ProviderMessage = {
          ...rest,
          content: this.policy.text ? message.content : '',
          ...(message.toolCalls && {
            toolCalls: this.policy.toolCalls
              ? message.toolCalls
              : message.toolCalls.map((call) => ({ ...call, arguments: {} })),
          }),
        };
        // The provider's own form repeats the text and the arguments.
        return this.policy.text && this.policy.toolCalls ? message : kept;
      }
      if (message.role === 'tool' && this.dropsResultOf(message.name)) {
        const { images: _images, ...rest } = message;
        return { ...rest, content: NOT_KEPT_RESULT };
      }
      return message;
    });
  }

  private dropsResultOf(tool: string): boolean {
    return !this.policy.toolResults || matchesToolPattern(tool, this.policy.dropResultsOf);
  }
}

/**
 * The session's artifacts for a turn whose policy leaves results out: the
 * turn's own are kept in memory for the turn only, earlier ones still read.
 */
export class TurnOnlyArtifacts implements ArtifactStore {
  private readonly turn = new MemoryArtifactStore();

  constructor(private readonly session: ArtifactStore) {}

  put(artifact: Artifact): void {
    this.turn.put(artifact);
  }

  get(id: string): Artifact | undefined {
    return this.turn.get(id) ?? this.session.get(id);
  }
}
