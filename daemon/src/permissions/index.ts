export * from './permissionMatrix.js';
export * from './grants.js';
export * from './approvalBroker.js';
export * from './permissionGate.js';
export type { SessionApprovals } from './sessionApprovals.js';
