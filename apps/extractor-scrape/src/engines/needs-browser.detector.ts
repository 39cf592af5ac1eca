import { Tokenizer } from 'htmlparser2';

const ROOT_IDS = new Set(['root', 'app', '__next', '__nuxt', 'svelte', 'main-app']);
const NOSCRIPT_HINT = /\b(enable|requires?|turn on|activate)\b[\s\S]{0,40}\bjavascript\b/i;
const HIDDEN = new Set(['script', 'style', 'noscript', 'template']);
const MIN_TEXT = 200;
/** Most of a title, or of a noscript, we look at (hostile pages put megabytes there). */
const MAX_TITLE_CHARS = 1024;
const MAX_NOSCRIPT_CHARS = 2048;
const ENTITY_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0c, 0x0d, 0xa0]);

/** What one pass over a document tells about it. */
export interface PageScan {
  /** The first `<title>`'s text, entities decoded, whitespace collapsed (at most 1024 characters). */
  title: string;
  /** Length of the visible text (scripts, styles, noscript, templates and tags left out; whitespace collapsed). */
  textLength: number;
  /** The visible text itself, up to `keepText` characters. */
  text: string;
  hasScript: boolean;
  /** An app root (`<div id="root"></div>` and kin) with nothing inside. */
  emptyRoot: boolean;
  /** A noscript asking for JavaScript. */
  noscriptHint: boolean;
}

/**
 * One linear pass over a document with htmlparser2's tokenizer (no regular expression over the page, no tree, no
 * stack of open elements: a hostile page costs time in proportion to its size, and no more). Counts what
 * `needsBrowser` and the result's title need.
 */
export function scanPage(html: string, keepText = 0): PageScan {
  return scan(html, keepText, false);
}

/**
 * The document's first `<title>` text, as `scanPage` reads it, by a pass that stops at the title's end (a page
 * without one is read to its end).
 */
export function pageTitle(html: string): string {
  return scan(html, 0, true).title;
}

function scan(html: string, keepText: number, titleOnly: boolean): PageScan {
  let tagName = '';
  let isClose = false;
  let attrName = '';
  let attrValue = '';
  let divId = '';
  let hiddenDepth = 0;
  let inTitle = false;
  let titleDone = false;
  let title = '';
  let inNoscript = 0;
  let noscript = '';
  let textLength = 0;
  let text = '';
  let lastSpace = true;
  let rootOpen = false;
  const scan: PageScan = {
    title: '',
    textLength: 0,
    text: '',
    hasScript: false,
    emptyRoot: false,
    noscriptHint: false,
  };

  const addText = (chunk: string) => {
    if (inTitle && !titleDone && title.length < MAX_TITLE_CHARS)
      title += chunk.slice(0, MAX_TITLE_CHARS - title.length);
    if (inNoscript > 0 && noscript.length < MAX_NOSCRIPT_CHARS)
      noscript += chunk.slice(0, MAX_NOSCRIPT_CHARS - noscript.length);
    if (hiddenDepth > 0 || inTitle) return;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      const space = c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0xa0;
      if (space) {
        if (lastSpace) continue;
        lastSpace = true;
        textLength++;
        if (text.length < keepText) text += ' ';
      } else {
        if (rootOpen) rootOpen = false;
        lastSpace = false;
        textLength++;
        if (text.length < keepText) text += chunk[i];
      }
    }
  };
  const open = (name: string) => {
    rootOpen = false;
    if (name === 'script') scan.hasScript = true;
    if (HIDDEN.has(name)) hiddenDepth++;
    if (name === 'noscript') inNoscript++;
    if (name === 'title' && !titleDone) inTitle = true;
    // Block-level boundaries separate words as a browser's text would.
    if (!lastSpace) addText(' ');
  };
  const close = (name: string) => {
    if (name === 'div' && rootOpen) scan.emptyRoot = true;
    rootOpen = false;
    if (HIDDEN.has(name) && hiddenDepth > 0) hiddenDepth--;
    if (name === 'noscript' && inNoscript > 0 && --inNoscript === 0) {
      if (NOSCRIPT_HINT.test(noscript)) scan.noscriptHint = true;
      noscript = '';
    }
    if (name === 'title' && inTitle) {
      inTitle = false;
      titleDone = true;
      if (titleOnly) tokenizer.pause();
    }
    if (!lastSpace) addText(' ');
  };

  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        tagName = html.slice(start, end).toLowerCase();
        isClose = false;
        divId = '';
      },
      onattribname(start, end) {
        attrName = html.slice(start, Math.min(end, start + 16)).toLowerCase();
        attrValue = '';
      },
      onattribdata(start, end) {
        if (attrName === 'id' && tagName === 'div' && attrValue.length < 32)
          attrValue += html.slice(start, Math.min(end, start + 32));
      },
      onattribentity() {},
      onattribend() {
        if (attrName === 'id' && tagName === 'div') divId = attrValue.trim();
      },
      onopentagend() {
        if (isClose) return;
        open(tagName);
        if (tagName === 'div' && ROOT_IDS.has(divId)) rootOpen = true;
      },
      onselfclosingtag() {
        open(tagName);
        close(tagName);
      },
      onclosetag(start, end) {
        isClose = true;
        close(html.slice(start, Math.min(end, start + 16)).toLowerCase());
      },
      ontext(start, end) {
        addText(html.slice(start, end));
      },
      ontextentity(cp) {
        addText(ENTITY_WHITESPACE.has(cp) ? ' ' : String.fromCodePoint(cp));
      },
      oncomment() {},
      oncdata() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      onend() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  scan.title = title.replace(/\s+/g, ' ').trim();
  scan.textLength = textLength - (lastSpace && textLength > 0 ? 1 : 0);
  scan.text = text.trim();
  return scan;
}

/** The visible text of a document, roughly (see `scanPage`), up to `max` characters. */
export function visibleText(html: string, max = 100_000): string {
  return scanPage(html, max).text;
}

/** Whether the scan says the page needs a browser to show its content (see `needsBrowser`). */
export function scanNeedsBrowser(scan: PageScan): boolean {
  if (scan.emptyRoot) return true;
  if (scan.noscriptHint && scan.textLength < 5 * MIN_TEXT) return true;
  return scan.hasScript && scan.textLength < MIN_TEXT;
}

/**
 * Whether a fetched HTML page needs a browser to show its content (the `auto` engine's switch): an empty app root
 * (`<div id="root"></div>` and kin), a noscript asking for JavaScript, or scripts with next to no text.
 */
export function needsBrowser(html: string): boolean {
  return scanNeedsBrowser(scanPage(html));
}
