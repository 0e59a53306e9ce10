/**
 * Limits a client's view needs without the protocol's schemas (the webview
 * draws with them and loads no zod before its first paint); the schemas
 * that enforce them import them from here.
 */

/** Longest answer to a question (`question/answer`), in Unicode code points. */
export const ANSWER_MAX_CHARS = 10_000;
