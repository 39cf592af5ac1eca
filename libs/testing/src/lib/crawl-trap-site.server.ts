import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';

/** A local site full of crawler traps, and a second host beside it (issue 23's "must show"). */
export interface CrawlTrapSite {
  /** http://127.0.0.1:<port> */
  url: string;
  /** http://127.0.0.2:<port>: another host the site links to; a crawl of the site must never fetch it. */
  otherUrl: string;
  /** Paths (with query) requested from the site, in order. */
  requests: string[];
  /** Paths requested from the other host. */
  otherRequests: string[];
  /** Most requests the site had in flight at once. */
  maxInFlight(): number;
  /** The pages a crawl of depth `maxDepth` must store once each (paths), calendar months included. */
  realPages(maxDepth: number): string[];
  /** Pages listed in the sitemaps (paths, allowed by robots.txt). */
  sitemapPages: string[];
  /** Pages found only through links (paths). */
  linkOnlyPages: string[];
  close(): Promise<void>;
}

const html = (title: string, body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><h1>${title}</h1>${body}</body></html>`;
const links = (hrefs: string[]) => hrefs.map((h) => `<p><a href="${h}">${h}</a></p>`).join('\n');

/**
 * Serves: robots.txt (disallows /private/, names a sitemap index), a sitemap index of a plain and a gzip sitemap that
 * miss some pages, pages reachable only by links (/about, /hidden/1, /hidden/2), an endless calendar
 * (/calendar?month=N links month N+1), session ids in links to /p whose canonical is /p, fragments, a redirect loop
 * (/loop/a ⇄ /loop/b), links to the other host. Every answer waits `delayMs`, so requests overlap.
 */
export async function startCrawlTrapSite(options: { delayMs?: number } = {}): Promise<CrawlTrapSite> {
  const delayMs = options.delayMs ?? 20;
  const requests: string[] = [];
  const otherRequests: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let base = '';
  let other = '';

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => (inFlight -= 1));
    const u = new URL(path, base);
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
      setTimeout(() => {
        res.writeHead(status, { 'content-type': type, ...headers });
        res.end(body);
      }, delayMs);
    };
    const page = (title: string, body: string, head = '') =>
      send(200, 'text/html; charset=utf-8', html(title, body, head));
    switch (u.pathname) {
      case '/robots.txt':
        return send(200, 'text/plain', `User-agent: *\nDisallow: /private/\n\nSitemap: ${base}/sitemap_index.xml\n`);
      case '/sitemap_index.xml':
        return send(
          200,
          'application/xml',
          `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
            `<sitemap><loc>${base}/sitemap-a.xml</loc></sitemap><sitemap><loc>${base}/sitemap-b.xml.gz</loc></sitemap></sitemapindex>`,
        );
      case '/sitemap-a.xml':
        return send(
          200,
          'application/xml',
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
            `<url><loc>${base}/</loc></url><url><loc>${base}/docs/1</loc></url><url><loc>${base}/docs/2</loc></url></urlset>`,
        );
      case '/sitemap-b.xml.gz':
        return send(
          200,
          'application/gzip',
          gzipSync(
            `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
              `<url><loc>${base}/docs/3</loc></url><url><loc>${base}/private/listed</loc></url></urlset>`,
          ),
        );
      case '/':
        return page(
          'Home',
          links([
            '/docs/1',
            '/about#team',
            '/about',
            '/calendar?month=0',
            '/p?sid=home',
            '/loop/a',
            '/private/secret',
            `${other}/elsewhere`,
            '/docs/1#intro',
            'mailto:someone@example.com',
          ]),
        );
      case '/about':
        return page('About', links(['/hidden/1', '/p', '/#top']));
      case '/hidden/1':
        return page('Hidden one', links(['/hidden/2', '/HIDDEN/../hidden/1']));
      case '/hidden/2':
        return page('Hidden two', links(['/hidden/1', `${other}/more`]));
      case '/docs/1':
      case '/docs/2':
      case '/docs/3': {
        const n = Number(u.pathname.slice(-1));
        return page(`Doc ${n}`, links([`/docs/${(n % 3) + 1}`, `/p?sid=doc${n}`, '/private/doc']));
      }
      case '/p':
        return page('Product', links(['/']), `<link rel="canonical" href="${base}/p">`);
      case '/calendar': {
        const month = Number(u.searchParams.get('month') ?? 0);
        return page(`Calendar ${month}`, links([`/calendar?month=${month + 1}`, `/calendar?month=${month - 1}`]));
      }
      case '/loop/a':
        return send(302, 'text/plain', '', { location: '/loop/b' });
      case '/loop/b':
        return send(302, 'text/plain', '', { location: '/loop/a' });
      default:
        return send(404, 'text/plain', 'not found');
    }
  });
  const otherServer = createServer((req, res) => {
    otherRequests.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html('Elsewhere', ''));
  });
  await listen(server, '127.0.0.1', 0);
  const port = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;
  await listen(otherServer, '127.0.0.2', port).catch(() => listen(otherServer, '127.0.0.2', 0));
  other = `http://127.0.0.2:${(otherServer.address() as { port: number }).port}`;
  return {
    url: base,
    otherUrl: other,
    requests,
    otherRequests,
    maxInFlight: () => maxInFlight,
    // Calendar month m is m + 1 link hops from the home page (month -1 is 2 hops: via month 0).
    realPages: (maxDepth) => [
      '/',
      '/about',
      '/hidden/1',
      '/hidden/2',
      '/docs/1',
      '/docs/2',
      '/docs/3',
      '/p',
      ...Array.from({ length: Math.max(0, maxDepth) }, (_, m) => `/calendar?month=${m}`),
      ...Array.from({ length: Math.max(0, maxDepth - 1) }, (_, m) => `/calendar?month=${-(m + 1)}`),
    ],
    sitemapPages: ['/', '/docs/1', '/docs/2', '/docs/3'],
    linkOnlyPages: ['/about', '/hidden/1', '/hidden/2', '/p'],
    close: async () => {
      for (const s of [server, otherServer]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
