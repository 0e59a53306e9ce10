/** Writes protocol-spec/spec/conformance-coverage.md from the checks, the scenarios and the spec. */
import { writeFileSync } from 'node:fs';
import { buildMatrix } from './specCoverage/matrix.js';
import { renderCoveragePage } from './specCoverage/page.js';
import { COVERAGE_PAGE, SPEC_DIR } from './specCoverage/specAnchors.js';

writeFileSync(`${SPEC_DIR}${COVERAGE_PAGE}`, renderCoveragePage(buildMatrix()));
