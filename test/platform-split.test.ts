import { expect, fixtureSync, html } from '@open-wc/testing';
import type { QuickstatsResponse } from '../src/api/index.ts';
import '../src/index.ts';
import type { PlatformSplit } from '../src/index.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { quickstats, URLS } from './helpers/browser-fixtures.ts';
import { describeCommonBehaviour } from './helpers/browser-states.ts';

function withPlatforms(people = 100): QuickstatsResponse {
  const body = quickstats(people);
  body.data.stats.platform = { d: 50, m: 30, t: 10, a: 6, e: 4, g: 0 };
  body.data.stats.platform_engaged = { d: 20, m: 25, t: 5, a: 0 };
  body.data.stats.loyalty = { new: 20, returning: 50, loyal: 30 };
  return body;
}

async function platformSplit(body: QuickstatsResponse, attributes = '') {
  const { clock, server } = freshHub(() => reply(clock, body));
  const root = fixtureSync(html`<div lang="en"></div>`);
  root.innerHTML = `<platform-split src="${URLS.quickstats}" ${attributes}></platform-split>`;
  const el = root.firstElementChild as PlatformSplit;
  await settleElements(root);
  const column = (part: string) =>
    [...el.shadowRoot!.querySelectorAll(`[part=${part}]`)].map((node) =>
      node.textContent!.replace(/\s+/g, ' ').trim(),
    );
  const lastQuery = () => new URL(server.requests.at(-1)!.url).searchParams;
  const settled = () => settleElements(root);
  return { el, column, lastQuery, settled };
}

describe('<platform-split>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: 'platform-split',
    src: URLS.quickstats,
    ready: withPlatforms(),
    empty: quickstats(0),
    readyText: 'Desktop',
  });

  it('names the platform letters it can, shows the others as themselves, and asks for all_platforms=1', async () => {
    const { column, lastQuery } = await platformSplit(withPlatforms());
    expect(lastQuery().get('all_platforms')).to.equal('1');
    expect(column('label')).to.deep.equal(['Visitors by platform']);
    expect(column('name')).to.deep.equal(['Desktop', 'Mobile', 'Tablet', 'App', 'e']);
    expect(column('share')).to.deep.equal(['50%', '30%', '10%', '6%', '4%']);
  });

  it('shows those engaging by platform, or new, returning and loyal visitors with loyalty=1', async () => {
    const { el, column, lastQuery, settled } = await platformSplit(
      withPlatforms(),
      'breakdown="platform_engaged" max="2"',
    );
    expect(column('name')).to.deep.equal(['Mobile', 'Desktop']);
    el.breakdown = 'loyalty';
    await settled();
    expect(lastQuery().get('loyalty')).to.equal('1');
    expect(column('label')).to.deep.equal(['New, returning and loyal visitors']);
    expect(column('name')).to.deep.equal(['Returning', 'Loyal']);
    el.max = 0;
    await el.updateComplete;
    expect(column('count')).to.deep.equal(['50 visitors', '30 visitors', '20 visitors']);
  });

  it('is empty when the data has no such breakdown', async () => {
    const { el } = await platformSplit(quickstats(10), 'breakdown="loyalty"');
    expect(el.matches(':state(empty)')).to.equal(true);
  });

  it('renders unknown platform keys as text', async () => {
    const body = quickstats(10);
    body.data.stats.platform = { '<b onclick=alert(1)>x</b>': 5 };
    const { el, column } = await platformSplit(body);
    expect(column('name')).to.deep.equal(['<b onclick=alert(1)>x</b>']);
    expect(el.shadowRoot!.querySelectorAll('b')).to.have.length(0);
  });
});
