/**
 * The context engine's tables (schema version 7). `artifacts`: tool results
 * kept out of the model's context, each with the reduced or offloaded text
 * the model got instead. `turn_contexts`: each turn as the model saw it (tool
 * calls and results, reduced where they were), the next turns' history.
 * Rows belong to a session and go with it. The messages table is never
 * touched: a loaded session shows every message as it was.
 */
import type { Database } from './sqlite/index.js';
import type { Artifact } from '../agent/context/artifacts.js';
import { isSummary } from '../agent/context/compaction.js';
import type { SessionContextStore } from '../agent/context/sessionContext.js';
import type { ProviderMessage } from '../providers/provider.js';
import { CHARS_PER_TOKEN } from './store.js';

interface ArtifactRow {
  id: string;
  turn_id: string;
  tool_call_id: string;
  content: string;
  tokens: number;
  reduced: string;
}

interface HistoryRow {
  turn_id: string;
  role: 'user' | 'assistant';
  content: string;
  context: string | null;
}

export class ContextTables {
  private readonly sql;

  constructor(
    db: Database,
    /** The store's write path (write lock at BEGIN, disk-reserve handling). */
    private readonly write: <T>(fn: () => T) => T,
    private readonly timestamp: () => string,
    /** The disk is full and the store writes into its reserve, kept for the turn's end. */
    private readonly onReserve: () => boolean,
  ) {
    const p = (source: string) => db.prepare(source);
    this.sql = {
      insertArtifact: p(
        `INSERT INTO artifacts (id, session_id, turn_id, tool_call_id, content, tokens, reduced, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      artifact: p(`SELECT * FROM artifacts WHERE id = ? AND session_id = ?`),
      saveTurn: p(
        `INSERT OR REPLACE INTO turn_contexts (turn_id, session_id, messages) VALUES (?, ?, ?)`,
      ),
      // Newest first, as historyForNextTurn: a turn's transcript when it has one, else its text.
      history: p(`SELECT m.turn_id, m.role, m.content, c.messages AS context
                  FROM messages m JOIN turns t ON t.id = m.turn_id
                  LEFT JOIN turn_contexts c ON c.turn_id = m.turn_id
                  WHERE m.session_id = ? AND m.role IN ('user', 'assistant') AND t.status <> 'running'
                  ORDER BY m.seq DESC`),
    };
  }

  /** One session's view: it never reads another session's rows. */
  of(sessionId: string): SessionContextStore {
    const { sql } = this;
    return {
      artifacts: {
        put: (artifact) => {
          this.write(() =>
            sql.insertArtifact.run(
              artifact.id,
              sessionId,
              artifact.turnId,
              artifact.toolCallId,
              artifact.content,
              artifact.tokens,
              artifact.reduced,
              this.timestamp(),
            ),
          );
        },
        get: (id) => {
          const row = sql.artifact.get(id, sessionId) as ArtifactRow | undefined;
          return row && toArtifact(row);
        },
      },
      saveTurn: (turnId, messages) => {
        // The reserve is for the turn's commit and idle event; the next turn then sees this one as text.
        if (this.onReserve()) return;
        this.write(() => sql.saveTurn.run(turnId, sessionId, JSON.stringify(messages)));
      },
      history: (maxTokens) => {
        const turns: ProviderMessage[][] = [];
        const seen = new Set<string>();
        let tokens = 0;
        for (const row of sql.history.iterate(sessionId) as IterableIterator<HistoryRow>) {
          if (seen.has(row.turn_id) && row.context !== null) continue;
          seen.add(row.turn_id);
          if (row.context === null && row.role === 'assistant' && row.content === '') continue;
          const text = row.context ?? row.content;
          tokens += Math.ceil(text.length / CHARS_PER_TOKEN);
          if (tokens > maxTokens) break;
          const turn =
            row.context === null
              ? [{ role: row.role, content: row.content }]
              : (JSON.parse(row.context) as ProviderMessage[]);
          turns.push(turn);
          // A turn that compacted the ones before it starts with their summary: older turns are in it.
          if (isSummary(turn[0])) break;
        }
        const history = turns.reverse().flat();
        while (history.length > 0 && history[0]!.role !== 'user') history.shift();
        return history;
      },
    };
  }
}

function toArtifact(row: ArtifactRow): Artifact {
  return {
    id: row.id,
    turnId: row.turn_id,
    toolCallId: row.tool_call_id,
    content: row.content,
    tokens: row.tokens,
    reduced: row.reduced,
  };
}
