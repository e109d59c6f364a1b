import { expect, fixtureSync, html } from '@open-wc/testing';
import '../src/index.ts';
import { describeReferrer, type ReferrerBars } from '../src/index.ts';
import type { ReferrersResponse } from '../src/api/index.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { referrers, URLS } from './helpers/browser-fixtures.ts';
import { describeCommonBehaviour } from './helpers/browser-states.ts';

async function referrerBars(body: ReferrersResponse = referrers(), attributes = '') {
  const { clock } = freshHub(() => reply(clock, body));
  const root = fixtureSync(html`<div></div>`);
  root.innerHTML = `<referrer-bars src="${URLS.referrers}" ${attributes}></referrer-bars>`;
  const el = root.firstElementChild as ReferrerBars;
  await settleElements(root);
  const column = (part: string) =>
    [...el.shadowRoot!.querySelectorAll(`[part=${part}]`)].map((node) =>
      node.textContent!.replace(/\s+/g, ' ').trim(),
    );
  return { el, column };
}

describe('<referrer-bars>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: 'referrer-bars',
    src: URLS.referrers,
    ready: referrers(),
    empty: referrers({}),
    readyText: 'Google',
  });

  it('names well-known referrers, including dark social, with counts and shares (floats too)', async () => {
    const { column } = await referrerBars();
    expect(column('name')).to.deep.equal([
      'Google',
      'Dark social (no referrer)',
      'X (Twitter)',
      'Google News',
      'example.org',
    ]);
    expect(column('count')).to.deep.equal([
      '40 visitors',
      '25 visitors',
      '10 visitors',
      '5 visitors',
      '2.5 visitors',
    ]);
    expect(column('share')).to.deep.equal(['48%', '30%', '12%', '6%', '3%']);
  });

  it('knows search engines, social networks, news aggregators and AI assistants', () => {
    const cases: [string, string, string][] = [
      ['www.google.co.uk', 'Google', 'search'],
      ['duckduckgo.com', 'DuckDuckGo', 'search'],
      ['l.facebook.com', 'Facebook', 'social'],
      ['https://t.co/abc', 'X (Twitter)', 'social'],
      ['news.google.com', 'Google News', 'news'],
      ['flipboard.com', 'Flipboard', 'news'],
      ['chatgpt.com', 'ChatGPT', 'ai'],
      ['www.perplexity.ai', 'Perplexity', 'ai'],
      ['gemini.google.com', 'Gemini', 'ai'],
      ['', '', 'dark'],
      ['notgoogle.company', 'notgoogle.company', 'other'],
    ];
    expect(
      cases.map(([referrer]) => {
        const { name, category } = describeReferrer(referrer);
        return [referrer, name, category];
      }),
    ).to.deep.equal(cases);
  });

  it('groups referrers by kind when grouped', async () => {
    const { column } = await referrerBars(
      referrers({ 'google.com': 10, 'bing.com': 5, 'facebook.com': 4, 'chatgpt.com': 1, '': 2 }),
      'grouped',
    );
    expect(column('name')).to.deep.equal([
      'Search engines',
      'Social networks',
      'Dark social',
      'AI assistants',
    ]);
    expect(column('count')).to.deep.equal(['15 visitors', '4 visitors', '2 visitors', '1 visitor']);
    expect(column('label')).to.deep.equal(['Visitors by kind of referrer']);
  });

  it('reads the by_type shape, grouping by its traffic sources', async () => {
    const body = { referrers: { search: { 'google.com': 6, 'bing.com': 2 }, social: { 't.co': 2 } } };
    const flat = await referrerBars(body);
    expect(flat.column('name')).to.deep.equal(['Google', 'Bing', 'X (Twitter)']);
    const grouped = await referrerBars(body, 'grouped');
    expect(grouped.column('name')).to.deep.equal(['Search engines', 'Social networks']);
  });

  it('names every by_type group, never showing the upstream keys', async () => {
    const body = {
      referrers: {
        links: { 'example.org': 5 },
        subscr: { 'mail.example': 3 },
        internal: { 'example.com': 2 },
      },
    };
    const { column } = await referrerBars(body, 'grouped');
    expect(column('name')).to.deep.equal(['Links', 'Subscriptions', 'Internal']);
  });

  it('max limits the bars, shares still of the whole', async () => {
    const { column } = await referrerBars(referrers({ a: 50, b: 30, c: 20 }), 'max="1"');
    expect(column('name')).to.deep.equal(['a']);
    expect(column('share')).to.deep.equal(['50%']);
  });

  it('renders hostile referrer names as text and never as links', async () => {
    (window as unknown as { pwned?: boolean }).pwned = false;
    const { el, column } = await referrerBars(
      referrers({ 'javascript:window.pwned=true': 3, '<img src=x onerror="window.pwned=true">': 2 }),
    );
    expect(column('name')).to.deep.equal([
      'javascript:window.pwned=true',
      '<img src=x onerror="window.pwned=true">',
    ]);
    expect(el.shadowRoot!.querySelectorAll('a, img')).to.have.length(0);
    expect((window as unknown as { pwned?: boolean }).pwned).to.equal(false);
    await expect(el).to.be.accessible();
  });
});
