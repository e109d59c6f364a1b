/**
 * The page side of bench/render.mjs: one <top-pages> with 100 rows on the real hub, driven by
 * the tests' fake clock, answered by a fetch that returns pre-serialised bodies (so the time
 * measured is the widget's: parse, validate, share, diff, render).
 */
import '../src/index.ts';
import { freshHub, settleElements } from '../test/helpers/browser-fakes.ts';

const ROWS = 100;
const VARIANTS = 8;

/** Variant `v`: every page's count moves and neighbours swap places now and then. */
function body(v) {
  const pages = Array.from({ length: ROWS }, (_, index) => {
    const people = 5000 - index * 40 + ((index * 7 + v * 13) % 60);
    return {
      path: `example.com/news/${2025 - (index % 5)}/story-${index}`,
      host: 'example.com',
      title: `Story number ${index} about something that happened today | Example Daily`,
      authors: [`Author ${index % 17}`],
      sections: ['news', `section-${index % 9}`],
      stats: {
        people,
        article: people,
        read: Math.round(people * 0.6),
        visits: people * 3,
        search: Math.round(people * 0.3),
        social: Math.round(people * 0.2),
        direct: Math.round(people * 0.4),
        links: 4,
        internal: 9,
        engaged_time: {
          breaks: [0, 15, 30, 45, 60],
          num_values: people,
          median: 30 + (index % 90),
          hist: [1, 2, 3, 4, 5, 6],
          avg: 40,
          sum: people * 40,
        },
      },
    };
  });
  pages.sort((a, b) => b.stats.people - a.stats.people);
  return JSON.stringify({ pages });
}

const bodies = Array.from({ length: VARIANTS }, (_, v) => body(v));
let current = 0;
let renders = 0;
let el;
let clock;
let server;

window.bench = {
  async setup() {
    ({ clock, server } = freshHub(() => {
      const text = bodies[current];
      const stamp = new Date(clock.now()).toUTCString();
      // Response-shaped, with a json() that parses at once: no stream, so no idle time in the tick.
      return {
        status: 200,
        ok: true,
        headers: new Headers({ 'Content-Type': 'application/json', 'Last-Modified': stamp, Date: stamp }),
        json: async () => JSON.parse(text),
      };
    }));
    el = document.createElement('top-pages');
    el.setAttribute('src', `/live/toppages/v3/?host=example.com&limit=${ROWS}`);
    el.setAttribute('columns', 'sections authors engaged-time sources');
    el.setAttribute('strip-title', '');
    el.addController({ hostUpdated: () => renders++ });
    document.body.append(el);
    await settleElements(document.body);
    return el.shadowRoot.querySelectorAll('tbody tr').length;
  },

  /** One poll tick; `changed` serves the next variant, otherwise the same body again. */
  async tick(changed) {
    if (changed) current = (current + 1) % VARIANTS;
    server.requests.length = 0;
    const start = performance.now();
    await clock.toNextTick();
    await el.updateComplete;
    return performance.now() - start;
  },

  renders: () => renders,
};
