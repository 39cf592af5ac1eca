// The parse-work worker when Trawl runs from its TypeScript sources (in-process tests under Jest): TypeScript is
// compiled on load by SWC (see ts-source-hooks.mjs). A build runs the compiled parse-work.worker.js instead.
import { register } from 'node:module';

register('./ts-source-hooks.mjs', import.meta.url);
const { default: parseWork } = await import('./parse-work.worker.ts');

export default parseWork;
