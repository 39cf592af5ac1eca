import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

export interface SavedPage {
  body: Buffer;
  contentType: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Saved pages served by request path from a folder: `/dp/B0TEST` → `<dir>/dp/B0TEST.html` (or the path itself, or
 * `<path>/index.html`). The query string is ignored, so `/search?q=x` is `<dir>/search.html`. Paths that leave the
 * folder are refused.
 */
export class SavedPages {
  private readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  async find(pathname: string): Promise<SavedPage | undefined> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return undefined;
    }
    const rel = normalize(decoded).replace(/^([/\\])+/, '');
    const base = join(this.root, rel);
    if (base !== this.root && !base.startsWith(this.root + sep)) return undefined;
    const candidates = rel === '' ? [join(this.root, 'index.html')] : [base, `${base}.html`, join(base, 'index.html')];
    for (const file of candidates) {
      const info = await stat(file).catch(() => undefined);
      if (info?.isFile()) {
        return {
          body: await readFile(file),
          contentType: TYPES[extname(file).toLowerCase()] ?? 'text/html; charset=utf-8',
        };
      }
    }
    return undefined;
  }
}
