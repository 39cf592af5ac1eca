import { describe, expect, it } from '@jest/globals';
import type { RenderPageRequestDto } from '@trawl/contracts';
import {
  GOOGLE_HOST,
  ParseWorkPool,
  UpstreamFetcher,
  UpstreamOrigin,
  UpstreamPageSource,
  type FetchFn,
} from '@trawl/upstream';
import { MapsService } from './maps.service.js';

/** Parses on the event loop (the pool's threads are tested in libs/upstream). */
const INLINE = new ParseWorkPool({ threads: 1, budgetMs: 10_000, inlineBelowChars: Number.MAX_SAFE_INTEGER });

const WALL = '<html><body><noscript>Enable JavaScript to see Google Maps.</noscript></body></html>';

/** A maps service over stub HTTP (always the wall) and a stub fleet that records what it was asked to render. */
function service() {
  const fetched: string[] = [];
  const fetch: FetchFn = (url) => {
    fetched.push(url);
    return Promise.resolve({
      status: 200,
      url,
      headers: { get: () => 'text/html' },
      text: () => Promise.resolve(WALL),
    });
  };
  const renders: RenderPageRequestDto[] = [];
  const pages = new UpstreamPageSource({
    fetcher: new UpstreamFetcher({ fetch }),
    defaultEngine: 'auto',
    browserMemoryMs: 0,
    render: (req) => {
      renders.push(req);
      return Promise.resolve({ url: req.url, status: 200, headers: {}, html: WALL, renderMs: 1 });
    },
  });
  const maps = new MapsService(pages, new UpstreamOrigin('http://127.0.0.1:8090', GOOGLE_HOST), INLINE);
  return { maps, fetched, renders };
}

describe('MapsService engines', () => {
  it('in a browser renders the /maps/search/<q>/@lat,lng,zoomz page (not the JSON endpoint), with the consent cookie', async () => {
    const { maps, fetched, renders } = service();
    await maps
      .search({ q: 'coffee athens', ll: '@37.98,23.72,14z', hl: 'en', timeout: 5000, engine: 'browser' })
      .catch(() => undefined);
    expect(fetched).toEqual([]);
    expect(renders.map((r) => r.url)).toEqual([
      'http://127.0.0.1:8090/maps/search/coffee+athens/@37.98,23.72,14z?hl=en',
    ]);
    expect(renders[0].cookies?.map((c) => c.name)).toEqual(['CONSENT', 'SOCS']);
  });

  it('in auto fetches the JSON endpoint first, then renders the search page when it meets the wall', async () => {
    const { maps, fetched, renders } = service();
    await maps.search({ q: 'tea', ll: '37.98,23.72,14z', hl: 'de', timeout: 5000 }).catch(() => undefined);
    expect(fetched).toHaveLength(1);
    expect(new URL(fetched[0]).searchParams.get('tbm')).toBe('map');
    expect(renders.map((r) => r.url)).toEqual(['http://127.0.0.1:8090/maps/search/tea/@37.98,23.72,14z?hl=de']);
  });

  it('renders a maps search URL given to /extract as it is (re-pointed at the simulator)', async () => {
    const { maps, renders } = service();
    await maps
      .searchUrl({ url: 'https://www.google.com/maps/search/bike/@52.5,13.4,13z', timeout: 5000, engine: 'browser' })
      .catch(() => undefined);
    expect(renders.map((r) => r.url)).toEqual(['http://127.0.0.1:8090/maps/search/bike/@52.5,13.4,13z']);
  });
});
