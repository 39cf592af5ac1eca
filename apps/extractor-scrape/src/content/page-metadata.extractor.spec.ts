import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'htmlparser2';
import { pageMetadata } from './page-metadata.extractor.js';

const HEAD = `<!doctype html><html lang="fr-CA"><head>
<title>  Le   guide
 du café </title>
<base href="/blog/">
<meta name="description" content="Tout sur le café.">
<meta name="keywords" content="café, espresso">
<meta name="robots" content="index, follow">
<link rel="canonical" href="guide-cafe">
<link rel="shortcut icon" href="/favicon.ico">
<meta property="og:title" content="Guide du café">
<meta property="og:description" content="Le guide complet">
<meta property="og:image" content="img/cover.jpg">
<meta property="og:url" content="https://example.com/blog/guide-cafe">
<meta property="og:site_name" content="Exemple">
<meta property="og:locale" content="fr_CA">
<meta property="og:type" content="article">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:site" content="@exemple">
<meta name="description" content="a second description is ignored">
</head><body><svg><title>icon</title></svg><p>x</p></body></html>`;

describe('pageMetadata', () => {
  it("reads the document's metadata with Firecrawl's names, URLs resolved against the document's base", () => {
    expect(pageMetadata(parseDocument(HEAD), 'https://example.com/blog/guide-cafe?ref=1')).toEqual({
      title: 'Le guide du café',
      language: 'fr-CA',
      description: 'Tout sur le café.',
      keywords: 'café, espresso',
      robots: 'index, follow',
      canonical: 'https://example.com/blog/guide-cafe',
      favicon: 'https://example.com/favicon.ico',
      ogTitle: 'Guide du café',
      ogDescription: 'Le guide complet',
      ogImage: 'https://example.com/blog/img/cover.jpg',
      ogUrl: 'https://example.com/blog/guide-cafe',
      ogSiteName: 'Exemple',
      ogLocale: 'fr_CA',
      ogType: 'article',
      'twitter:card': 'summary_large_image',
      'twitter:site': '@exemple',
    });
  });

  it('leaves out what the page does not say', () => {
    expect(pageMetadata(parseDocument('<p>bare</p>'), 'https://example.com/')).toEqual({});
  });

  it('clips a value a hostile page made megabytes long', () => {
    const meta = pageMetadata(parseDocument(`<meta name="description" content="${'a'.repeat(100_000)}">`), undefined);
    expect(meta.description).toHaveLength(2048);
  });
});
