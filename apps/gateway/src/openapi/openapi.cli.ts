import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderApiDocs } from './index.js';

/** Where `npm run openapi` writes, relative to the workspace root. */
export const OPENAPI_FILE = 'openapi.json';
export const CLIENT_TYPES_FILE = 'libs/client/src/lib/api-types.generated.ts';

/**
 * Writes the gateway's OpenAPI document to openapi.json and the client's types generated from it (`npm run
 * openapi`), or with `--check` exits 1 when a committed file differs from what the code describes. Nothing listens,
 * nothing connects.
 */
async function main(argv: string[]): Promise<number> {
  const { openApiJson, clientTypes } = await renderApiDocs();
  const files: [string, string][] = [
    [resolve(process.cwd(), OPENAPI_FILE), openApiJson],
    [resolve(process.cwd(), CLIENT_TYPES_FILE), clientTypes],
  ];
  if (argv.includes('--check')) {
    let stale = 0;
    for (const [path, text] of files) {
      let committed = '';
      try {
        committed = readFileSync(path, 'utf8');
      } catch {
        // missing: differs
      }
      if (committed !== text) {
        console.error(`${path} is out of date: run \`npm run openapi\` and commit it`);
        stale++;
      }
    }
    return stale === 0 ? 0 : 1;
  }
  for (const [path, text] of files) {
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
