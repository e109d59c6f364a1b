/**
 * Every element renders every seeded mutation of the simulator's body for its route (deletions,
 * nulls, other types, unknown fields at every path) without throwing and without `NaN`,
 * `undefined`, `null` or `[object Object]` in what it shows or says, and stays axe-clean (on a
 * sample: axe is slow). A failure names the seed (PULSE_PROPERTY_SEED replays it in Node; here
 * the seed is fixed per element) and the mutation.
 */
import { expect, fixtureSync, html } from '@open-wc/testing';
import type { RouteName } from '../src/api/index.ts';
import '../src/index.ts';
import type { PulseElement } from '../src/internal/pulse-element.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { historyDay } from './helpers/history-fixtures.ts';
import { mutate, seededRandom } from './helpers/mutations.ts';
import { SIMULATED_QUERIES, simulatorBody } from './helpers/simulator-bodies.ts';

const SEED = 23;
const TRIALS = 100;
/** The trial also checked with axe (about a second each in a busy browser). */
const AXE_TRIAL = 49;
const WRONG_TEXT = /NaN|undefined|null|\[object Object\]/;

interface Case {
  tag: string;
  route: RouteName;
  path: string;
  attributes?: string;
  /** Loads once (raw data): each body is mounted afresh rather than polled. */
  oneShot?: boolean;
}

const QUICKSTATS = '/live/quickstats/v4/';
const CASES: readonly Case[] = [
  { tag: 'live-counter', route: 'quickstats', path: QUICKSTATS },
  { tag: 'traffic-sources', route: 'quickstats', path: QUICKSTATS },
  { tag: 'platform-split', route: 'quickstats', path: QUICKSTATS },
  { tag: 'engagement-histogram', route: 'quickstats', path: QUICKSTATS, attributes: 'show-table' },
  { tag: 'traffic-chart', route: 'quickstats', path: QUICKSTATS },
  {
    tag: 'top-pages',
    route: 'toppages',
    path: '/live/toppages/v3/',
    attributes: 'columns="sections authors engaged-time sources referrers platform loyalty type now-on"',
  },
  { tag: 'summary-stats', route: 'summary', path: '/live/summary/v3/' },
  { tag: 'referrer-bars', route: 'referrers', path: '/live/referrers/v3/' },
  { tag: 'geo-list', route: 'top_geo', path: '/live/top_geo/v1/' },
  {
    tag: 'headline-tests',
    route: 'raw_data',
    path: '/mab/htapi/v1/experiments/raw_data/',
    attributes: 'start="2026-01-01" end="2026-11-01" tz="Europe/Paris"',
    oneShot: true,
  },
];

/** What the element shows and says: its text, and the words in its attributes (labels, titles). */
function shownWords(el: Element): string {
  const root = el.shadowRoot!;
  const attributes = [...root.querySelectorAll('*')].flatMap((node) =>
    ['aria-label', 'title', 'alt', 'aria-valuetext'].map((name) => node.getAttribute(name) ?? ''),
  );
  return `${root.textContent ?? ''} ${attributes.join(' ')}`;
}

describe('every element renders every mutated body', () => {
  failOnLitWarnings();

  for (const { tag, route, path, attributes = '', oneShot } of CASES) {
    it(`<${tag}>: ${TRIALS} mutations of the simulator's ${route} body (seed ${SEED})`, async () => {
      const body = simulatorBody(route);
      let current: unknown = body;
      const { clock } = freshHub((request) =>
        reply(clock, request.url.includes('/history/v1/') ? historyDay() : current),
      );
      const errors: string[] = [];
      const onError = (event: ErrorEvent | PromiseRejectionEvent) =>
        errors.push(String('reason' in event ? event.reason : event.message));
      window.addEventListener('error', onError);
      window.addEventListener('unhandledrejection', onError);
      const mount = async () => {
        const root = fixtureSync(html`<div lang="en"></div>`);
        // The query's host only names the site: the fake answers every request with `current`.
        root.innerHTML = `<${tag} src="${path}?${SIMULATED_QUERIES[route]}" ${attributes}></${tag}>`;
        await settleElements(root);
        return root.firstElementChild as PulseElement<unknown>;
      };
      try {
        let el = await mount();
        const next = seededRandom(SEED * 31 + tag.length);
        for (let trial = 0; trial < TRIALS; trial++) {
          const mutation = mutate(body, next);
          current = mutation.body;
          const where = `<${tag}> seed ${SEED} trial ${trial}: ${mutation.description}`;
          if (oneShot) {
            el.parentElement!.remove();
            el = await mount();
          } else {
            await clock.toNextTick();
          }
          await el.updateComplete;
          const words = shownWords(el).replace(/\s+/g, ' ');
          const wrong = WRONG_TEXT.exec(words);
          expect(
            wrong && words.slice(Math.max(0, wrong.index - 60), wrong.index + 20),
            `${where}: shows ${wrong?.[0]}`,
          ).to.equal(null);
          expect(errors, where).to.deep.equal([]);
          if (trial === AXE_TRIAL) await expect(el, where).to.be.accessible();
        }
      } finally {
        window.removeEventListener('error', onError);
        window.removeEventListener('unhandledrejection', onError);
      }
    });
  }
});
