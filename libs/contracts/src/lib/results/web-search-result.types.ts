import type { ResultMeta } from './result-meta.types.js';
/** `data` of POST /extract/search. Field names are the spec's; the optional ones are ours (docs/results.md). */
export interface WebSearchResult {
  knowledgePanel: KnowledgePanel | null;
  location: { htmlLang: string };
  peopleAlsoAsk: PeopleAlsoAskItem[];
  relatedSearches: { query: string }[];
  results: WebResultItem[];
  /** Text ads, where the page has them. */
  ads?: AdItem[];
  /** The local pack, where the page has one. */
  localResults?: LocalResultItem[];
  /** Top stories carousel. */
  topStories?: TopStoryItem[];
  /** AI overview text, where the page has one. */
  aiOverview?: { text: string; sources: { title: string; link: string }[] } | null;
  /** Only when the request set `meta: true` (see ResultMeta). */
  meta?: ResultMeta;
}

export interface WebResultItem {
  date: string;
  displayLink: string;
  domain: string;
  favicon: string;
  link: string;
  realPosition: number;
  sitelinks: { inline: SitelinkItem[]; table: SitelinkItem[] };
  snippet: string;
  snippetHighlightedWords: string[];
  source: string;
  title: string;
}

export interface SitelinkItem {
  link: string;
  snippet: string;
  title: string;
}

export interface PeopleAlsoAskItem {
  answer: string;
  question: string;
  title: string;
  url: string | null;
}

/** Our design; the spec shows knowledgePanel only as null. */
export interface KnowledgePanel {
  title: string;
  type: string;
  description: string;
  source: { name: string; link: string } | null;
  attributes: Record<string, string>;
  image: string | null;
}

export interface AdItem {
  position: number;
  title: string;
  link: string;
  displayLink: string;
  snippet: string;
}

export interface LocalResultItem {
  position: number;
  title: string;
  rating: number | null;
  reviews: number | null;
  type: string;
  address: string;
}

export interface TopStoryItem {
  title: string;
  link: string;
  source: string;
  date: string;
}
