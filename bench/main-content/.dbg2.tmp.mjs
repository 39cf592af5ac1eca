import { register } from 'node:module';
import { readFileSync } from 'node:fs';
register('/work/wt-content/apps/extractor-scrape/src/content/ts-source-hooks.mjs', import.meta.url);
const { digestPage } = await import('/work/wt-content/apps/extractor-scrape/src/content/page-digest.extractor.ts');
const html = readFileSync(`/work/wt-content/apps/extractor-scrape/test/fixtures/non-article/${process.argv[2]}.html`,'utf8');
const o = await digestPage({ kind:'html', html, markdown:true, checkBrowser:false, onlyMainContent:true, url:'https://x.test/'});
console.log(o.digest.markdown);
