// `npm run completeness [-- --fixtures DIR] [--write]`: prints the field-completeness table (markdown); --write also
// records the figures (completeness.recorded.json, which the guard test holds the parsers to) and puts the table in
// libs/parsers/README.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { localeMatrixRecords, sharedFixtureRecords } from './completeness-corpus.reader.js';
import {
  completenessMarkdown,
  completenessRows,
  toRecorded,
  withCompletenessSection,
} from './completeness-table.renderer.js';

export const RECORDED_FILE = 'tools/upstream-simulator/src/completeness/completeness.recorded.json';
export const PARSERS_README = 'libs/parsers/README.md';

function main(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      fixtures: { type: 'string', default: join('..', 'shared', 'fixtures') },
      root: { type: 'string', default: '.' },
      write: { type: 'boolean', default: false },
    },
  });
  const root = resolve(values.root ?? '.');
  const fixtures = sharedFixtureRecords(resolve(root, values.fixtures ?? ''));
  if (!fixtures) process.stderr.write(`[completeness] ${values.fixtures} not found: shared-fixture rates left out\n`);
  const rows = completenessRows(localeMatrixRecords(), fixtures);
  const table = completenessMarkdown(rows);
  process.stdout.write(`${table}\n`);
  if (values.write) {
    writeFileSync(join(root, RECORDED_FILE), `${JSON.stringify(toRecorded(rows), null, 2)}\n`);
    const readme = join(root, PARSERS_README);
    writeFileSync(readme, withCompletenessSection(readFileSync(readme, 'utf8'), table));
    process.stderr.write(`[completeness] wrote ${RECORDED_FILE} and ${PARSERS_README}\n`);
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
