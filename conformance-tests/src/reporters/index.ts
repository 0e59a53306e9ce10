/** Every report format, by the name --reporter takes. */
import type { Report } from '../checks/report.js';
import { formatJunit } from './junit.js';
import { formatMarkdown } from './markdown.js';
import { formatPretty } from './pretty.js';

export function formatJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export const REPORTERS = {
  pretty: formatPretty,
  json: formatJson,
  junit: formatJunit,
  markdown: formatMarkdown,
} as const satisfies Record<string, (report: Report) => string>;

export type ReporterName = keyof typeof REPORTERS;

export const isReporter = (name: string): name is ReporterName => Object.hasOwn(REPORTERS, name);

export { formatJunit, formatMarkdown, formatPretty };
