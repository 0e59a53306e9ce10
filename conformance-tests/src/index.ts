/** @arbor/conformance: the programmatic API behind the arbor-conformance CLI. */
export { CHECKS, findCheck, type CheckDef, type Role, type Tier } from './checks/registry.js';
export type { CheckResult, Status } from './checks/results.js';
export { decide, type Report, type StaleEntry, type Verdict } from './checks/report.js';
export { BaselineError, formatBaseline, parseBaseline } from './checks/baseline.js';
export {
  REPORTERS,
  formatJson,
  formatJunit,
  formatMarkdown,
  formatPretty,
  type ReporterName,
} from './reporters/index.js';
export {
  runDaemonSuite,
  runClientSuite,
  writeOutputDir,
  type SuiteOptions,
  type SuiteResult,
} from './suite.js';
export type { DaemonTarget } from './scenarios/daemon/context.js';
export type { ClientTarget } from './scenarios/client/context.js';
export { main } from './cli.js';
