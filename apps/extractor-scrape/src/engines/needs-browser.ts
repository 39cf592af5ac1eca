const SCRIPT = /<script\b/i;
const EMPTY_ROOT = /<div\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|svelte|main-app)["']?[^>]*>\s*<\/div>/i;
const NOSCRIPT_HINT = /<noscript\b[^>]*>[\s\S]*?\b(enable|requires?|turn on|activate)\b[\s\S]{0,40}\bjavascript\b/i;
const MIN_TEXT = 200;

/** The visible text of a document, roughly: scripts, styles, noscript and tags removed, whitespace collapsed. */
export function visibleText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|&#160;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether a fetched HTML page needs a browser to show its content (the `auto` engine's switch): an empty app root
 * (`<div id="root"></div>` and kin), a noscript asking for JavaScript, or scripts with next to no text.
 */
export function needsBrowser(html: string): boolean {
  if (EMPTY_ROOT.test(html)) return true;
  const textLength = visibleText(html).length;
  if (NOSCRIPT_HINT.test(html) && textLength < 5 * MIN_TEXT) return true;
  return SCRIPT.test(html) && textLength < MIN_TEXT;
}
