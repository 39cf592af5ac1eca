import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'htmlparser2';
import { articleHints, mergeMainContent, readabilityArticle } from './main-content-consensus.extractor.js';
import { digestPage } from './page-digest.extractor.js';

const sentence = (n: number) =>
  `Paragraph ${n} tells the story at length, with the details a reader came for, the names of the people involved, ` +
  `what they said and what happened next in the town hall meeting number ${n}.`;
const body = Array.from({ length: 8 }, (_, i) => sentence(i + 1));
/** The vote, Readability's answer given as markdown (its text and its HTML alike). */
const merge = (ours: string, theirs: string) => mergeMainContent(ours, { text: theirs, html: () => theirs }, (h) => h);

describe('the vote between our main content and Readability', () => {
  it('keeps running text and what both kept, and drops a short block only one of them kept', () => {
    const ours = ['# The headline of the story', 'By Jane Doe, staff writer', ...body, 'Share this on Facebook'];
    const theirs = ['# The headline of the story', ...body];
    const merged = merge(ours.join('\n\n'), theirs.join('\n\n'));
    expect(merged).toBe(['# The headline of the story', ...body].join('\n\n'));
  });

  it('keeps a block of under four words when the other answer has the same words in a row, and only then', () => {
    const short = ['Town hall', 'Hall town', 'meeting number 3', 'number meeting 3', 'Paragraph', 'Parish'];
    const ours = [body[0], ...short, ...body.slice(1)].join('\n\n');
    expect(merge(ours, body.join('\n\n'))).toBe(
      [body[0], 'Town hall', 'meeting number 3', 'Paragraph', ...body.slice(1)].join('\n\n'),
    );
  });

  it('reads the words of every script, case aside, and never a word across punctuation or symbols', () => {
    const theirs = [...body, 'Встреча в Цюрихе', 'ZÜRICH, Straße 𝐀𝐁 12', '東京 大阪'].join('\n\n');
    const short = ['встреча в цюрихе', 'Zürich straße', '𝐀𝐁 12', '東京', 'Zürich-Straße', 'Straße 𝐀', 'Цюрихе встреча'];
    const ours = [body[0], ...short, ...body.slice(1)].join('\n\n');
    expect(merge(ours, theirs)).toBe(
      [body[0], 'встреча в цюрихе', 'Zürich straße', '𝐀𝐁 12', '東京', 'Zürich-Straße', ...body.slice(1)].join('\n\n'),
    );
  });

  it('keeps a block of four words or more when half its 4-word runs are in the other answer', () => {
    const theirs = [...body, 'one two three four five six seven eight', 'alpha beta gamma delta'].join('\n\n');
    // Seven shingles of which five are the other's: kept. Eight of which three are: dropped.
    const shared = 'one two three four five six seven eight nine ten';
    const few = 'x one two three four five six y z w q';
    const ours = [body[0], shared, few, ...body.slice(1)].join('\n\n');
    expect(merge(ours, theirs)).toBe([body[0], shared, ...body.slice(1)].join('\n\n'));
  });

  it('keeps our running text that Readability left out', () => {
    const ours = [...body, `An extra paragraph only we kept. ${sentence(99)}`];
    expect(merge(ours.join('\n\n'), body.slice(0, 6).join('\n\n'))).toBe(ours.join('\n\n'));
  });

  it("takes Readability's answer as the base when ours is more than twice as long (a container too wide)", () => {
    const menu = Array.from({ length: 120 }, (_, i) => `- [Section ${i} of the site, its long menu entry](/s/${i})`);
    const ours = [menu.join('\n'), ...body].join('\n\n');
    const theirs = body.join('\n\n');
    expect(merge(ours, theirs)).toBe(theirs);
  });

  it('keeps our headline on top, though Readability left it out, whichever answer is the base', () => {
    const ours = ['# The headline of the story', ...body].join('\n\n');
    expect(merge(ours, body.join('\n\n'))).toBe(ours);
    const menu = Array.from({ length: 120 }, (_, i) => `- [Section ${i} of the site, its long menu entry](/s/${i})`);
    const wide = ['# The headline of the story', menu.join('\n'), ...body].join('\n\n');
    expect(merge(wide, body.join('\n\n'))).toBe(ours);
  });

  it('leaves ours as it is when Readability found no article (a short answer)', () => {
    const ours = ['Price: 12 EUR', 'In stock', ...body.slice(0, 2)].join('\n\n');
    expect(merge(ours, 'In stock')).toBe(ours);
  });

  it('drops a short line that only says when the article was posted, both having kept it', () => {
    const dates = ['Posted: Fri 6:45 PM, Feb 16, 2018 |', 'Updated: Sat 8:31 PM, Feb 17, 2018'];
    const merged = merge([...dates, ...body].join('\n\n'), [...dates, ...body].join('\n\n'));
    expect(merged).toBe(body.join('\n\n'));
    expect(merge(['Updated 3 hours ago', 'The year 2018 was dry.'].join('\n\n'), 'short')).toBe(
      'The year 2018 was dry.',
    );
  });

  it("drops a short note all in emphasis at the article's end, and keeps emphasis elsewhere", () => {
    const note = "_Jane Doe is the paper's science editor. [Follow her](https://example.com/jane)._";
    const quote = '_A short line in italics, quoted by the mayor._';
    const both = [body[0], quote, ...body.slice(1), note].join('\n\n');
    expect(merge(both, both)).toBe([body[0], quote, ...body.slice(1)].join('\n\n'));
  });

  it('drops a credit note in parentheses at the end, and a short call to subscribe, both having kept them', () => {
    const credit = '(_Reporting by Jane Doe and John Roe, editing by Ann Poe_)';
    const call = 'Let our news meet your inbox. The stories that matter, delivered weekday mornings.';
    const both = [body[0], call, ...body.slice(1), credit].join('\n\n');
    expect(merge(both, both)).toBe(body.join('\n\n'));
    // Running text that speaks of a newsletter is kept.
    const story = `${sentence(9)} The council's newsletter said so, and residents who subscribe read it first.`;
    expect(merge([story, ...body].join('\n\n'), body.join('\n\n'))).toBe([story, ...body].join('\n\n'));
  });

  it('drops a short line all in emphasis right under a picture (its caption), and keeps one elsewhere', () => {
    const picture = '![The new keyboard](https://example.com/k.jpg)';
    const caption = "_The new keyboard's scissor switches, seen from above_";
    const both = [body[0], picture, caption, body[1], caption, ...body.slice(2)].join('\n\n');
    // (A picture alone has no words: the vote keeps none, as before.)
    expect(merge(both, both)).toBe([body[0], body[1], caption, ...body.slice(2)].join('\n\n'));
  });

  it('drops an emphasis note broken by links among the last two blocks with words, a picture between not counted', () => {
    const bio =
      '_Jane\'s book about the search for life, "_[_Out There_](https://example.com/book)_" (2018), is out now. ' +
      'Follow her on Twitter_ [_@jane_](https://example.com/jane)_._';
    const mail = '_Email us at [news@example.com](mailto:news@example.com)._';
    const picture = '![](https://example.com/p.jpg)';
    const both = [...body, bio, picture, mail].join('\n\n');
    expect(merge(both, both)).toBe(body.join('\n\n'));
    // Higher up, the same runs of emphasis are the article's own words and stay.
    const within = [body[0], bio, ...body.slice(1)].join('\n\n');
    expect(merge(within, within)).toBe(within);
  });

  it('reads emphasis written with asterisks as the converter writes it, strong marks around it too', () => {
    const note = "*Jane Doe is the paper's science editor. [Follow her](https://example.com/jane).*";
    const strong = "***Editor's note:** this story was updated.*";
    const both = [...body, strong, note].join('\n\n');
    expect(merge(both, both)).toBe(body.join('\n\n'));
  });

  it("drops an appeal to join, subscribe or give among the article's last blocks, running text or not", () => {
    const appeal =
      'If you enjoyed this article, we have a proposition for you: join our club. Members get all of our content, ' +
      'no paywalls or content meters, an advertising-minimal experience, and access to our writers and editors.';
    const button = '[LEARN MORE](https://example.com/join?utm_source=article)';
    const heading = '#### Something to Consider';
    const both = [...body, heading, appeal, button].join('\n\n');
    expect(merge(both, both)).toBe(body.join('\n\n'));
    const follow = "Follow the paper's full coverage of the election at [example.com/vote](https://example.com/vote)";
    expect(merge([...body, follow].join('\n\n'), [...body, follow].join('\n\n'))).toBe(body.join('\n\n'));
    // The same words at the top of an article are its own: only the article's end is looked at.
    const top = [appeal, ...body].join('\n\n');
    expect(merge(top, top)).toBe(top);
  });

  it('drops a block that is one link to the previous or next post, and keeps a link with words of its own', () => {
    const nav = ['[Previous Post](https://example.com/a)', '[Next story →](https://example.com/b)'];
    const own = '[The council minutes](https://example.com/minutes)';
    const both = [...body, own, ...nav].join('\n\n');
    expect(merge(both, both)).toBe([...body, own].join('\n\n'));
  });

  it('keeps a fenced code block whole', () => {
    const code = '```\nconst a = 1;\n\nconst b = 2;\n```';
    const ours = [...body, code].join('\n\n');
    expect(merge(ours, [...body, code].join('\n\n'))).toBe(ours);
  });
});

describe('article hints', () => {
  const hints = (html: string) => articleHints(parseDocument(html));

  it('reads og:type, JSON-LD and microdata article types', () => {
    expect(hints('<meta property="og:type" content="article"><p>x</p>').declared).toBe(true);
    expect(hints('<script type="application/ld+json">{"@type": ["NewsArticle"]}</script>').declared).toBe(true);
    expect(hints('<div itemscope itemtype="https://schema.org/BlogPosting"><p>x</p></div>').declared).toBe(true);
  });

  it('does not count other kinds of page as articles', () => {
    expect(hints('<meta property="og:type" content="product"><p>x</p>').declared).toBe(false);
    expect(hints('<script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script>').declared).toBe(
      false,
    );
    expect(hints('<div itemscope itemtype="https://schema.org/Product"><p>x</p></div>').declared).toBe(false);
    expect(hints('<p>plain</p>').declared).toBe(false);
  });

  it('measures depth and text, and Readability is not run on a page deep or long past its limits', () => {
    const head = '<html><head><meta property="og:type" content="article"></head><body>';
    const deep = `${head}${`${'<div>'.repeat(80)}<p>${sentence(1)}</p>${'</div>'.repeat(80)}`.repeat(20)}`;
    const h = hints(deep);
    expect(h.depth).toBeGreaterThan(80);
    expect(h.elements * h.depth).toBeGreaterThan(120_000);
    expect(readabilityArticle(deep, h)).toBeUndefined();
    const long = `${head}${`<p>${sentence(1)}</p>`.repeat(600)}<script>${'x'.repeat(200_000)}</script>`;
    expect(hints(long).text).toBeGreaterThan(100_000);
    expect(hints(long).text).toBeLessThan(200_000);
    expect(readabilityArticle(long, hints(long))).toBeUndefined();
    const article = `${head}<article>${body.map((p) => `<p>${p}</p>`).join('')}</article>`;
    expect(readabilityArticle(article, hints(article))?.text).toContain(body[7]);
  });

  it('counts the elements, and Readability is not run past its limit', () => {
    const html = `<html><body>${'<div>'.repeat(30_000)}deep${'</div>'.repeat(30_000)}</body></html>`;
    const h = hints(html);
    expect(h.elements).toBeGreaterThan(30_000);
    expect(readabilityArticle(html, h)).toBeUndefined();
  });
});

describe('main content of a page that says it is an article', () => {
  it('is the vote: the share bar and the byline go, the story stays', async () => {
    const html = `<html><head><meta property="og:type" content="article"></head><body>
      <nav><a href="/">Home</a> <a href="/news">News</a></nav>
      <main><article><h1>The headline of the story</h1>
        <div class="credit">Jane Doe, staff writer</div>
        ${body.map((p) => `<p>${p}</p>`).join('\n')}
        <div class="tools">Print this page</div>
      </article></main>
      <footer>Contact us</footer></body></html>`;
    const outcome = await digestPage({
      kind: 'html',
      html,
      markdown: true,
      checkBrowser: false,
      onlyMainContent: true,
    });
    expect(outcome.ok).toBe(true);
    const markdown = outcome.ok ? (outcome.digest.markdown ?? '') : '';
    for (const p of body) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Home');
    expect(markdown).not.toContain('Contact us');
  });
});
