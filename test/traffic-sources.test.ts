import { expect, fixtureSync, html } from '@open-wc/testing';
import '../src/index.ts';
import type { QuickstatsResponse } from '../src/api/index.ts';
import type { TrafficSources } from '../src/index.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { quickstats, URLS } from './helpers/browser-fixtures.ts';
import { describeCommonBehaviour } from './helpers/browser-states.ts';

const SOURCES = { direct: 40, search: 25, social: 15, links: 10, internal: 8, subscr: 2 };

async function trafficSources(body: QuickstatsResponse, attributes = '', src: string = URLS.quickstats) {
  const feed = { body };
  const { clock, server } = freshHub(() => reply(clock, feed.body));
  const root = fixtureSync(html`<div lang="en"></div>`);
  root.innerHTML = `<traffic-sources src="${src}" ${attributes}></traffic-sources>`;
  const el = root.firstElementChild as TrafficSources;
  await settleElements(root);
  const column = (part: string) =>
    [...el.shadowRoot!.querySelectorAll(`[part=${part}]`)].map((node) =>
      node.textContent!.replace(/\s+/g, ' ').trim(),
    );
  const next = async (next: QuickstatsResponse) => {
    feed.body = next;
    await clock.toNextTick();
    await el.updateComplete;
  };
  return { el, column, next, server };
}

describe('<traffic-sources>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: 'traffic-sources',
    src: URLS.quickstats,
    ready: quickstats(100, SOURCES),
    empty: quickstats(0, { search: 0 }),
    readyText: 'Direct',
  });

  it('lists the six sources largest first, with counts and shares of everyone as text and bar', async () => {
    const { el, column } = await trafficSources(quickstats(100, SOURCES));
    expect(el.shadowRoot!.querySelector('ol')!.getAttribute('aria-labelledby')).to.equal('label');
    expect(column('label')).to.deep.equal(['Visitors by traffic source']);
    expect(column('name')).to.deep.equal([
      'Direct',
      'Search',
      'Social',
      'Links',
      'Internal',
      'Subscriptions',
    ]);
    expect(column('count')).to.deep.equal([
      '40 visitors',
      '25 visitors',
      '15 visitors',
      '10 visitors',
      '8 visitors',
      '2 visitors',
    ]);
    expect(column('share')).to.deep.equal(['40%', '25%', '15%', '10%', '8%', '2%']);
    const fills = [...el.shadowRoot!.querySelectorAll<HTMLElement>('[part=bar-fill]')].map((fill) =>
      fill.style.getPropertyValue('--pulse-fill'),
    );
    expect(fills[0]).to.equal('0.4');
  });

  it('sources chooses which ones, and a source with nobody is left out', async () => {
    const { el, column } = await trafficSources(
      quickstats(100, { ...SOURCES, social: 0 }),
      'sources="social search subscr"',
    );
    expect(column('name')).to.deep.equal(['Search', 'Subscriptions']);
    expect(column('share')).to.deep.equal(['25%', '2%']);
    el.sources = 'nonsense';
    await el.updateComplete;
    expect(column('name')).to.have.length(5);
  });

  it('announces a new leading source politely', async () => {
    const { column, next } = await trafficSources(quickstats(100, SOURCES));
    await next(quickstats(100, { ...SOURCES, search: 50 }));
    expect(column('live')).to.deep.equal(['Most visitors now from search']);
  });

  it('works unchanged on a video@ host (spec 5.4)', async () => {
    const src = '/live/quickstats/v4/?host=video@example.com';
    const { el, column, server } = await trafficSources(quickstats(10, { direct: 6, search: 4 }), '', src);
    expect(el.matches(':state(ready)')).to.equal(true);
    expect(column('name')).to.deep.equal(['Direct', 'Search']);
    expect(new URL(server.requests[0]!.url).searchParams.get('host')).to.equal('video@example.com');
  });
});
