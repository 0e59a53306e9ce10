/**
 * The coverage matrix is whole and current: every MUST sentence of the spec is
 * judged by a check, explained as unobservable, or listed as a gap; nothing
 * cites a vanished anchor; and the published page equals the generated one.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { anchorsOf } from '../scripts/specCoverage/specAnchors.js';
import { buildMatrix, problems } from '../scripts/specCoverage/matrix.js';
import { renderCoveragePage } from '../scripts/specCoverage/page.js';
import { COVERAGE_PAGE, SPEC_DIR } from '../scripts/specCoverage/specAnchors.js';

describe('the coverage matrix', () => {
  it('finds normative sentences by their keywords and skips section anchors', () => {
    const found = anchorsOf(
      'x.md',
      [
        '<a id="sec"></a>',
        '## A section',
        '',
        '- <a id="one"></a>A daemon MUST answer. <a id="two"></a>It SHOULD log.',
        '- <a id="three"></a>It MAY wait.',
      ].join('\n'),
    );
    assert.deepEqual(
      found.map((a) => [a.ref, a.tier]),
      [
        ['x.md#one', 'MUST'],
        ['x.md#two', 'SHOULD'],
      ],
    );
  });

  it('leaves no MUST sentence without a check, an unobservable reason or a gap entry, and no stale entry', () => {
    assert.deepEqual(problems(), []);
  });

  it(`is published as protocol-spec/spec/${COVERAGE_PAGE}, regenerated (npm run generate)`, () => {
    const published = readFileSync(`${SPEC_DIR}${COVERAGE_PAGE}`, 'utf8');
    assert.equal(published, renderCoveragePage(buildMatrix()), `${COVERAGE_PAGE} is stale`);
  });
});
