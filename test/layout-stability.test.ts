/**
 * No layout shift from our elements: each knows its size from its attributes, so its box is the
 * same before any data, with data, in error and after many polls whose data changes in every way
 * that could change a height (title lengths, counts from 0 to millions, fewer rows than asked
 * for, nothing to show, a failed poll). Boxes are compared exactly, in a narrow column where text
 * wraps most.
 */
import { expect, fixtureSync, html } from '@open-wc/testing';
import '../src/index.ts';
import type { QuickstatsResponse } from '../src/api/index.ts';
import { deferred, failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { page, quickstats, referrers, topGeo, toppages } from './helpers/browser-fixtures.ts';

const ELEMENTS = [
  '<live-counter src="/live/quickstats/v4/?host=example.com"></live-counter>',
  '<live-counter src="/live/quickstats/v4/?host=example.com&amp;x=1" history="0" label="Reading now"></live-counter>',
  '<top-pages src="/live/toppages/v3/?host=example.com&amp;limit=5" articles-only></top-pages>',
  '<top-pages src="/live/toppages/v3/?host=example.com&amp;limit=10" max="3" hide-numbers></top-pages>',
  '<geo-list src="/live/top_geo/v1/?host=example.com" max="5"></geo-list>',
  '<referrer-bars src="/live/referrers/v3/?host=example.com" max="4"></referrer-bars>',
  // Never answered with data: its error takes the box its loading took.
  '<top-pages src="/live/toppages/v3/?host=down.example&amp;limit=5"></top-pages>',
];

const WORDS =
  'the of council budget vote across river town new record heat summer storm live updates minister talks'.split(
    ' ',
  );

/** A small seeded generator (mulberry32): the same data on every run and in every engine. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The bodies of one poll: counts anywhere from 0 to millions, titles of 1 to 40 words, up to 12 pages. */
function bodiesFor(random: () => number) {
  const count = () => Math.floor(10 ** (random() * 7));
  const title = () =>
    Array.from(
      { length: 1 + Math.floor(random() * 40) },
      () => WORDS[Math.floor(random() * WORDS.length)],
    ).join(' ');
  const pages = Array.from({ length: Math.floor(random() * 13) }, (_, index) => ({
    ...page(`/p${index}`, count()),
    title: title(),
  }));
  const counter: QuickstatsResponse = quickstats(count());
  return {
    quickstats: counter,
    toppages: toppages(...pages.sort((a, b) => (b.stats?.people ?? 0) - (a.stats?.people ?? 0))),
    geo: topGeo(
      Object.fromEntries(
        Array.from({ length: Math.floor(random() * 8) }, (_, index) => [
          ['US', 'FR', 'DE', 'GB', 'ES', 'IT', 'BR', 'IN'][index]!,
          count(),
        ]),
      ),
    ),
    referrers: referrers(
      Object.fromEntries(
        Array.from({ length: Math.floor(random() * 8) }, () => [
          `${title().replaceAll(' ', '-')}.example`,
          count(),
        ]),
      ),
    ),
  };
}

/** Every element's box, as `tag: x y width height`. */
function boxes(root: Element): string[] {
  return [...root.children].map((el) => {
    const { x, y, width, height } = el.getBoundingClientRect();
    return `${el.localName}: ${x} ${y} ${width} ${height}`;
  });
}

/** Each row's box, by element and row: `element.row` → `y height`. */
function rowBoxes(root: Element): Map<string, string> {
  const found = new Map<string, string>();
  [...root.children].forEach((el, index) =>
    el.shadowRoot!.querySelectorAll('[part=row], [part=item]').forEach((row, at) => {
      const { y, height } = row.getBoundingClientRect();
      found.set(`${index}.${at}`, `${y} ${height}`);
    }),
  );
  return found;
}

describe('layout stability: the box of an element never changes with its data', () => {
  failOnLitWarnings();

  it('is the same before data, with data, in error and after 30 polls of changing data', async () => {
    const random = seeded(25);
    let bodies = bodiesFor(random);
    let failing = false;
    const first = deferred<void>();
    const { clock } = freshHub(async (request) => {
      await first.promise;
      const url = request.url;
      if (failing || url.includes('down.example'))
        return reply(clock, { error: { code: 'upstream_error', message: 'down' } }, { status: 503 });
      const body = url.includes('/quickstats/')
        ? bodies.quickstats
        : url.includes('/toppages/')
          ? bodies.toppages
          : url.includes('/top_geo/')
            ? bodies.geo
            : bodies.referrers;
      return reply(clock, body);
    });
    const root = fixtureSync(html`<div lang="en" style="inline-size: 340px"></div>`);
    root.innerHTML = ELEMENTS.join('');
    await Promise.all(
      [...root.children].map(
        (el) => (el as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete,
      ),
    );
    const before = boxes(root);
    expect(
      before.every((box) => !box.endsWith(' 0')),
      before.join('\n'),
    ).to.equal(true);

    first.resolve();
    await settleElements(root);
    expect(root.children[0]!.matches(':state(ready)')).to.equal(true);
    expect(root.lastElementChild!.matches(':state(error)')).to.equal(true);
    expect(boxes(root), 'after the first data').to.deep.equal(before);
    // Row n of an element is where it was whenever it is shown, whatever it shows.
    const rows = rowBoxes(root);

    for (let poll = 1; poll <= 30; poll++) {
      bodies = bodiesFor(random);
      failing = poll % 7 === 0;
      await clock.toNextTick();
      await settleElements(root);
      expect(boxes(root), `after poll ${poll}`).to.deep.equal(before);
      for (const [row, box] of rowBoxes(root)) {
        if (!rows.has(row)) rows.set(row, box);
        expect(box, `row ${row} after poll ${poll}`).to.equal(rows.get(row));
      }
    }
  });
});
