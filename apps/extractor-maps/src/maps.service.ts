import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type {
  ExtractUrlRequestDto,
  MapsSearchData,
  MapsSearchRequestDto,
  MapsSearchResponse,
  PlaceRecord,
} from '@trawl/contracts';
import { buildMapsSearchUrl, DEFAULT_MAPS_PAGE_SIZE, parseMapsSearch, parsePlacePage } from '@trawl/parsers';
import { GOOGLE_CONSENT_COOKIE, replyDeadlineMs, UpstreamFetcher, UpstreamOrigin } from '@trawl/upstream';

export const MAPS_ORIGIN = Symbol('MAPS_ORIGIN');

/**
 * Map searches and single places. A search fetches as many result pages (DEFAULT_MAPS_PAGE_SIZE places each) as
 * `num` needs, one after another under one deadline, and stops early at a short page. URLs given to /extract are
 * fetched as given, or re-pointed at the simulator in simulator mode (see README).
 */
@Injectable()
export class MapsService {
  constructor(
    private readonly fetcher: UpstreamFetcher,
    @Inject(MAPS_ORIGIN) private readonly origin: UpstreamOrigin,
  ) {}

  async search(req: MapsSearchRequestDto): Promise<MapsSearchResponse> {
    const processedOn = new Date();
    const deadline = this.fetcher.deadline(replyDeadlineMs(req.timeout));
    const start = req.start ?? 0;
    const wanted = req.num ?? DEFAULT_MAPS_PAGE_SIZE;
    let merged: MapsSearchData | undefined;
    for (let offset = start; offset < start + wanted; offset += DEFAULT_MAPS_PAGE_SIZE) {
      const num = Math.min(DEFAULT_MAPS_PAGE_SIZE, start + wanted - offset);
      const requestUrl = buildMapsSearchUrl(this.origin.base.toString(), {
        q: req.q,
        ll: req.ll,
        hl: req.hl,
        num,
        start: offset,
      });
      const page = await this.fetcher.fetchParsed(
        requestUrl,
        { deadline, hl: req.hl, what: 'maps search', headers: { cookie: GOOGLE_CONSENT_COOKIE } },
        (p) => parseMapsSearch(p.html, { q: req.q, hl: req.hl, ll: req.ll, requestUrl, now: processedOn }),
      );
      merged = merged ? concatPlaces(merged, page) : page;
      if (page.organicResults.length < num) break;
    }
    const data = merged as MapsSearchData;
    data.organicResults = data.organicResults.slice(0, wanted);
    return {
      data,
      taskId: randomUUID(),
      status: 'completed',
      finishedOn: new Date().toISOString(),
      processedOn: processedOn.toISOString(),
      stacktrace: null,
      totalResults: data.organicResults.length,
    };
  }

  /** A place page URL (type `mp-maps`). */
  place(req: ExtractUrlRequestDto): Promise<PlaceRecord> {
    return this.fetcher.fetchParsed(this.origin.rebase(req.url), this.urlOptions(req, 'place page'), (p) =>
      parsePlacePage(p.html, { url: req.url }),
    );
  }

  /** A maps search URL (type `mp-search`). */
  searchUrl(req: ExtractUrlRequestDto): Promise<MapsSearchData> {
    const u = new URL(req.url);
    const q =
      u.searchParams.get('q') ??
      decodeURIComponent(/\/maps\/search\/([^/]+)/.exec(u.pathname)?.[1] ?? '').replace(/\+/g, ' ');
    const ll = /@(-?[\d.]+,-?[\d.]+,[\d.]+z)/.exec(u.pathname)?.[1];
    const hl = u.searchParams.get('hl') ?? (typeof req.params?.hl === 'string' ? req.params.hl : 'en');
    return this.fetcher.fetchParsed(this.origin.rebase(req.url), this.urlOptions(req, 'maps search page'), (p) =>
      parseMapsSearch(p.html, { q, hl, ll, requestUrl: req.url }),
    );
  }

  private urlOptions(req: ExtractUrlRequestDto, what: string) {
    const hl = typeof req.params?.hl === 'string' ? req.params.hl : undefined;
    return { timeoutMs: replyDeadlineMs(req.timeout), hl, what, headers: { cookie: GOOGLE_CONSENT_COOKIE } };
  }
}

function concatPlaces(first: MapsSearchData, next: MapsSearchData): MapsSearchData {
  const seen = new Set(first.organicResults.map((p) => p.place_id || p.cid || p.name));
  const fresh = next.organicResults.filter((p) => !seen.has(p.place_id || p.cid || p.name));
  return { ...first, organicResults: [...first.organicResults, ...fresh] };
}
