import { expect, fixtureSync, html } from '@open-wc/testing';
import type { RawDataRecord, RawDataResponse } from '../src/api/index.ts';
import { csvCell, experimentsCsv, groupExperiments } from '../src/elements/headline-tests/experiments.ts';
import '../src/index.ts';
import type { HeadlineTests } from '../src/index.ts';
import { deferred, failOnLitWarnings, type FakeClock, freshHub, reply, setPageHidden, settleElements, type Handler } from './helpers/browser-fakes.ts';
import { recordStyleAttributeWrites, states, text } from './helpers/browser-states.ts';

const SRC = '/mab/htapi/v1/experiments/raw_data/?host=example.com';
const RANGE = 'start="2025-06-01" end="2025-06-07" tz="Europe/Paris"';

function variant(experiment: string, id: string, extra: Partial<RawDataRecord> = {}): RawDataRecord {
  return {
    experiment_id: experiment, status: 'completed', type: 'headline', model: 'thompson_sampling', host: 'example.com',
    domain: 'example.com', path: `example.com/news/${experiment}`, location: 'homepage', specific_location: null,
    exp_metadata: null, winning_variant: 'v1', convergence_type: 'probability', value_remaining: '0.01', valid: 'true',
    content_type: 'headline', content: `Headline ${experiment} ${id}`, variant_id: id, variant_metadata: null,
    sections: ['News'], created_at: '2025-06-02T09:00:00.000Z', archived_at: null, activated_at: '2025-06-02T09:05:00.000Z',
    completed_at: '2025-06-03T09:00:00.000Z', total_outcomes: 300, total_failures: 5000, outcome_last_received_at: null,
    num_outcomes: 150, num_variants: 2, strategy_last_updated_at: null, engagement_mean: 40, ctr_mean: 0.05,
    engaged_clicks_mean: 0.03, probability: 0.5, payout_coefficients: [1], priors: [1, 1], engagement_intervals: [38, 42],
    ctr_intervals: [0.04, 0.06], engaged_click_intervals: [0.02, 0.04], outcome_counts: [150, 2500, 90],
    ...extra,
  };
}

/** `count` experiments of two variants each; v1 wins. */
function rawData(count = 2): RawDataResponse {
  const data = Array.from({ length: count }, (_, index) => [
    variant(`e${index + 1}`, 'v0', { ctr_mean: 0.04, ctr_intervals: [0.035, 0.045], probability: 0.1 }),
    variant(`e${index + 1}`, 'v1', { ctr_mean: 0.06, ctr_intervals: [0.055, 0.065], probability: 0.9 }),
  ]).flat();
  return { status: 'success', data };
}

type ClockedHandler = (request: Request, clock: FakeClock) => ReturnType<Handler>;

interface Mount {
  attributes?: string;
  src?: string;
  /** Waits for the first answer (false for one held back). */
  wait?: boolean;
  /** Mounts on a hidden page. */
  hidden?: boolean;
}

async function headlineTests(handler: ClockedHandler, { attributes = RANGE, src = SRC, wait = true, hidden = false }: Mount = {}) {
  const { clock, server } = freshHub((request) => handler(request, clock));
  if (hidden) setPageHidden(true);
  const root = fixtureSync(html`<div lang="en"></div>`);
  root.innerHTML = `<headline-tests src="${src}" ${attributes}></headline-tests>`;
  const el = root.firstElementChild as HeadlineTests;
  if (wait) await settleElements(root);
  else await el.updateComplete;
  const all = (selector: string) => [...el.shadowRoot!.querySelectorAll(selector)].map((node) => node.textContent!.replace(/\s+/g, ' ').trim());
  const settled = async () => {
    await settleElements(root);
    await el.updateComplete;
  };
  return { el, clock, server, all, settled };
}

describe('<headline-tests>', () => {
  failOnLitWarnings();
  afterEach(() => setPageHidden(false));

  describe('states, accessibly', () => {
    it('loads once from src with the range attributes, and is not polled on the 3 s clock', async () => {
      const { el, clock, server } = await headlineTests((_request, clock) => reply(clock, rawData()));
      expect(states(el)).to.deep.equal(['ready']);
      expect(server.count()).to.equal(1);
      const query = new URL(server.requests[0]!.url).searchParams;
      expect(Object.fromEntries(query)).to.deep.equal({ host: 'example.com', start: '2025-06-01', end: '2025-06-07', tz: 'Europe/Paris' });
      await clock.toNextTick();
      await clock.advance(60_000);
      expect(server.count()).to.equal(1);
      expect(text(el)).to.contain('Updated');
      await expect(el).to.be.accessible();
      el.theme = 'dark';
      await el.updateComplete;
      expect(getComputedStyle(el).colorScheme).to.equal('dark');
      await expect(el).to.be.accessible();
    });

    it('shows loading until the answer, accessibly', async () => {
      const held = deferred<Response>();
      const { el } = await headlineTests(() => held.promise, { wait: false });
      expect(states(el)).to.deep.equal(['loading']);
      expect(text(el)).to.contain('Loading');
      await expect(el).to.be.accessible();
    });

    it('says when the range has no test, accessibly', async () => {
      const { el } = await headlineTests((_request, clock) => reply(clock, { status: 'success', data: [] }));
      expect(states(el)).to.deep.equal(['empty']);
      expect(text(el)).to.contain('No headline tests in this range.');
      await expect(el).to.be.accessible();
    });

    it('explains a refusal of the cache in its words, and a network failure without a stack trace', async () => {
      const { el } = await headlineTests((_request, clock) => reply(clock, { error: { code: 'bad_param', message: 'tz must be an Olson time zone such as Europe/Paris', param: 'tz' } }, { status: 400 }), { attributes: 'tz="Mars/Olympus"' });
      expect(states(el)).to.deep.equal(['error']);
      expect(el.shadowRoot!.querySelector('[part=error]')!.textContent).to.equal('tz must be an Olson time zone such as Europe/Paris');
      await expect(el).to.be.accessible();
      const failed = await headlineTests(() => Promise.reject(new TypeError('Failed to fetch at line 42')));
      expect(states(failed.el)).to.deep.equal(['error']);
      expect(text(failed.el)).to.contain('could not be reached');
      expect(text(failed.el)).not.to.contain('line 42');
    });

    it('refuses a missing src or one for another route without asking anything', async () => {
      const missing = await headlineTests(() => new Response('{}'), { src: '' });
      expect(states(missing.el)).to.deep.equal(['error']);
      expect(text(missing.el)).to.contain('No data source');
      const wrong = await headlineTests(() => new Response('{}'), { src: '/live/referrers/v3/?host=example.com' });
      expect(text(wrong.el)).to.contain('src must be the address of a /mab/htapi/v1/experiments/raw_data/ resource.');
      expect(wrong.server.count()).to.equal(0);
      await expect(wrong.el).to.be.accessible();
    });

    it('marks an answer older than the cache lifetime (60 s) stale, with a visible notice', async () => {
      const { el } = await headlineTests((_request, clock) => reply(clock, rawData(), { age: 90_000 }));
      expect(states(el)).to.deep.equal(['ready', 'stale']);
      expect(el.shadowRoot!.querySelector('[part=updated]')!.textContent).to.match(/^Out of date: last updated 1 min/);
      await expect(el).to.be.accessible();
    });

    it('waits, paused, while the page is hidden, and loads when it is back', async () => {
      const { el, server, settled } = await headlineTests((_request, clock) => reply(clock, rawData()), { hidden: true });
      expect(states(el)).to.deep.equal(['loading', 'paused']);
      expect(server.count()).to.equal(0);
      await expect(el).to.be.accessible();
      setPageHidden(false);
      await settled();
      expect(states(el)).to.deep.equal(['ready']);
      expect(server.count()).to.equal(1);
    });

    it('fires pulse-data and pulse-error that bubble out of shadow roots', async () => {
      const seen: string[] = [];
      const listen = (event: Event) => seen.push(event.type);
      document.addEventListener('pulse-data', listen);
      document.addEventListener('pulse-error', listen);
      try {
        const { el, settled } = await headlineTests((request, clock) => (request.url.includes('start=2025-01-01') ? new Response(null, { status: 500 }) : reply(clock, rawData())));
        expect(states(el)).to.deep.equal(['ready']);
        el.start = '2025-01-01';
        await settled();
        expect(states(el)).to.deep.equal(['error']);
      } finally {
        document.removeEventListener('pulse-data', listen);
        document.removeEventListener('pulse-error', listen);
      }
      expect(seen).to.deep.equal(['pulse-data', 'pulse-error']);
    });

    it('writes no style attribute, which a strict CSP (style-src-attr) would block', async () => {
      const writes = recordStyleAttributeWrites();
      try {
        const { el } = await headlineTests((_request, clock) => reply(clock, rawData()));
        expect(states(el)).to.deep.equal(['ready']);
      } finally {
        writes.stop();
      }
      expect(writes.seen).to.deep.equal([]);
    });
  });
});
