import { expect, fixtureSync, html } from '@open-wc/testing';
import { RAW_DATA_TTL_MS } from '../src/api/constants.ts';
import type { RawDataRecord, RawDataResponse } from '../src/api/index.ts';
import { csvCell, experimentsCsv, groupExperiments } from '../src/elements/headline-tests/experiments.ts';
import '../src/index.ts';
import { headlineTestsTerms } from '../src/locales/en.ts';
import type { HeadlineTests } from '../src/index.ts';
import {
  failOnLitWarnings,
  type FakeClock,
  freshHub,
  reply,
  setPageHidden,
  settleElements,
  type Handler,
} from './helpers/browser-fakes.ts';
import { describeCommonBehaviour, states, text } from './helpers/browser-states.ts';

const SRC = '/mab/htapi/v1/experiments/raw_data/?host=example.com';
const RANGE = 'start="2025-06-01" end="2025-06-07" tz="Europe/Paris"';

function variant(experiment: string, id: string, extra: Partial<RawDataRecord> = {}): RawDataRecord {
  return {
    experiment_id: experiment,
    status: 'completed',
    type: 'headline',
    model: 'thompson_sampling',
    host: 'example.com',
    domain: 'example.com',
    path: `example.com/news/${experiment}`,
    location: 'homepage',
    specific_location: null,
    exp_metadata: null,
    winning_variant: 'v1',
    convergence_type: 'probability',
    value_remaining: '0.01',
    valid: 'true',
    content_type: 'headline',
    content: `Headline ${experiment} ${id}`,
    variant_id: id,
    variant_metadata: null,
    sections: ['News'],
    created_at: '2025-06-02T09:00:00.000Z',
    archived_at: null,
    activated_at: '2025-06-02T09:05:00.000Z',
    completed_at: '2025-06-03T09:00:00.000Z',
    total_outcomes: 300,
    total_failures: 5000,
    outcome_last_received_at: null,
    num_outcomes: 150,
    num_variants: 2,
    strategy_last_updated_at: null,
    engagement_mean: 40,
    ctr_mean: 0.05,
    engaged_clicks_mean: 0.03,
    probability: 0.5,
    payout_coefficients: [1],
    priors: [1, 1],
    engagement_intervals: [38, 42],
    ctr_intervals: [0.04, 0.06],
    engaged_click_intervals: [0.02, 0.04],
    outcome_counts: [150, 2500, 90],
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

async function headlineTests(
  handler: ClockedHandler,
  { attributes = RANGE, src = SRC, wait = true, hidden = false }: Mount = {},
) {
  const { clock, server } = freshHub((request) => handler(request, clock));
  if (hidden) setPageHidden(true);
  const root = fixtureSync(html`<div lang="en"></div>`);
  root.innerHTML = `<headline-tests src="${src}" ${attributes}></headline-tests>`;
  const el = root.firstElementChild as HeadlineTests;
  if (wait) await settleElements(root);
  else await el.updateComplete;
  const all = (selector: string) =>
    [...el.shadowRoot!.querySelectorAll(selector)].map((node) =>
      node.textContent!.replace(/\s+/g, ' ').trim(),
    );
  const settled = async () => {
    await settleElements(root);
    await el.updateComplete;
  };
  return { el, clock, server, all, settled };
}

describe('<headline-tests>', () => {
  failOnLitWarnings();
  afterEach(() => setPageHidden(false));

  describeCommonBehaviour({
    tag: 'headline-tests',
    src: SRC,
    ready: rawData(),
    empty: { status: 'success', data: [] },
    readyText: '2 tests, 4 variants',
    loadsOnce: { maxAgeMs: RAW_DATA_TTL_MS },
  });

  it('loads once from src with the range attributes, and is not polled on the 3 s clock', async () => {
    const { el, clock, server } = await headlineTests((_request, clock) => reply(clock, rawData()));
    expect(states(el)).to.deep.equal(['ready']);
    expect(server.count()).to.equal(1);
    const query = new URL(server.requests[0]!.url).searchParams;
    expect(Object.fromEntries(query)).to.deep.equal({
      host: 'example.com',
      start: '2025-06-01',
      end: '2025-06-07',
      tz: 'Europe/Paris',
    });
    await clock.toNextTick();
    await clock.advance(60_000);
    expect(server.count()).to.equal(1);
    expect(text(el)).to.contain('Updated');
  });

  it('says when the range has no test, and passes on a refusal of the cache in its words', async () => {
    const empty = await headlineTests((_request, clock) => reply(clock, { status: 'success', data: [] }));
    expect(text(empty.el)).to.contain('No headline tests in this range.');
    const { el } = await headlineTests(
      (_request, clock) =>
        reply(
          clock,
          {
            error: {
              code: 'bad_param',
              message: 'tz must be an Olson time zone such as Europe/Paris',
              param: 'tz',
            },
          },
          { status: 400 },
        ),
      { attributes: 'tz="Mars/Olympus"' },
    );
    expect(states(el)).to.deep.equal(['error']);
    expect(el.shadowRoot!.querySelector('[part=error]')!.textContent).to.equal(
      'tz must be an Olson time zone such as Europe/Paris',
    );
  });

  it('tries a failed load again after a growing delay, keeping its error in view, and never retries a refusal', async () => {
    let failing = 2;
    const { el, clock, server, settled } = await headlineTests((_request, clock) =>
      failing-- > 0 ? reply(clock, {}, { status: 503 }) : reply(clock, rawData()),
    );
    expect(states(el)).to.deep.equal(['error']);
    await clock.advance(2999);
    expect(server.count()).to.equal(1);
    await clock.advance(1);
    await settled();
    expect(server.count()).to.equal(2);
    expect(states(el)).to.deep.equal(['error']);
    await clock.advance(5999);
    expect(server.count()).to.equal(2);
    await clock.advance(1);
    await settled();
    expect(server.count()).to.equal(3);
    expect(states(el)).to.deep.equal(['ready']);
    await clock.advance(120_000);
    expect(server.count()).to.equal(3);

    const refused = await headlineTests((_request, clock) =>
      reply(
        clock,
        { error: { code: 'forbidden', message: 'host not allowed', param: 'host' } },
        { status: 403 },
      ),
    );
    await refused.clock.advance(120_000);
    expect(refused.server.count()).to.equal(1);
  });

  it('is stale only past the cache lifetime of raw data', async () => {
    const fresh = await headlineTests((_request, clock) =>
      reply(clock, rawData(), { age: RAW_DATA_TTL_MS - 1000 }),
    );
    expect(states(fresh.el)).to.deep.equal(['ready']);
    const old = await headlineTests((_request, clock) =>
      reply(clock, rawData(), { age: RAW_DATA_TTL_MS + 30_000 }),
    );
    expect(states(old.el)).to.deep.equal(['ready', 'stale']);
    expect(old.el.shadowRoot!.querySelector('[part=updated]')!.textContent).to.match(
      /^Out of date: last updated 1 min/,
    );
  });

  it('groups variants under their test, with status, winner, CTR and engagement with intervals, and probability', async () => {
    const { el, all } = await headlineTests((_request, clock) => reply(clock, rawData(2)));
    expect(all('[part=summary]')).to.deep.equal([
      '2 tests, 4 variants, Jun 1, 2025 to Jun 7, 2025 (Europe/Paris)',
    ]);
    expect(all('[part=headline]')).to.deep.equal(['Headline e1 v0', 'Headline e2 v0']);
    expect(all('[part=meta]')[0]).to.equal(
      'Completed Headline Created Jun 2, 2025 Completed Jun 3, 2025 example.com/news/e1',
    );
    expect(el.shadowRoot!.querySelector<HTMLAnchorElement>('[part=link]')!.href).to.equal(
      'https://example.com/news/e1',
    );
    const table = el.shadowRoot!.querySelector('[part=variants]')!;
    expect(table.getAttribute('aria-labelledby')).to.equal('experiment-0');
    const rows = [...table.querySelectorAll('tbody tr')].map((row) =>
      row.textContent!.replace(/\s+/g, ' ').trim(),
    );
    expect(rows).to.deep.equal([
      'Headline e1 v0 v0 4% 3.5% – 4.5% 40 38 – 42 10%',
      'Headline e1 v1 v1 Winner 6% 5.5% – 6.5% 40 38 – 42 90%',
    ]);
    const interval = table.querySelector<HTMLElement>('tbody tr:last-child .interval')!;
    expect(Number(interval.style.getPropertyValue('--pulse-from'))).to.be.within(0.6, 0.7);
    expect(Number(interval.style.getPropertyValue('--pulse-to'))).to.be.within(0.9, 1);
  });

  it('aborts the load in progress when an attribute changes, and shows only the newest range', async () => {
    // Like a real fetch, the held request ends only when it is aborted.
    const held = (request: Request) =>
      new Promise<Response>((_resolve, reject) =>
        request.signal.addEventListener('abort', () => reject(request.signal.reason)),
      );
    const { el, server, settled } = await headlineTests(
      (request, clock) =>
        request.url.includes('start=2025-06-01') ? held(request) : reply(clock, rawData(3)),
      { wait: false },
    );
    await el.updateComplete;
    expect(server.count()).to.equal(1);
    el.start = '2025-06-05';
    await settled();
    expect(server.count()).to.equal(2);
    expect(server.requests[0]!.signal.aborted).to.equal(true);
    expect(states(el)).to.deep.equal(['ready']);
    expect(text(el)).to.contain('3 tests');
    el.status = 'active';
    await settled();
    expect(new URL(server.requests[2]!.url).searchParams.get('status')).to.equal('active');
  });

  it('defaults to the last 7 days in the time zone when neither attributes nor src give a range', async () => {
    const { server } = await headlineTests((_request, clock) => reply(clock, rawData()), {
      attributes: 'tz="UTC"',
    });
    const query = new URL(server.requests[0]!.url).searchParams;
    expect([query.get('start'), query.get('end'), query.get('tz')]).to.deep.equal([
      '2024-12-26',
      '2025-01-01',
      'UTC',
    ]);
    const fromSrc = await headlineTests((_request, clock) => reply(clock, rawData()), {
      attributes: '',
      src: `${SRC}&start=2025-02-01&end=2025-02-02&tz=Asia/Tokyo`,
    });
    expect(Object.fromEntries(new URL(fromSrc.server.requests[0]!.url).searchParams)).to.include({
      start: '2025-02-01',
      end: '2025-02-02',
      tz: 'Asia/Tokyo',
    });
  });

  it('shows 25 tests a page, with pagination controls that keep focus and announce the page', async () => {
    const { el, all } = await headlineTests((_request, clock) => reply(clock, rawData(60)));
    expect(el.shadowRoot!.querySelectorAll('[part=experiment]')).to.have.length(25);
    expect(all('.page-status')).to.deep.equal(['Page 1 of 3']);
    const [previous, next] = el.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part=page-button]');
    expect(previous!.getAttribute('aria-disabled')).to.equal('true');
    next!.focus();
    next!.click();
    await el.updateComplete;
    next!.click();
    await el.updateComplete;
    expect(all('.page-status')).to.deep.equal(['Page 3 of 3']);
    expect(all('[part=headline]')[0]).to.equal('Headline e51 v0');
    expect(el.shadowRoot!.querySelector('ol')!.getAttribute('start')).to.equal('51');
    expect(next!.getAttribute('aria-disabled')).to.equal('true');
    expect(el.shadowRoot!.activeElement).to.equal(next);
    next!.click();
    await el.updateComplete;
    expect(all('.page-status')).to.deep.equal(['Page 3 of 3']);
    expect(all('[part=live]')).to.deep.equal(['Page 3 of 3']);
    await expect(el).to.be.accessible();
  });

  it('renders hundreds of variants by rendering one page of them', async () => {
    const { el, all } = await headlineTests((_request, clock) => reply(clock, rawData(300)));
    expect(all('[part=summary]')[0]).to.contain('300 tests, 600 variants');
    expect(el.shadowRoot!.querySelectorAll('tbody tr')).to.have.length(50);
  });

  it('renders hostile headlines, paths and ids as text, and links only http(s) pages', async () => {
    const hostile = rawData(1);
    hostile.data[0] = {
      ...hostile.data[0]!,
      content: '<img src=x onerror=alert(1)>',
      variant_id: '"><script>alert(1)</script>',
      path: 'javascript:alert(1)',
    };
    const { el, all } = await headlineTests((_request, clock) => reply(clock, hostile));
    expect(all('[part=headline]')).to.deep.equal(['<img src=x onerror=alert(1)>']);
    expect(el.shadowRoot!.querySelectorAll('img, script')).to.have.length(0);
    expect(el.shadowRoot!.querySelector('[part=link]')).to.equal(null);
    expect(all('[part=meta]')[0]).to.contain('javascript:alert(1)');
  });

  it('offers what it shows as a CSV download, safe from formula injection', async () => {
    const body = rawData(1);
    body.data[0] = { ...body.data[0]!, content: '=HYPERLINK("http://evil.example","click")' };
    const { el } = await headlineTests((_request, clock) => reply(clock, body));
    const link = el.shadowRoot!.querySelector<HTMLAnchorElement>('[part=download]')!;
    expect(link.download).to.equal('headline-tests-example.com-2025-06-01-2025-06-07.csv');
    expect(link.href).to.match(/^blob:/);
    const csv = await (await fetch(link.href)).text();
    const lines = csv.replace(/^\ufeff/, '').split('\r\n');
    expect(lines[0]).to.equal(
      '"Experiment ID","Status","Type","Path","Created","Completed","Winning variant","Variant ID","Headline","CTR mean","CTR low","CTR high","Engagement mean","Engagement low","Engagement high","Probability best"',
    );
    expect(lines[1]).to.contain(
      `"v0","'=HYPERLINK(""http://evil.example"",""click"")",0.04,0.035,0.045,40,38,42,0.1`,
    );
    expect(lines).to.have.length(4);
    el.remove();
    await fetch(link.href).then(
      () => expect.fail('the object URL is released on disconnect'),
      () => undefined,
    );
  });

  it('works on a video@ host like any other', async () => {
    const { el, server } = await headlineTests((_request, clock) => reply(clock, rawData(1)), {
      src: '/mab/htapi/v1/experiments/raw_data/?host=video@example.com',
    });
    expect(states(el)).to.deep.equal(['ready']);
    expect(new URL(server.requests[0]!.url).searchParams.get('host')).to.equal('video@example.com');
  });
});

describe('headline-tests CSV and grouping', () => {
  it('quotes text, doubles quotes and neutralises formula starts', () => {
    expect(
      ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', 'plain', 'a "b"'].map((cell) => csvCell(cell)),
    ).to.deep.equal([`"'=1+1"`, `"'+1"`, `"'-1"`, `"'@SUM(A1)"`, `"'\tx"`, '"plain"', '"a ""b"""']);
    expect([0.5, -2, null, undefined, Number.NaN].map((cell) => csvCell(cell))).to.deep.equal([
      '0.5',
      '-2',
      '',
      '',
      '',
    ]);
  });

  it('groups rows by experiment in the order sent, and writes one CSV row per variant', () => {
    const rows = [variant('b', 'v0'), variant('a', 'v0'), variant('b', 'v1')];
    const experiments = groupExperiments(rows);
    expect(experiments.map((experiment) => [experiment.id, experiment.variants.length])).to.deep.equal([
      ['b', 2],
      ['a', 1],
    ]);
    expect(experimentsCsv(experiments, headlineTestsTerms.testsCsvHeaders).split('\r\n')).to.have.length(5);
  });
});
