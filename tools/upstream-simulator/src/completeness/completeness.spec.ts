// The guard on the published completeness figures: no field of any parser may be filled less often than recorded,
// and the README's table is the one the script generates from the same figures.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localeMatrixRecords, sharedFixtureRecords } from './completeness-corpus.reader.js';
import {
  completenessMarkdown,
  completenessRows,
  README_END,
  README_START,
  regressions,
  type RecordedCompleteness,
} from './completeness-table.renderer.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const fixturesDir = join(root, '..', 'shared', 'fixtures');
const recorded = JSON.parse(
  readFileSync(new URL('./completeness.recorded.json', import.meta.url), 'utf8'),
) as RecordedCompleteness;

describe('field completeness', () => {
  const fixtures = sharedFixtureRecords(fixturesDir);
  if (!fixtures) console.warn(`[completeness] ${fixturesDir} not found: checking the locale matrix only`);
  const rows = completenessRows(localeMatrixRecords(), fixtures);

  it('no field of any parser is filled less often than recorded (shared fixtures and locale matrix)', () => {
    expect(regressions(rows, recorded)).toEqual([]);
  });

  it('fails when a field is filled less often than recorded', () => {
    const worse = rows.map((r) =>
      r.parser === 'retail' && r.field === 'rating' ? { ...r, matrix: r.matrix - 0.2 } : r,
    );
    expect(regressions(worse, recorded)).toEqual([expect.stringContaining('retail rating: locale matrix')]);
  });

  (fixtures ? it : it.skip)('the parsers README holds the table the script generates', () => {
    const readme = readFileSync(join(root, 'libs/parsers/README.md'), 'utf8');
    const section = readme.slice(readme.indexOf(README_START), readme.indexOf(README_END) + README_END.length);
    // Compared cell by cell, so a markdown formatter aligning the columns does not count as a change.
    const cells = (md: string) =>
      md
        .split('\n')
        .map((l) =>
          l
            .split('|')
            .map((c) => c.trim().replace(/^-+(:?)$/, '-$1'))
            .join('|'),
        )
        .filter((l) => l !== '');
    expect(cells(section)).toEqual(cells(completenessMarkdown(rows)));
  });

  it('the recorded figures cover every parser', () => {
    expect(Object.keys(recorded).sort()).toEqual(['maps-place', 'maps-search', 'retail', 'search']);
    expect(existsSync(join(root, 'libs/parsers/README.md'))).toBe(true);
  });
});
