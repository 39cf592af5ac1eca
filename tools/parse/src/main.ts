import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { TrawlError } from '@trawl/contracts';
import { PAGE_KINDS, parsePage, type PageKind } from './parse-command.handler.js';

const USAGE = `usage: npm run parse -- <${PAGE_KINDS.join('|')}> <file> [--url URL] [--q QUERY] [--hl LANG] [--ll @LAT,LNG,ZOOMz] [--start N] [--record]

Prints the \`data\` the API would return for the saved page (JSON). --record prints only the parsed record
(the inner \`data\` of maps-search, maps-place and retail), without task ids and times.`;

function main(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      q: { type: 'string' },
      hl: { type: 'string' },
      ll: { type: 'string' },
      start: { type: 'string' },
      record: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [kind, file] = positionals;
  if (values.help || !kind || !file || !(PAGE_KINDS as readonly string[]).includes(kind)) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const page = readFileSync(file, 'utf8');
  const start = values.start === undefined ? undefined : Number(values.start);
  try {
    const data = parsePage(kind as PageKind, page, {
      url: values.url ?? pathToFileURL(resolve(file)).toString(),
      q: values.q,
      hl: values.hl,
      ll: values.ll,
      start,
    });
    const out = values.record && kind !== 'search' ? (data as { data: unknown }).data : data;
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof TrawlError) {
      process.stderr.write(`${e.code}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

process.exitCode = main(process.argv.slice(2));
