/**
 * @arbor/protocol/client — the client core every Arbor client shares (the VS
 * Code extension, `arbor chat`, the conformance driver). Runtime-neutral: the
 * Node-only transports live in `@arbor/protocol/client/node`.
 */
export * from './events.js';
export * from './clientErrors.js';
export * from './capabilities.js';
export * from './validation.js';
export * from './arborClient.js';
export * from './treeReducer.js';
export * from './nodeProgress.js';
export * from './turnTranscript.js';
export * from './toolCatalogue.js';
export * from './toolsList.js';
export * from './commandList.js';
export * from './agentList.js';
export * from './promptQueue.js';
export * from './approvalQueue.js';
export * from './questionQueue.js';
export * from './seqOrder.js';
export * from './sessionView.js';
export * from './sessionTracker.js';
