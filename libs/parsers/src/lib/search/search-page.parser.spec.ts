import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TrawlError } from '@trawl/contracts';
import { buildSearchUrl, encodeUule, parseSearchPage } from './index.js';

const fixture = (name: string): string =>
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', name), 'utf8');

function errorOf(fn: () => unknown): TrawlError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TrawlError) return e;
    throw e;
  }
  throw new Error('expected a TrawlError, nothing was thrown');
}

describe('parseSearchPage on a results page with organic results, sitelinks, PAA, related searches and a panel', () => {
  const page = parseSearchPage(fixture('serp-organic-rich.html'));

  it('reads the organic results in page order, leaving ads and PAA sources out', () => {
    expect(page.results.map((r) => r.title)).toEqual([
      'Solar Panels Explained | Energy Org',
      'SolarShop - Home',
      'DIY solar: a weekend project',
    ]);
    expect(page.results.map((r) => r.link)).toEqual([
      'https://energy.example.org/solar',
      'https://www.solarshop.example/',
      'https://blog.example.net/diy-solar',
    ]);
    expect(page.results.map((r) => r.realPosition)).toEqual([1, 2, 3]);
  });

  it('reads every field of a result: cite, site name, favicon data URI, date, snippet and its highlighted words', () => {
    const [first] = page.results;
    expect(first.displayLink).toBe('https://energy.example.org › solar');
    expect(first.domain).toBe('energy.example.org');
    expect(first.source).toBe('Energy Org');
    expect(first.favicon).toMatch(/^data:image\/png;base64,/);
    expect(first.date).toBe('Mar 3, 2024');
    expect(first.snippet).toBe('How solar panels turn sunlight into electricity, and what panels cost.');
    expect(first.snippetHighlightedWords).toEqual(['solar panels', 'panels']);
  });

  it('reads inline sitelinks, skipping Google utility links ("Translate this page") and links inside fact rows', () => {
    expect(page.results[0].sitelinks.inline).toEqual([
      { title: 'Costs', link: 'https://energy.example.org/solar/costs', snippet: '' },
      { title: 'Installation', link: 'https://energy.example.org/solar/install', snippet: '' },
    ]);
    expect(page.results[0].sitelinks.table).toEqual([]);
  });

  it('reads table sitelinks with their descriptions', () => {
    expect(page.results[1].sitelinks.table).toEqual([
      {
        title: 'Solar kits',
        link: 'https://www.solarshop.example/kits',
        snippet: 'Complete kits for roofs and balconies.',
      },
      {
        title: 'Batteries',
        link: 'https://www.solarshop.example/batteries',
        snippet: "Store the day's power for the night.",
      },
    ]);
    expect(page.results[1].date).toBe('');
  });

  it('unwraps /url?q= links and falls back to the domain for the site name when the page shows none', () => {
    expect(page.results[2].link).toBe('https://blog.example.net/diy-solar');
    expect(page.results[2].source).toBe('blog.example.net');
    expect(page.results[2].favicon).toBe('');
  });

  it('reads "people also ask" questions, with the answer, title and url when the page carries them', () => {
    expect(page.peopleAlsoAsk).toEqual([
      {
        question: 'Are solar panels worth it?',
        answer: 'Usually yes: they pay back within 8 to 12 years.',
        title: 'Is solar worth it? - Answers',
        url: 'https://answers.example.com/solar-worth',
      },
      { question: 'How long do solar panels last?', answer: '', title: '', url: null },
    ]);
  });

  it('reads related searches from their q parameter, without tabs, paging or entity links', () => {
    expect(page.relatedSearches).toEqual([{ query: 'Solar panels cost' }, { query: 'Solar panel grants' }]);
  });

  it('reads the knowledge panel: title, type, description, source, facts and the script-set image', () => {
    expect(page.knowledgePanel).toEqual({
      title: 'Solar panel',
      type: 'Device',
      description: 'A solar panel converts sunlight into electricity.',
      source: { name: 'Wikipedia', link: 'https://en.wikipedia.org/wiki/Solar_panel' },
      attributes: { Invented: '1954', 'Typical efficiency': '15–22%' },
      image: expect.stringMatching(/^data:image\/png;base64,iVBOR.*=AAAA/) as unknown as string,
    });
  });

  it('reads the text ad and the page language', () => {
    expect(page.ads).toEqual([
      {
        position: 1,
        title: 'Solar Panels 30% Off - Free Installation',
        link: 'https://www.sunshop.example/offer',
        displayLink: 'www.sunshop.example/',
        snippet: 'Certified installers near you. Get a free quote today.',
      },
    ]);
    expect(page.location).toEqual({ htmlLang: 'en-GB' });
    expect(page.aiOverview).toBeUndefined();
  });

  it('reads the local pack cards: name, rating, review count, type and address', () => {
    expect(page.localResults).toEqual([
      {
        position: 1,
        title: 'Sunny Roofs Ltd',
        rating: 4.6,
        reviews: 1204,
        type: 'Solar energy company',
        address: '12 Harbour Rd',
      },
    ]);
  });

  it('continues realPosition from the page offset', () => {
    const second = parseSearchPage(fixture('serp-organic-rich.html'), { pageOffset: 10 });
    expect(second.results.map((r) => r.realPosition)).toEqual([11, 12, 13]);
  });
});

describe('parseSearchPage on a no-JavaScript results page', () => {
  const page = parseSearchPage(fixture('serp-nojs.html'));

  it('reads results from /url?q= links with their displayed link, snippet and sitelinks', () => {
    expect(page.results).toHaveLength(2);
    const [first] = page.results;
    expect(first).toMatchObject({
      title: 'Fahrrad reparieren: Anleitung',
      link: 'https://www.radwerk.example/anleitung',
      displayLink: 'www.radwerk.example › anleitung',
      domain: 'www.radwerk.example',
      snippet: 'Schritt für Schritt: Schlauch wechseln, Bremsen einstellen und Kette ölen.',
    });
    expect(first.sitelinks.inline.map((s) => s.title)).toEqual(['Schlauch', 'Bremsen']);
    expect(page.results[1].sitelinks).toEqual({ inline: [], table: [] });
  });

  it('reads an ad from its ad-click link and label, with the landing page from adurl', () => {
    expect(page.ads).toEqual([
      {
        position: 1,
        title: 'Fahrradwerkstatt in Ihrer Nähe',
        link: 'https://www.bikeshop.example/service',
        displayLink: 'www.bikeshop.example/',
        snippet: 'Schnelle Reparatur, faire Preise. Jetzt Termin buchen.',
      },
    ]);
  });

  it('reads related searches and the language', () => {
    expect(page.relatedSearches).toEqual([{ query: 'Fahrrad reparieren Kosten' }]);
    expect(page.location.htmlLang).toBe('de');
    expect(page.knowledgePanel).toBeNull();
  });
});

describe('parseSearchPage on an unfamiliar layout', () => {
  it('still reads a Google page with a query box and heading links, with no known ids or classes', () => {
    const html =
      '<html lang="it"><head><title>pasta fresca - Cerca con Google</title></head><body><form><input name="q" value="pasta fresca"></form>' +
      '<section><article><a href="https://ricette.example.it/pasta"><h3>Pasta fresca fatta in casa</h3><cite>ricette.example.it › pasta</cite></a>' +
      '<p>Farina, uova e un mattarello: la <em>pasta fresca</em> in dieci minuti.</p></article></section></body></html>';
    const page = parseSearchPage(html);
    expect(page.results).toEqual([
      expect.objectContaining({
        title: 'Pasta fresca fatta in casa',
        link: 'https://ricette.example.it/pasta',
        displayLink: 'ricette.example.it › pasta',
        snippet: 'Farina, uova e un mattarello: la pasta fresca in dieci minuti.',
        snippetHighlightedWords: ['pasta fresca'],
      }),
    ]);
    expect(page.location.htmlLang).toBe('it');
  });
});

describe('parseSearchPage on pages that are not results', () => {
  it('returns an empty result (not an error) for a page with no results', () => {
    const page = parseSearchPage(fixture('serp-no-results.html'));
    expect(page).toEqual({
      knowledgePanel: null,
      location: { htmlLang: 'en' },
      peopleAlsoAsk: [],
      relatedSearches: [],
      results: [],
    });
  });

  it('throws a retryable UPSTREAM_BLOCKED for the captcha ("unusual traffic") page', () => {
    const err = errorOf(() => parseSearchPage(fixture('serp-captcha.html')));
    expect(err.code).toBe('UPSTREAM_BLOCKED');
    expect(err.retryable).toBe(true);
  });

  it('throws UPSTREAM_BLOCKED for the cookie-consent interstitial', () => {
    expect(errorOf(() => parseSearchPage(fixture('serp-consent.html'))).code).toBe('UPSTREAM_BLOCKED');
  });

  it('throws UPSTREAM_BLOCKED for the older "automated queries" page and the enable-JavaScript redirect', () => {
    const sorry =
      "<html><head><title>Sorry...</title></head><body><h1>We're sorry...</h1><p>... but your computer or network may be sending automated queries.</p></body></html>";
    const enableJs =
      '<html><head><noscript><meta content="0;url=/httpservice/retry/enablejs?sei=abc" http-equiv="refresh"></noscript></head><body></body></html>';
    expect(errorOf(() => parseSearchPage(sorry)).code).toBe('UPSTREAM_BLOCKED');
    expect(errorOf(() => parseSearchPage(enableJs)).code).toBe('UPSTREAM_BLOCKED');
  });

  it('throws PAGE_NOT_RECOGNISED for a page that is not a Google results page', () => {
    const err = errorOf(() => parseSearchPage(fixture('not-a-serp.html')));
    expect(err.code).toBe('PAGE_NOT_RECOGNISED');
    expect(err.retryable).toBe(false);
    expect(errorOf(() => parseSearchPage('')).code).toBe('PAGE_NOT_RECOGNISED');
  });
});

describe('buildSearchUrl', () => {
  it('puts the query and the set Google parameters on <base>/search', () => {
    expect(
      buildSearchUrl('https://www.google.com', {
        q: 'solar panels & batteries',
        hl: 'en',
        gl: 'us',
        num: 20,
        start: 10,
      }),
    ).toBe('https://www.google.com/search?q=solar+panels+%26+batteries&hl=en&gl=us&num=20&start=10');
  });

  it('leaves out empty parameters and start=0, and keeps a base path such as a simulator prefix', () => {
    expect(
      buildSearchUrl('http://127.0.0.1:4010/google', { q: 'x', hl: '', cr: 'countryDE', lr: 'lang_de', start: 0 }),
    ).toBe('http://127.0.0.1:4010/google/search?q=x&cr=countryDE&lr=lang_de');
  });

  it("sends tbs as is and a location as Google's uule (w+ and base64 of the length-prefixed name)", () => {
    const url = new URL(buildSearchUrl('https://www.google.com', { q: 'x', tbs: 'qdr:w', location: 'Austin,Texas' }));
    expect(url.searchParams.get('tbs')).toBe('qdr:w');
    const uule = url.searchParams.get('uule') ?? '';
    expect(uule.startsWith('w+CAIQICI')).toBe(true);
    const bytes = Buffer.from(uule.slice(2), 'base64');
    expect(bytes[5]).toBe('Austin,Texas'.length);
    expect(bytes.subarray(6).toString('utf8')).toBe('Austin,Texas');
  });

  it("writes a long location's length as a varint", () => {
    const name = 'a'.repeat(200);
    const bytes = Buffer.from(encodeUule(name).slice(2), 'base64');
    expect([bytes[5], bytes[6]]).toEqual([0xc8, 0x01]);
    expect(bytes.subarray(7).toString('utf8')).toBe(name);
  });
});
