// Knowledge panel. Google has marked its parts with data-attrid for years: "title", "subtitle" (the entity type),
// "description" (with its source link), "image", and one "kc:/…", "ss:/…", "hw:/…", "ok:/…" per fact, whose text
// reads "Label: value". The panel is where the title is: the right column, a whole-page panel, or the block around it.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import type { KnowledgePanel } from '@trawl/contracts';
import { PAA_REGIONS } from './serp-regions.constants.js';
import { imageSrc, isGoogleUtilityLink, nodeSet, resolveHref, textOf, type ImageSources } from './serp-dom.util.js';

const FACT_SELECTOR = '[data-attrid^="kc:/"], [data-attrid^="ss:/"], [data-attrid^="hw:/"], [data-attrid^="ok:/"]';

export function readKnowledgePanel($: CheerioAPI, images: ImageSources): KnowledgePanel | null {
  const titleEl = $('[data-attrid="title"]')
    .toArray()
    .map((e: Element) => $(e))
    .find((t) => t.closest(PAA_REGIONS).length === 0 && textOf(titleText(t)).length > 0);
  if (!titleEl) return null;
  const root = panelRoot(titleEl);

  const title = textOf(titleText(titleEl));
  const type = textOf(root.find('[data-attrid="subtitle"]').first());

  const descBox = root.find('[data-attrid="description"], [data-attrid$=":description"]').first();
  let description = '';
  let source: KnowledgePanel['source'] = null;
  if (descBox.length) {
    const sourceLink = descBox
      .find('a[href]')
      .toArray()
      .map((e: Element) => $(e))
      .find((a) => {
        const u = resolveHref(a.attr('href'));
        return u !== null && !isGoogleUtilityLink(u);
      });
    if (sourceLink) source = { name: textOf(sourceLink), link: resolveHref(sourceLink.attr('href')) ?? '' };
    // The box reads "<h3>Description</h3> <span>text</span> <a>Wikipedia</a>": drop the heading and the source.
    description = textOf(descBox, nodeSet(descBox.find('h2, h3, [role="heading"]'), sourceLink?.parent()));
  }

  const attributes: Record<string, string> = {};
  root.find(FACT_SELECTOR).each((_, e) => {
    const fact = $(e);
    if (fact.find(FACT_SELECTOR).length > 0) return; // a group: its members are read one by one
    const text = textOf(fact);
    const m = /^([^:]{1,60}):\s*(.+)$/s.exec(text);
    if (!m || text.length > 400) return;
    const label = m[1].trim();
    if (!(label in attributes)) attributes[label] = m[2].trim();
  });

  let image: string | null = null;
  for (const img of root.find('[data-attrid="image"] img, g-img img').toArray()) {
    const src = imageSrc($(img), images);
    if (src) {
      image = src;
      break;
    }
  }
  return { title, type, description, source, attributes, image };
}

/** The heading inside the title box (the box also holds a "more options" menu). */
function titleText(titleEl: ReturnType<CheerioAPI>): ReturnType<CheerioAPI> {
  const heading = titleEl.find('[role="heading"], h2, h3').first();
  return heading.length ? heading : titleEl;
}

function panelRoot(titleEl: ReturnType<CheerioAPI>): ReturnType<CheerioAPI> {
  const side = titleEl.closest('#rhs, [role="complementary"], .kp-wholepage');
  if (side.length) {
    // A whole-page panel may spread over the main column too: read from the widest panel ancestor.
    const whole = titleEl.parents('.kp-wholepage').last();
    return whole.length ? whole : side;
  }
  // Otherwise climb until the block also holds a description or facts.
  let node = titleEl;
  for (let i = 0; i < 12; i++) {
    const parent = node.parent();
    if (parent.length === 0 || parent.is('body, #rso, #search')) break;
    node = parent;
    if (node.find('[data-attrid="description"], [data-attrid$=":description"], ' + FACT_SELECTOR).length > 0) break;
  }
  return node;
}
