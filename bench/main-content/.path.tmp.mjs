import { readFileSync } from 'node:fs';
import { parseDocument } from 'htmlparser2';
const dir='/work/shared/fixtures/main-content';
const truth = JSON.parse(readFileSync(dir+'/ground-truth.json','utf8'));
const id = Object.keys(truth).find(k=>k.startsWith(process.argv[2]));
const doc = parseDocument(readFileSync(`${dir}/html/${id}.html`,'utf8'));
const needle = process.argv[3];
const walk = (n) => { if (n.type==='text' && n.data.includes(needle)) { const p=[]; for (let a=n.parent;a;a=a.parent) if(a.name) p.unshift(`${a.name}${a.attribs.id?'#'+a.attribs.id:''}${a.attribs.class?'.'+a.attribs.class.replace(/\s+/g,'.').slice(0,40):''}`); console.log(p.join(' > ')); } (n.children||[]).forEach(walk); };
walk(doc);
