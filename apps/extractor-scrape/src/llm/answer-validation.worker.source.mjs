// The answer-validation worker when Trawl runs from its TypeScript sources (in-process tests under Jest): TypeScript
// is compiled on load by SWC (see ../content/ts-source-hooks.mjs). A build runs the compiled worker instead.
import { register } from 'node:module';

register('../content/ts-source-hooks.mjs', import.meta.url);
await import('./answer-validation.worker.ts');
