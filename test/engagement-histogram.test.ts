import { expect, fixtureSync, html } from '@open-wc/testing';
import type { FullHistogram, QuickstatsResponse } from '../src/api/index.ts';
import { axisPosition, buckets } from '../src/elements/engagement-histogram/histogram-scale.ts';
import '../src/index.ts';
import { LocalizeController } from '../src/internal/localize.ts';
import { engagementHistogramTerms } from '../src/locales/en.ts';
import '../src/locales/fr.ts';
import type { EngagementHistogram } from '../src/index.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { quickstats, URLS } from './helpers/browser-fixtures.ts';
import { describeCommonBehaviour } from './helpers/browser-states.ts';

const ENGAGED_TIME: FullHistogram = {
  breaks: [0, 15, 30, 45, 60, 120, 180, 240, 300, 600, 900],
  hist: [1, 2, 3, 4, 5, 6, 4, 3, 1, 0, 0, 1],
  median: 52.5,
  avg: 89,
  sum: 2670,
  num_values: 30,
};
const SCROLL: FullHistogram = {
  breaks: [0, 1, 2, 3, 4, 5, 6, 7, 8],
  hist: [1, 2, 3, 3, 2, 1, 1, 1, 0, 1],
  median: 2.5,
  avg: 3.2,
  sum: 48,
  num_values: 15,
};
const DOMLOAD: FullHistogram = {
  breaks: [1000, 2000, 3000, 4000, 5000, 7500, 10000, 15000, 20000, 30000],
  hist: [1, 4, 5, 3, 1, 1, 0, 0, 0, 0, 0],
  median: 2500,
  avg: 2400,
  sum: 36000,
  num_values: 15,
};
const VISIT: FullHistogram = {
  breaks: [1, 2, 3, 4, 5, 6, 10, 15, 30],
  hist: [2, 3, 6, 7, 6, 4, 2, 1, 0, 1],
  median: 3.5,
  avg: 3.95,
  sum: 126,
  num_values: 32,
};

function withHistograms(): QuickstatsResponse {
  const body = quickstats(30);
  Object.assign(body.data.stats, {
    engaged_time: ENGAGED_TIME,
    scroll: SCROLL,
    domload: DOMLOAD,
    visit: VISIT,
  });
  return body;
}

async function histogram(attributes = '', src: string = URLS.quickstats) {
  const { clock } = freshHub(() => reply(clock, withHistograms()));
  const root = fixtureSync(html`<div lang="en"></div>`);
  root.innerHTML = `<engagement-histogram src="${src}" ${attributes}></engagement-histogram>`;
  const el = root.firstElementChild as EngagementHistogram;
  await settleElements(root);
  const all = (selector: string) =>
    [...el.shadowRoot!.querySelectorAll(selector)].map((node) =>
      node.textContent!.replace(/\s+/g, ' ').trim(),
    );
  return { el, all };
}

describe('<engagement-histogram>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: 'engagement-histogram',
    src: URLS.quickstats,
    ready: withHistograms(),
    empty: quickstats(0),
    readyText: 'Median',
  });

  it('draws engaged time in seconds then minutes, with median and average marked and told', async () => {
    const { el, all } = await histogram();
    expect(all('[part=label]')).to.deep.equal(['Engaged time of visitors now']);
    expect(el.shadowRoot!.querySelectorAll('[part=column]')).to.have.length(12);
    expect(all('[part=summary] li')).to.deep.equal(['Median 52.5 sec', 'Average 1.5 min', '30 values']);
    expect(all('[part=axis] span')).to.deep.equal(['0 sec', 'over 15 min']);
    const at = (part: string) =>
      Number(
        el.shadowRoot!.querySelector<HTMLElement>(`[part=${part}]`)!.style.getPropertyValue('--pulse-at'),
      );
    expect(at('median-marker')).to.be.closeTo((4 + 7.5 / 15) / 12, 0.001);
    expect(at('average-marker')).to.be.closeTo((5 + 29 / 60) / 12, 0.001);
    const heights = [...el.shadowRoot!.querySelectorAll<HTMLElement>('[part=column]')].map((column) =>
      column.style.getPropertyValue('--pulse-height'),
    );
    expect(heights[5]).to.equal('1.0000');
  });

  it('has a real table of the buckets, visually hidden until the toggle shows it', async () => {
    const { el, all } = await histogram();
    const table = el.shadowRoot!.querySelector('table')!;
    expect(table.classList.contains('visually-hidden')).to.equal(true);
    expect(all('tbody tr').slice(0, 3)).to.deep.equal([
      '0 sec 1 3%',
      '0 sec – 15 sec 2 7%',
      '15 sec – 30 sec 3 10%',
    ]);
    expect(all('tbody tr').at(-1)).to.equal('over 15 min 1 3%');
    const toggle = el.shadowRoot!.querySelector<HTMLButtonElement>('[part=toggle]')!;
    expect(toggle.getAttribute('aria-expanded')).to.equal('false');
    toggle.click();
    await el.updateComplete;
    expect(toggle.getAttribute('aria-expanded')).to.equal('true');
    expect(table.classList.contains('visually-hidden')).to.equal(false);
    expect(el.hasAttribute('show-table')).to.equal(true);
    await expect(el).to.be.accessible();
  });

  it('labels scroll in 10 % steps, quickstats domload in seconds from milliseconds, and visits in minutes', async () => {
    const { el, all } = await histogram('histogram="scroll"');
    expect(all('tbody th')).to.deep.equal([
      '0%',
      '0% – 10%',
      '10% – 20%',
      '20% – 30%',
      '30% – 40%',
      '40% – 50%',
      '50% – 60%',
      '60% – 70%',
      '70% – 80%',
      'over 80%',
    ]);
    expect(all('[part=summary] li')[0]).to.equal('Median 25%');
    el.histogram = 'domload';
    await el.updateComplete;
    expect(all('tbody th').slice(0, 2)).to.deep.equal(['up to 1 sec', '1 sec – 2 sec']);
    expect(all('tbody th').at(-1)).to.equal('over 30 sec');
    expect(all('[part=summary] li')[0]).to.equal('Median 2.5 sec');
    el.histogram = 'visit';
    await el.updateComplete;
    expect(all('[part=label]')).to.deep.equal(['Minutes per visit']);
    expect(all('tbody th').slice(0, 2)).to.deep.equal(['up to 1 min', '1 min – 2 min']);
  });

  it('is empty for a histogram the data lacks, and reads one page through path=', async () => {
    const { el } = await histogram('histogram="writing_visit"', `${URLS.quickstats}&path=/news/story`);
    expect(el.matches(':state(empty)')).to.equal(true);
  });

  it('places values on the bucket axis, open last bucket up to 1.5 times the last break', () => {
    expect(axisPosition(VISIT, 0.5)).to.be.closeTo(0.5 / 10, 0.001);
    expect(axisPosition(VISIT, 45)).to.equal(1);
    expect(axisPosition(VISIT, 37.5)).to.be.closeTo(9.5 / 10, 0.001);
    expect(buckets(VISIT, 'minute', frenchOf(document.body)).at(-1)!.label).to.match(/^plus de 30\smin$/);
  });
});

/** The words of an element in French, for the bucket labels alone (a bare host: nothing renders). */
function frenchOf(parent: HTMLElement): LocalizeController {
  const host = Object.assign(document.createElement('span'), {
    lang: 'fr',
    addController() {},
    removeController() {},
    requestUpdate() {},
    updateComplete: Promise.resolve(true),
  });
  parent.append(host);
  return new LocalizeController(host, engagementHistogramTerms);
}
