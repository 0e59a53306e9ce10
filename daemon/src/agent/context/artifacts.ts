/**
 * Artifacts: full tool results kept out of the model's context. The model
 * gets an id and pages through the text with read_artifact. The store's
 * implementation (store/contextStore.ts) keeps them in SQLite; the in-memory
 * one serves turns run without a store (tests, benchmarks).
 */
import { randomUUID } from 'node:crypto';

export interface Artifact {
  /** newArtifactId(): chosen by the caller, so the reduced text can name it. */
  id: string;
  turnId: string;
  toolCallId: string;
  /** The full text. */
  content: string;
  tokens: number;
  /** What the model is given instead of the full text. */
  reduced: string;
}

/** One session's artifacts. */
export interface ArtifactStore {
  put(artifact: Artifact): void;
  get(id: string): Artifact | undefined;
}

export function newArtifactId(): string {
  return `art_${randomUUID()}`;
}

export class MemoryArtifactStore implements ArtifactStore {
  private readonly artifacts = new Map<string, Artifact>();

  put(artifact: Artifact): void {
    this.artifacts.set(artifact.id, artifact);
  }

  get(id: string): Artifact | undefined {
    return this.artifacts.get(id);
  }
}
