import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderOpenApiJson } from '../../../apps/gateway/src/openapi/index.js';

/**
 * Writes the gateway's OpenAPI document to openapi.json at the workspace root (`npm run openapi`), or with `--check`
 * exits 1 when the committed file differs from what the code describes. Nothing listens, nothing connects.
 */
async function main(argv: string[]): Promise<number> {
  const target = resolve(process.cwd(), 'openapi.json');
  const json = await renderOpenApiJson();
  if (argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(target, 'utf8');
    } catch {
      // missing: differs
    }
    if (committed === json) return 0;
    console.error(`${target} is out of date: run \`npm run openapi\` and commit it`);
    return 1;
  }
  writeFileSync(target, json);
  console.log(`wrote ${target}`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
