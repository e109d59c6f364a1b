/**
 * The CDN's pulse-widgets.css gives each element, before its script has run, the box the element
 * takes once defined: the same height from the same attributes, tokens and column widths, so a
 * page that links it moves nothing when the elements arrive. The elements are put on the page
 * undefined, measured, then defined by importing the bundle (no data: every state takes the same
 * box, test/layout-stability.test.ts) and measured again.
 */
import { expect } from '@open-wc/testing';
import { undefinedSizesCss } from '../src/internal/undefined-sizes.ts';
import { freshHub } from './helpers/browser-fakes.ts';

const CASES = [
  '<live-counter src="/live/quickstats/v4/?host=example.com"></live-counter>',
  '<live-counter src="/live/quickstats/v4/?host=example.com" history="0" round="10" label="Reading now"></live-counter>',
  '<live-counter src="/live/quickstats/v4/?host=example.com" compare="typical" metric="search"></live-counter>',
  '<live-counter src="/live/quickstats/v4/?host=example.com" no-heading threshold="5"></live-counter>',
  '<live-counter src="/live/quickstats/v4/?host=example.com" class="big"></live-counter>',
  '<live-counter src="/live/quickstats/v4/?host=example.com" history="0" class="slot"></live-counter>',
  '<geo-list src="/live/top_geo/v1/?host=example.com" max="3" class="padded"></geo-list>',
  '<top-pages src="/live/toppages/v3/?host=example.com&amp;limit=5" articles-only hide-numbers></top-pages>',
  '<top-pages src="/live/toppages/v3/?limit=3&amp;host=example.com"></top-pages>',
  '<top-pages src="/live/toppages/v3/?host=example.com&amp;limit=10" max="3"></top-pages>',
  '<top-pages src="/live/toppages/v3/?host=example.com"></top-pages>',
  '<top-pages src="/live/toppages/v3/?host=example.com&amp;limit=20" class="three-lines"></top-pages>',
  '<geo-list src="/live/top_geo/v1/?host=example.com" max="5"></geo-list>',
  '<referrer-bars src="/live/referrers/v3/?host=example.com" max="4"></referrer-bars>',
  '<referrer-bars src="/live/referrers/v3/?host=example.com" max="1" no-heading></referrer-bars>',
  '<geo-list src="/live/top_geo/v1/?host=example.com" max="2" hidden></geo-list>',
];

/** Page styles a publisher might set: tokens on an ancestor, size properties on the element, a slot's own height, padding. */
const PAGE_CSS = `
.slot { block-size: 7.75rem; }
.padded { padding: 0.5rem; }
.tokens { --pulse-spacing: 1rem; --pulse-font-size: 17px; }
.big { --pulse-counter-size: 3.5em; }
.three-lines { --pulse-top-pages-title-lines: 3; --pulse-top-pages-row-gap: 0.25em; }
`;

/**
 * Layout works in fractions of a pixel (1/64 px in Chromium, 1/60 in Firefox and WebKit's own), and
 * the element's box is a sum of laid-out parts, each rounded, where the style sheet's is one
 * `calc()`: they may differ by those roundings, a few hundredths of a pixel, never by a visible amount.
 */
const ROUNDING = 0.1;

function heights(root: Element): number[] {
  return [...root.querySelectorAll(':scope > div > *')].map((el) => el.getBoundingClientRect().height);
}

describe('pulse-widgets.css: the box of an element before its script runs', () => {
  it('is the box the element takes once defined, for every case, in a narrow and a wide column, with page tokens', async () => {
    freshHub(() => new Promise<Response>(() => {}));
    const sheet = document.createElement('style');
    sheet.textContent = undefinedSizesCss() + PAGE_CSS;
    document.head.append(sheet);
    const root = document.createElement('div');
    for (const [width, tokens] of [
      [320, false],
      [680, false],
      [400, true],
    ] as const) {
      const column = document.createElement('div');
      column.style.inlineSize = `${width}px`;
      if (tokens) column.className = 'tokens';
      column.innerHTML = CASES.join('');
      root.append(column);
    }
    document.body.append(root);

    expect(customElements.get('live-counter'), 'the elements must not be defined yet').to.equal(undefined);
    const before = heights(root);
    expect(before.filter((height) => height > 0)).to.have.length(3 * (CASES.length - 1));
    await import('../src/index.ts');
    // No answer ever comes (the box is the same in every state): the elements are left loading.
    await Promise.all(
      [...root.querySelectorAll(':scope > div > *')].map(
        (el) => (el as HTMLElement & { updateComplete: Promise<boolean> }).updateComplete,
      ),
    );
    const after = heights(root);

    const labels = [...root.querySelectorAll(':scope > div > *')].map(
      (el, index) => `${Math.floor(index / CASES.length)}: ${el.outerHTML.replace(/><\/.*$/, '>')}`,
    );
    const differing = after.flatMap((height, index) =>
      Math.abs(height - before[index]!) <= ROUNDING ? [] : [`${labels[index]} ${before[index]} → ${height}`],
    );
    expect(differing, differing.join('\n')).to.deep.equal([]);
    root.remove();
    sheet.remove();
  });
});
