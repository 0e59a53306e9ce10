/**
 * @arbor/protocol/client/view — the part of the client core that turns what
 * a client received into what it shows (tree, transcript, tool headers,
 * command completions), with no wire and no schemas: a webview can draw
 * with it without loading zod (its validator loads after the first paint).
 */
export { ANSWER_MAX_CHARS } from '../limits.js';
export * from './treeReducer.js';
export * from './nodeProgress.js';
export * from './turnTranscript.js';
export * from './toolCatalogue.js';
export * from './commandMatch.js';
