/**
 * The newsroom features: several sites in one element (the network view), freezing a list,
 * opening a <top-pages> row into its page's own numbers, and hidden numbers.
 */
import { expect, fixtureSync, html } from '@open-wc/testing';
import '../src/index.ts';

import type { GeoList, LiveCounter, ReferrerBars, TopPages } from '../src/index.ts';
import { deferred, failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { page, quickstats, referrers, topGeo, toppages } from './helpers/browser-fixtures.ts';
import { text } from './helpers/browser-states.ts';

const A = 'a.example';
const B = 'b.example';
const src = (path: string, ...sites: string[]) => sites.map((site) => `${path}?host=${site}`).join(' ');

/** Answers each site's URL with `bodies[site]`; a site mapped to a status fails with it. */
function network(bodies: Record<string, unknown>) {
  const feed = { bodies };
  const { clock, server } = freshHub((request) => {
    const url = new URL(request.url);
    const route = url.pathname.replace(/^\/api/, '');
    const body =
      feed.bodies[
        url.searchParams.get('path')
          ? `${url.searchParams.get('host')} ${route}`
          : url.searchParams.get('host')!
      ];
    return typeof body === 'number'
      ? reply(clock, { error: { code: 'upstream_error', message: 'down' } }, { status: body })
      : reply(clock, body);
  });
  return { clock, server, feed };
}

async function mount<T extends HTMLElement>(markup: string): Promise<T> {
  const root = fixtureSync(html`<div lang="en"></div>`);
  root.innerHTML = markup;
  await settleElements(root);
  return root.firstElementChild as T;
}

const all = (el: HTMLElement, selector: string) =>
  [...el.shadowRoot!.querySelectorAll(selector)].map((node) => node.textContent!.replace(/\s+/g, ' ').trim());
const states = (el: HTMLElement) =>
  ['ready', 'partial', 'error', 'stale'].filter((state) => el.matches(`:state(${state})`));

describe('network view: several sites in one element', () => {
  failOnLitWarnings();

  it('<top-pages> polls each site once per tick and merges pages by people, each row naming its site', async () => {
    const { clock, server } = network({
      [A]: toppages(page('/x', 30, { host: A }), page('/y', 5, { host: A })),
      [B]: toppages(page('/x', 40, { host: B })),
    });
    const el = await mount<TopPages>(
      `<top-pages src="${src('/live/toppages/v3/', A, B)}" site-names='{"b.example":"<b>Bee</b>"}'></top-pages>`,
    );
    expect(server.count()).to.equal(2);
    expect(all(el, '[part=link]')).to.deep.equal(['Story /x', 'Story /x', 'Story /y']);
    expect(all(el, '[part=site]')).to.deep.equal(['Site: <b>Bee</b>', 'Site: a.example', 'Site: a.example']);
    expect(el.shadowRoot!.querySelector('[part=site] b')).to.equal(null);
    expect(all(el, '[part=people] .count')).to.deep.equal(['40', '30', '5']);
    await clock.toNextTick();
    expect(server.count()).to.equal(4);
    await expect(el).to.be.accessible();
  });

  it('shows a site icon only when configured on this origin', async () => {
    network({ [A]: toppages(page('/x', 3)), [B]: toppages(page('/z', 2)) });
    const icons = JSON.stringify({ [A]: '/docs/images/theming.png', [B]: 'https://tracker.invalid/b.png' });
    const el = await mount<TopPages>(
      `<top-pages src="${src('/live/toppages/v3/', A, B)}" site-icons='${icons}'></top-pages>`,
    );
    const images = [...el.shadowRoot!.querySelectorAll('img')];
    expect(images.map((img) => new URL(img.src).pathname)).to.deep.equal(['/docs/images/theming.png']);
    expect(images[0]!.alt).to.equal('');
  });

  it('<live-counter>, <referrer-bars> and <geo-list> add up their sites', async () => {
    network({ [A]: quickstats(10), [B]: quickstats(32) });
    const counter = await mount<LiveCounter>(
      `<live-counter src="${src('/live/quickstats/v4/', A, B)}"></live-counter>`,
    );
    expect(all(counter, '[part=value]')).to.deep.equal(['42']);

    network({ [A]: referrers({ 'google.com': 4, 't.co': 1 }), [B]: referrers({ 'google.com': 6 }) });
    const bars = await mount<ReferrerBars>(
      `<referrer-bars src="${src('/live/referrers/v3/', A, B)}"></referrer-bars>`,
    );
    expect(all(bars, '[part=name]')).to.deep.equal(['Google', 'X (Twitter)']);
    expect(all(bars, '[part=count]')).to.deep.equal(['10 visitors', '1 visitor']);

    network({ [A]: topGeo({ US: 5, FR: 1 }, 6), [B]: topGeo({ FR: 9 }, 9) });
    const geo = await mount<GeoList>(`<geo-list src="${src('/live/top_geo/v1/', A, B)}"></geo-list>`);
    expect(all(geo, '[part=name]')).to.deep.equal(['France', 'United States']);
    expect(all(geo, '[part=share]')).to.deep.equal(['67%', '33%']);
  });

  it('one failing site makes the merge partial, named and announced, keeping its last data', async () => {
    const { clock, feed } = network({ [A]: quickstats(10), [B]: quickstats(32) });
    const counter = await mount<LiveCounter>(
      `<live-counter src="${src('/live/quickstats/v4/', A, B)}"></live-counter>`,
    );
    const errors: string[] = [];
    counter.addEventListener('pulse-error', (event) => errors.push(event.error.message));
    feed.bodies = { [A]: quickstats(12), [B]: 503 };
    await clock.toNextTick();
    await counter.updateComplete;
    expect(states(counter)).to.deep.equal(['ready', 'partial']);
    expect(all(counter, '[part=value]')).to.deep.equal(['44']);
    expect(all(counter, '[part=partial]')).to.deep.equal(['Partial: no fresh data from b.example.']);
    expect(all(counter, '[part=live]')).to.deep.equal(['Partial: no fresh data from b.example.']);
    expect(errors).to.deep.equal(['b.example: The data source is unavailable (HTTP 503).']);
    await expect(counter).to.be.accessible();
    feed.bodies = { [A]: quickstats(12), [B]: quickstats(30) };
    await clock.advance(6000);
    await counter.updateComplete;
    expect(states(counter)).to.deep.equal(['ready']);
    expect(all(counter, '[part=value]')).to.deep.equal(['42']);
  });

  it('a site failing from the start still lets the others show, and all failing is an error', async () => {
    network({ [A]: toppages(page('/x', 3)), [B]: 500 });
    const el = await mount<TopPages>(`<top-pages src="${src('/live/toppages/v3/', A, B)}"></top-pages>`);
    expect(states(el)).to.deep.equal(['ready', 'partial']);
    expect(all(el, '[part=rank]')).to.deep.equal(['1']);
    network({ [A]: 500, [B]: 500 });
    const failed = await mount<TopPages>(`<top-pages src="${src('/live/toppages/v3/', A, B)}"></top-pages>`);
    expect(states(failed)).to.deep.equal(['error']);
    expect(text(failed)).to.contain('unavailable');
  });

  it("waits for every site before the first merge, so a late site's pages are not called new", async () => {
    const late = deferred<Response>();
    const { clock } = freshHub((request) =>
      request.url.includes(B) ? late.promise : reply(clock, toppages(page('/a', 10))),
    );
    const root = fixtureSync(html`<div lang="en"></div>`);
    root.innerHTML = `<top-pages src="${src('/live/toppages/v3/', A, B)}"></top-pages>`;
    const el = root.firstElementChild as TopPages;
    await el.updateComplete;
    await Promise.resolve();
    expect(el.matches(':state(loading)')).to.equal(true);
    late.resolve(reply(clock, toppages(page('/b', 20))));
    await settleElements(root);
    expect(all(el, '[part=link]')).to.deep.equal(['Story /b', 'Story /a']);
    await clock.toNextTick();
    await el.updateComplete;
    expect(all(el, '[part=rank-change]')).to.deep.equal([]);
  });

  it('refuses several addresses on an element that shows one site', async () => {
    network({ [A]: quickstats(1) });
    const el = await mount<HTMLElement>(
      `<traffic-sources src="${src('/live/quickstats/v4/', A, B)}"></traffic-sources>`,
    );
    expect(text(el)).to.contain('src takes one address');
  });
});

describe('freeze', () => {
  failOnLitWarnings();

  it('holds the rows still while polling goes on, counts what waits, and applies the latest on resume', async () => {
    const { clock, server, feed } = network({ [A]: toppages(page('/a', 30), page('/b', 20)) });
    const el = await mount<TopPages>(
      `<top-pages src="${src('/live/toppages/v3/', A)}" tools="freeze"></top-pages>`,
    );
    const button = el.shadowRoot!.querySelector<HTMLButtonElement>('[part=freeze-button]')!;
    expect(button.getAttribute('aria-pressed')).to.equal('false');
    button.focus();
    button.click();
    await el.updateComplete;
    expect(button.getAttribute('aria-pressed')).to.equal('true');
    expect(all(el, '[part=live]')).to.deep.equal(['Frozen: rows stay still while updates arrive.']);
    feed.bodies = { [A]: toppages(page('/b', 50), page('/a', 30)) };
    await clock.toNextTick();
    feed.bodies = { [A]: toppages(page('/c', 90), page('/b', 50)) };
    await clock.toNextTick();
    await el.updateComplete;
    expect(server.count()).to.equal(3);
    expect(all(el, '[part=title] a')).to.deep.equal(['Story /a', 'Story /b']);
    expect(all(el, '[part=waiting]')).to.deep.equal(['2 updates waiting']);
    // The count is said politely, not every tick: the announcement a moment ago still stands.
    expect(all(el, '[part=live]')).to.deep.equal(['Frozen: rows stay still while updates arrive.']);
    await expect(el).to.be.accessible();
    button.click();
    await el.updateComplete;
    expect(all(el, '[part=title] a')).to.deep.equal(['Story /c', 'Story /b']);
    expect(all(el, '[part=rank]')).to.deep.equal(['1New', '2, no change']);
    expect(all(el, '[part=waiting]')).to.deep.equal([]);
    expect(all(el, '[part=live]')).to.deep.equal(['Showing the latest update.']);
    // Another src unfreezes: what was held belonged to the old one.
    button.click();
    await el.updateComplete;
    feed.bodies = { [B]: toppages(page('/q', 5)) };
    el.src = src('/live/toppages/v3/', B);
    await settleElements(el.parentElement!);
    expect(all(el, '[part=title] a')).to.deep.equal(['Story /q']);
    expect(el.shadowRoot!.querySelector('[part=freeze-button]')!.getAttribute('aria-pressed')).to.equal(
      'false',
    );
  });

  it('is on the lists (referrer-bars, geo-list) but not on the counter', async () => {
    network({ [A]: referrers() });
    const bars = await mount<ReferrerBars>(
      `<referrer-bars src="${src('/live/referrers/v3/', A)}" tools="freeze"></referrer-bars>`,
    );
    expect(bars.shadowRoot!.querySelector('[part=freeze-button]')).to.not.equal(null);
    network({ [A]: topGeo() });
    const geo = await mount<GeoList>(
      `<geo-list src="${src('/live/top_geo/v1/', A)}" tools="freeze"></geo-list>`,
    );
    expect(geo.shadowRoot!.querySelector('[part=freeze-button]')).to.not.equal(null);
    network({ [A]: quickstats(3) });
    const counter = await mount<LiveCounter>(
      `<live-counter src="${src('/live/quickstats/v4/', A)}" tools="freeze"></live-counter>`,
    );
    expect(counter.shadowRoot!.querySelector('[part=freeze-button]')).to.equal(null);
  });

  it('is off unless tools asks for it, even with the newsroom features loaded, and follows tools', async () => {
    network({ [A]: toppages(page('/a', 30)) });
    const el = await mount<TopPages>(`<top-pages src="${src('/live/toppages/v3/', A)}"></top-pages>`);
    expect(el.shadowRoot!.querySelector('[part=freeze], [part=expand]')).to.equal(null);
    el.tools = 'drill-down freeze';
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part=freeze-button]')).to.not.equal(null);
    expect(el.shadowRoot!.querySelector('[part=expand]')).to.not.equal(null);
    el.tools = 'drill-down';
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part=freeze-button]')).to.equal(null);
  });
});

describe('drill-down', () => {
  failOnLitWarnings();

  const pageStats = quickstats(30, { search: 15, social: 9, direct: 6 });
  pageStats.data.stats.platform = { d: 20, m: 10 };
  const detailText = (el: HTMLElement, tag: string) => {
    const nested = el.shadowRoot!.querySelector(`[part=page-detail] ${tag}`);
    return nested ? text(nested as HTMLElement) : '';
  };

  it("opens a row into its page's people, sources, platforms and referrers, polled only while open", async () => {
    const { clock, server } = network({
      [A]: toppages(page('a.example/news/x', 30), page('a.example/y', 10)),
      [`${A} /live/quickstats/v4/`]: pageStats,
      [`${A} /live/referrers/v3/`]: referrers({ 'www.google.com': 12, 't.co': 3 }),
    });
    const el = await mount<TopPages>(
      `<top-pages src="/api${src('/live/toppages/v3/', A)}" tools="drill-down"></top-pages>`,
    );
    const expand = () => el.shadowRoot!.querySelector<HTMLButtonElement>('[part=expand]')!;
    expect(expand().getAttribute('aria-expanded')).to.equal('false');
    expand().focus();
    expand().click();
    await el.updateComplete;
    await settleElements(el.shadowRoot!.querySelector('[part=page-detail]')!);
    expect(expand().getAttribute('aria-expanded')).to.equal('true');
    const asked = server.requests
      .slice(1)
      .map((request) => new URL(request.url))
      .map((url) => `${url.pathname}?${url.searchParams}`);
    expect(asked).to.deep.equal([
      '/api/live/quickstats/v4/?host=a.example&path=a.example%2Fnews%2Fx&all_platforms=1',
      '/api/live/referrers/v3/?host=a.example&path=a.example%2Fnews%2Fx&limit=5',
    ]);
    expect(detailText(el, 'live-counter')).to.contain('People on this page now 30');
    expect(detailText(el, 'traffic-sources')).to.contain('Search 15 visitors 50%');
    expect(detailText(el, 'platform-split')).to.contain('Desktop 20');
    expect(detailText(el, 'referrer-bars')).to.contain('Google 12 visitors');
    expect(all(el, '[part=live]')).to.deep.equal(['Showing live numbers of Story a.example/news/x']);
    await expect(el).to.be.accessible();
    await clock.toNextTick();
    expect(server.count('path=')).to.equal(4);
    expand().click();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part=detail-row]')).to.equal(null);
    expect(all(el, '[part=live]')).to.deep.equal(['Closed live numbers of Story a.example/news/x']);
    await clock.toNextTick();
    expect(server.count('path=')).to.equal(4);
  });

  it('stops polling a page whose row leaves the list', async () => {
    const { clock, server, feed } = network({
      [A]: toppages(page('/x', 30), page('/y', 10)),
      [`${A} /live/quickstats/v4/`]: pageStats,
      [`${A} /live/referrers/v3/`]: referrers(),
    });
    const el = await mount<TopPages>(
      `<top-pages src="${src('/live/toppages/v3/', A)}" max="1" tools="drill-down"></top-pages>`,
    );
    el.shadowRoot!.querySelector<HTMLButtonElement>('[part=expand]')!.click();
    await el.updateComplete;
    await settleElements(el.shadowRoot!.querySelector('[part=page-detail]')!);
    expect(server.count('path=')).to.equal(2);
    feed.bodies = { ...feed.bodies, [A]: toppages(page('/y', 40), page('/x', 30)) };
    await clock.toNextTick();
    await el.updateComplete;
    // Polled with the list at that tick; the answer moved the row out, and nothing since.
    expect(server.count('path=%2Fx')).to.equal(4);
    expect(el.shadowRoot!.querySelector('[part=detail-row]')).to.equal(null);
    await clock.toNextTick();
    expect(server.count('path=%2Fx')).to.equal(4);
  });
});

describe('hide-numbers', () => {
  failOnLitWarnings();

  it('shows ranks and titles only: no people, bars, numeric columns or drill-down', async () => {
    network({
      [A]: toppages(
        page('/a', 30, { stats: { people: 30, article: 30, search: 20, num_refs: 4 } }),
        page('/b', 20),
      ),
    });
    const el = await mount<TopPages>(
      `<top-pages src="${src('/live/toppages/v3/', A)}" hide-numbers columns="sections sources referrers" tools="drill-down"></top-pages>`,
    );
    expect(all(el, 'th')).to.deep.equal(['Rank', 'Page', 'Sections']);
    expect(el.shadowRoot!.querySelector('[part=people], [part=bar], [part=expand]')).to.equal(null);
    expect(text(el).replace(/Updated.*$/, '')).to.not.match(/\b(30|20)\b/);
    await expect(el).to.be.accessible();
  });
});
