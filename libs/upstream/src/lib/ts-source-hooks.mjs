// Module hooks for running the parse-work worker from TypeScript sources: `.ts` files are compiled with SWC (the
// settings of jest.preset.js), `./x.js` imports find `./x.ts`, and `@trawl/<lib>` maps to libs/<lib>/src/index.ts.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from '@swc/core';

const workspace = new URL('../../../../', import.meta.url);

export async function resolve(specifier, context, next) {
  const alias = /^@trawl\/([a-z0-9-]+)$/.exec(specifier);
  if (alias) return { url: new URL(`libs/${alias[1]}/src/index.ts`, workspace).href, shortCircuit: true };
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const ts = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
    if (existsSync(fileURLToPath(ts))) return { url: ts.href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, 'utf8'), {
    filename: path,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  });
  return { format: 'module', source: code, shortCircuit: true };
}
