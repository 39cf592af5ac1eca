import { TrawlError } from '@trawl/contracts';
import { parseMapsSearch, parsePlacePage, parseProductPage, parseSearchPage } from '@trawl/parsers';
import type { ParseOutcome, ParseTask } from './parse-task.types.js';

function run(task: ParseTask): unknown {
  switch (task.parser) {
    case 'search':
      return parseSearchPage(task.html, { pageOffset: task.pageOffset });
    case 'maps-search':
      return parseMapsSearch(task.html, {
        q: task.q,
        hl: task.hl,
        ll: task.ll,
        requestUrl: task.requestUrl,
        ...(task.now === undefined ? {} : { now: new Date(task.now) }),
      });
    case 'maps-place':
      return parsePlacePage(task.html, { url: task.url });
    case 'retail':
      return parseProductPage(task.html, { url: task.url });
  }
}

/**
 * Runs one parse and answers its outcome as plain data (a worker cannot throw a TrawlError across the thread): the
 * record, or the error's wire form and wall. An error that is not a TrawlError (a parser bug, a stack overflow on a
 * hostile page) is PAGE_TOO_COMPLEX, never INTERNAL: it is the page that the parser could not read.
 */
export function handleParseTask(task: ParseTask): ParseOutcome {
  try {
    return { ok: true, value: run(task) };
  } catch (e) {
    if (e instanceof TrawlError) {
      const wall = (e as TrawlError & { wall?: unknown }).wall;
      return { ok: false, error: e.toWire(), ...(typeof wall === 'string' ? { wall } : {}) };
    }
    const message = e instanceof Error ? e.message.split('\n')[0] : String(e);
    return {
      ok: false,
      error: new TrawlError('PAGE_TOO_COMPLEX', `the parser failed on the page: ${message}`).toWire(),
    };
  }
}
