import { Parser } from 'htmlparser2';

/** One sitemap file read: its page URLs (`<urlset><url><loc>`) and the sitemaps it names (`<sitemapindex>`). */
export interface SitemapEntries {
  urls: string[];
  sitemaps: string[];
}

/**
 * Parses an XML sitemap or sitemap index (sitemaps.org 0.9) with a streaming XML parser, taking at most `maxUrls`
 * page URLs. A plain-text sitemap (one URL a line, also allowed by the protocol) is read too.
 */
export function parseSitemap(text: string, maxUrls = 50_000): SitemapEntries {
  const urls: string[] = [];
  const sitemaps: string[] = [];
  if (!/^\s*(<\?xml|<)/.test(text)) {
    for (const line of text.split(/\r?\n/)) {
      const url = line.trim();
      if (/^https?:\/\//i.test(url) && urls.length < maxUrls) urls.push(url);
    }
    return { urls, sitemaps };
  }
  const stack: string[] = [];
  let loc: string | undefined;
  const parser = new Parser(
    {
      onopentag(name) {
        stack.push(localName(name));
        if (localName(name) === 'loc') loc = '';
      },
      ontext(data) {
        if (loc !== undefined) loc += data;
      },
      onclosetag(name) {
        const local = localName(name);
        stack.pop();
        if (local !== 'loc' || loc === undefined) return;
        const value = loc.trim();
        loc = undefined;
        const parent = stack[stack.length - 1];
        if (!value) return;
        if (parent === 'sitemap') sitemaps.push(value);
        else if (parent === 'url' && urls.length < maxUrls) urls.push(value);
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(text);
  parser.end();
  return { urls, sitemaps };
}

function localName(name: string): string {
  const i = name.indexOf(':');
  return (i >= 0 ? name.slice(i + 1) : name).toLowerCase();
}
