import * as s from '../schema/json-schema.builder.js';
import { RESULT_META } from './result-meta.schema.js';

const SITELINK_ITEM = s.object({ link: s.str(), snippet: s.str(), title: s.str() });
export type SitelinkItem = s.Infer<typeof SITELINK_ITEM>;

const WEB_RESULT_ITEM = s.object({
  date: s.str(),
  displayLink: s.str(),
  domain: s.str(),
  favicon: s.str(),
  link: s.str(),
  realPosition: s.int('1-based position among organic results.'),
  sitelinks: s.object({ inline: s.arr(SITELINK_ITEM), table: s.arr(SITELINK_ITEM) }),
  snippet: s.str(),
  snippetHighlightedWords: s.arr(s.str()),
  source: s.str(),
  title: s.str(),
});
export type WebResultItem = s.Infer<typeof WEB_RESULT_ITEM>;

const PEOPLE_ALSO_ASK_ITEM = s.object({ answer: s.str(), question: s.str(), title: s.str(), url: s.nullable(s.str()) });
export type PeopleAlsoAskItem = s.Infer<typeof PEOPLE_ALSO_ASK_ITEM>;

/** Our design; the spec shows knowledgePanel only as null. */
const KNOWLEDGE_PANEL = s.object({
  title: s.str(),
  type: s.str(),
  description: s.str(),
  source: s.nullable(s.object({ name: s.str(), link: s.str() })),
  attributes: s.mapOf(s.str()),
  image: s.nullable(s.str()),
});
export type KnowledgePanel = s.Infer<typeof KNOWLEDGE_PANEL>;

const AD_ITEM = s.object({ position: s.int(), title: s.str(), link: s.str(), displayLink: s.str(), snippet: s.str() });
export type AdItem = s.Infer<typeof AD_ITEM>;

const LOCAL_RESULT_ITEM = s.object({
  position: s.int(),
  title: s.str(),
  rating: s.nullable(s.num()),
  reviews: s.nullable(s.int()),
  type: s.str(),
  address: s.str(),
});
export type LocalResultItem = s.Infer<typeof LOCAL_RESULT_ITEM>;

const TOP_STORY_ITEM = s.object({ title: s.str(), link: s.str(), source: s.str(), date: s.str() });
export type TopStoryItem = s.Infer<typeof TOP_STORY_ITEM>;

/** `data` of POST /extract/search. Field names are the spec's; the optional ones are ours (docs/results.md). */
export const WEB_SEARCH_RESULT = s.named(
  'WebSearchResult',
  s.object({
    knowledgePanel: s.nullable(KNOWLEDGE_PANEL),
    location: s.object({ htmlLang: s.str() }),
    peopleAlsoAsk: s.arr(PEOPLE_ALSO_ASK_ITEM),
    relatedSearches: s.arr(s.object({ query: s.str() })),
    results: s.arr(WEB_RESULT_ITEM),
    /** Text ads, where the page has them. */
    ads: s.optional(s.arr(AD_ITEM)),
    /** The local pack, where the page has one. */
    localResults: s.optional(s.arr(LOCAL_RESULT_ITEM)),
    /** Top stories carousel. */
    topStories: s.optional(s.arr(TOP_STORY_ITEM)),
    /** AI overview text, where the page has one. */
    aiOverview: s.optional(
      s.nullable(s.object({ text: s.str(), sources: s.arr(s.object({ title: s.str(), link: s.str() })) })),
    ),
    /** Only when the request set `meta: true` (see ResultMeta). */
    meta: s.optional(s.ref(RESULT_META)),
  }),
);
export type WebSearchResult = s.Infer<typeof WEB_SEARCH_RESULT>;
