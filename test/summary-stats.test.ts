import { expect, fixtureSync, html } from '@open-wc/testing';
import type { SummaryResponse } from '../src/api/index.ts';
import { summarise } from '../src/elements/summary-stats/summary-stats.ts';
import '../src/index.ts';
import type { SummaryStats } from '../src/index.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { describeCommonBehaviour } from './helpers/browser-states.ts';

const SRC = '/live/summary/v3/?host=example.com&keys=time_spent,referrer,pagetimer,new';

function summary(): SummaryResponse {
  return {
    new: { type: 'string', data: { 0: 60, 1: 40 } },
    referrer: {
      type: 'string',
      data: {
        '': 50,
        'https://google.com/': 30,
        'https://t.co/': 10,
        'https://a.example/': 6,
        'https://b.example/': 3,
        'https://c.example/': 1,
      },
    },
    // Mean 30 s; sum of squares for a standard deviation of 10 s: n (sd² + mean²) = 100 × 1000.
    time_spent: {
      type: 'numeric',
      data: { min: 2, max: 90, sum: 3000, nonzero: 98, observations: 100, sum_squares: 100_000 },
    },
    pagetimer: {
      type: 'numeric',
      data: { min: 0, max: 0, sum: 0, nonzero: 0, observations: 0, sum_squares: 0 },
    },
  };
}

async function summaryStats(body: SummaryResponse, attributes = '') {
  const { clock } = freshHub(() => reply(clock, body));
  const root = fixtureSync(html`<div lang="en"></div>`);
  root.innerHTML = `<summary-stats src="${SRC}" ${attributes}></summary-stats>`;
  const el = root.firstElementChild as SummaryStats;
  await settleElements(root);
  const all = (selector: string) =>
    [...el.shadowRoot!.querySelectorAll(selector)].map((node) =>
      node.textContent!.replace(/\s+/g, ' ').trim(),
    );
  return { el, all };
}

describe('<summary-stats>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: 'summary-stats',
    src: SRC,
    ready: summary(),
    empty: {
      time_spent: {
        type: 'numeric',
        data: { min: 0, max: 0, sum: 0, nonzero: 0, observations: 0, sum_squares: 0 },
      },
      referrer: { type: 'string', data: {} },
    },
    readyText: 'Time on page',
  });

  it('summarises numeric keys in the order of keys: min, mean, standard deviation, max, observations', async () => {
    const { all } = await summaryStats(summary());
    expect(all('[part=numbers] tbody tr')).to.deep.equal([
      'Time on page 2 sec 30 sec 10 sec 1.5 min 100',
      'DOM load time —no data —no data —no data —no data 0',
    ]);
  });

  it('reads the service\'s spelling (nzObservations, sumOfSquares) and shows "—", not 0, for a statistic it lacks', async () => {
    const body = summary();
    // The public answers' names: a standard deviation of 10 s, as with sum_squares above.
    body.time_spent = {
      type: 'numeric',
      data: {
        min: 2,
        max: 90,
        sum: 3000,
        nzObservations: 98,
        observations: 100,
        sumOfSquares: 100_000,
        median: 28,
        upperHinge: 40,
        lowerHinge: 20,
      },
    };
    // No sum of squares at all: no standard deviation, never 0.
    body.pagetimer = { type: 'numeric', data: { min: 100, max: 900, sum: 5000, observations: 10 } };
    const { el, all } = await summaryStats(body);
    expect(all('[part=numbers] tbody tr')).to.deep.equal([
      'Time on page 2 sec 30 sec 10 sec 1.5 min 100',
      'DOM load time 0.1 sec 0.5 sec —no data 0.9 sec 10',
    ]);
    await expect(el).to.be.accessible();
  });

  it('lists the top values of categorical keys with counts, the rest added up', async () => {
    const { el, all } = await summaryStats(summary(), 'max="3"');
    expect(all('[part=values] caption')).to.deep.equal(['Referrer', 'New visitor']);
    expect(all('[part=values]:first-of-type tbody tr').length).to.be.greaterThan(0);
    const referrers = [...el.shadowRoot!.querySelectorAll('[part=values]')][0]!;
    expect(
      [...referrers.querySelectorAll('tbody tr')].map((row) => row.textContent!.replace(/\s+/g, ' ').trim()),
    ).to.deep.equal(['(none) 50', 'https://google.com/ 30', 'https://t.co/ 10', '3 other values 10']);
    expect(all('[part=value]').slice(-2)).to.deep.equal(['Returning', 'New']);
    await expect(el).to.be.accessible();
  });

  it('renders hostile values as text', async () => {
    const body = summary();
    body.referrer = { type: 'string', data: { '<img src=x onerror=alert(1)>': 5, '=cmd|calc': 2 } };
    const { el, all } = await summaryStats(body);
    expect(all('[part=value]').slice(0, 2)).to.deep.equal(['<img src=x onerror=alert(1)>', '=cmd|calc']);
    expect(el.shadowRoot!.querySelectorAll('img')).to.have.length(0);
  });

  it('computes mean and standard deviation safely', () => {
    expect(summarise({ min: 1, max: 3, sum: 6, observations: 3, sum_squares: 14 })).to.deep.include({
      mean: 2,
    });
    expect(summarise({ min: 1, max: 3, sum: 6, observations: 3, sum_squares: 14 }).deviation).to.be.closeTo(
      Math.sqrt(2 / 3),
      1e-9,
    );
    // Rounding upstream can leave sum_squares / n a hair below mean²: no NaN.
    expect(summarise({ sum: 30, observations: 3, sum_squares: 299.9999999 }).deviation).to.equal(0);
    expect(summarise({ sum: 0, observations: 0, sum_squares: 0 })).to.deep.include({
      mean: undefined,
      deviation: undefined,
      observations: 0,
    });
    expect(summarise({ min: 1, max: 3, sum: 6, observations: 3, sumOfSquares: 14 }).deviation).to.be.closeTo(
      Math.sqrt(2 / 3),
      1e-9,
    );
    expect(summarise({ min: 1, max: 3, sum: 6, observations: 3 })).to.deep.include({
      mean: 2,
      deviation: undefined,
    });
    expect(summarise({ min: 1, max: 3, sumOfSquares: 14 })).to.deep.include({
      observations: undefined,
      mean: undefined,
      deviation: undefined,
      min: 1,
    });
  });
});
