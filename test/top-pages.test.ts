import { expect, fixture } from '@open-wc/testing';
import '../src/index.ts';
import type { ToppagesResponse } from '../src/api/index.ts';
import { failOnLitWarnings, freshHub, reply, settle } from './helpers/browser-fakes.ts';
import { page, tenPages, toppages, URLS } from './helpers/browser-fixtures.ts';
import { describeCommonBehaviour, text } from './helpers/browser-states.ts';

/** A <top-pages> fed from `feed.body`, which the test changes between ticks. */
async function topPages(
  body: ToppagesResponse,
  attributes: Record<string, string> = {},
  src: string = URLS.toppages,
) {
  const feed = { body };
  const { clock, server } = freshHub(() => reply(clock, feed.body));
  const el = document.createElement('top-pages');
  el.setAttribute('src', src);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  await fixture(el);
  await settle();
  await el.updateComplete;
  const next = async (next: ToppagesResponse) => {
    feed.body = next;
    await clock.toNextTick();
    await el.updateComplete;
  };
  const rows = () => [...el.shadowRoot!.querySelectorAll('tbody tr')] as HTMLTableRowElement[];
  /** A cell's text, leaving out the row's expand button (a control, not content). */
  const cells = (part: string) =>
    [...el.shadowRoot!.querySelectorAll(`[part~=${part}]`)].map((cell) => {
      const copy = cell.cloneNode(true) as Element;
      copy.querySelectorAll('button').forEach((button) => button.remove());
      return copy.textContent!.replace(/\s+/g, ' ').trim();
    });
  return { el, server, next, rows, cells };
}

describe('<top-pages>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: 'top-pages',
    src: URLS.toppages,
    ready: tenPages(),
    empty: toppages(),
    readyText: 'Story example.com/a1',
  });

  it('ranks pages in a table with people as a number and a proportional bar', async () => {
    const { el, rows, cells } = await topPages(toppages(page('/a', 200), page('/b', 50)));
    expect(rows()).to.have.length(2);
    expect(cells('rank')).to.deep.equal(['1', '2']);
    expect(cells('people')).to.deep.equal(['200', '50']);
    const fills = [...el.shadowRoot!.querySelectorAll<HTMLElement>('[part=bar-fill]')].map((fill) =>
      fill.style.getPropertyValue('--pulse-fill'),
    );
    expect(fills).to.deep.equal(['1', '0.25']);
    expect(el.shadowRoot!.querySelector('[part=bar]')!.getAttribute('aria-hidden')).to.equal('true');
  });

  it('links titles from the three forms of path, to the page host or link-base', async () => {
    const body = toppages(
      page('/plain', 4, { host: undefined }),
      page('other.example/with-host', 3),
      page('http://example.com/absolute?x=1', 2),
    );
    const { el } = await topPages(body);
    const links = () => [...el.shadowRoot!.querySelectorAll('a')].map((a) => a.getAttribute('href'));
    expect(links()).to.deep.equal([
      'https://example.com/plain',
      'https://other.example/with-host',
      'http://example.com/absolute?x=1',
    ]);
    el.linkBase = 'https://staging.example.net';
    await el.updateComplete;
    expect(links()).to.deep.equal([
      'https://staging.example.net/plain',
      'https://staging.example.net/with-host',
      'http://example.com/absolute?x=1',
    ]);
  });

  it('keeps a long title’s link inside its row: the lines the clamp hides take no room over the next rows', async () => {
    const long =
      'A headline about the council’s budget vote that goes on well past the two lines a narrow column shows it';
    const body = toppages(
      ...Array.from({ length: 4 }, (_, index) =>
        page(`/p${index}`, 10 - index, { title: index % 2 ? 'Home' : long }),
      ),
    );
    const { el, rows } = await topPages(body, {
      columns: 'sections authors engaged-time sources platform loyalty type',
    });
    el.style.inlineSize = '600px';
    await el.updateComplete;
    for (const row of rows()) {
      const cell = row.querySelector('[part=title]')!.getBoundingClientRect();
      for (const box of row.querySelector('a')!.getClientRects()) {
        expect(box.top, 'the link starts in its row').to.be.at.least(cell.top);
        expect(box.bottom, 'the link ends in its row').to.be.at.most(cell.bottom);
      }
    }
  });

  it('renders hostile titles as text and never links javascript: or data: paths', async () => {
    (window as unknown as { pwned?: boolean }).pwned = false;
    const body = toppages(
      page('javascript:window.pwned=true', 9, { title: '<img src=x onerror="window.pwned=true">' }),
      page('data:text/html,<script>window.pwned=true</script>', 8, {
        title: '<script>window.pwned=true</script>',
      }),
      page('//evil.example/x', 7, { title: '"><a href="javascript:alert(1)">click</a>' }),
    );
    const { el, cells } = await topPages(body);
    expect(el.shadowRoot!.querySelectorAll('a, img, script')).to.have.length(0);
    expect(cells('title')).to.deep.equal([
      '<img src=x onerror="window.pwned=true">',
      '<script>window.pwned=true</script>',
      '"><a href="javascript:alert(1)">click</a>',
    ]);
    expect((window as unknown as { pwned?: boolean }).pwned).to.equal(false);
    await expect(el).to.be.accessible();
  });

  it('marks rank changes since the previous update as new, up n or down n, in words', async () => {
    const { next, cells, el } = await topPages(toppages(page('/a', 30), page('/b', 20), page('/c', 10)));
    expect(el.shadowRoot!.querySelectorAll('[part=rank-change]')).to.have.length(0);
    await next(toppages(page('/c', 40), page('/a', 30), page('/d', 15), page('/b', 12)));
    expect(cells('rank')).to.deep.equal(['1▲2, up 2', '2▼1, down 1', '3New', '4▼2, down 2']);
    const up = el.shadowRoot!.querySelector('[part=rank-change]')!;
    expect(up.querySelector('[aria-hidden=true]')!.textContent).to.equal('▲2');
    await next(toppages(page('/c', 40), page('/a', 30), page('/d', 15), page('/b', 12), page('/e', 1)));
    expect(cells('rank')).to.deep.equal([
      '1, no change',
      '2, no change',
      '3, no change',
      '4, no change',
      '5New',
    ]);
    await expect(el).to.be.accessible();
  });

  it('says "up n" for a page climbing from rows read but not shown, and "New" only for a page it never saw', async () => {
    const { next, cells } = await topPages(
      toppages(page('/a', 50), page('/b', 40), page('/c', 30), page('/d', 20), page('/e', 10)),
      { max: '2' },
    );
    await next(toppages(page('/e', 60), page('/a', 50), page('/b', 40), page('/c', 30), page('/d', 20)));
    expect(cells('rank')).to.deep.equal(['1▲4, up 4', '2▼1, down 1']);
    await next(toppages(page('/z', 90), page('/e', 60), page('/a', 50)));
    expect(cells('rank')).to.deep.equal(['1New', '2▼1, down 1']);
  });

  it('shows the optional columns asked for, when the data has them', async () => {
    const rich = page('/a', 100, {
      type: 'Article',
      stats: {
        people: 100,
        article: 100,
        engaged_time: { breaks: [0, 15], num_values: 3, median: 95, hist: [1, 1, 1], avg: 90, sum: 270 },
        search: 60,
        social: 30,
        direct: 10,
        platform: { d: 70, m: 25, t: 5 },
        loyalty: { new: 50, returning: 30, loyal: 20 },
      },
    });
    const { el, cells } = await topPages(toppages(rich), {
      columns: 'sections authors engaged-time sources platform loyalty type',
    });
    const headers = [...el.shadowRoot!.querySelectorAll('th')].map((th) => th.textContent);
    expect(headers).to.deep.equal([
      'Rank',
      'Page',
      'People',
      'Sections',
      'Authors',
      'Engaged time',
      'Sources',
      'Platforms',
      'Loyalty',
      'Type',
    ]);
    expect(cells('column')).to.deep.equal([
      'news',
      'Ada',
      '1.6m',
      'Search 60%, Social 30%',
      'Desktop 70%, Mobile 25%',
      'New 50%, Returning 30%, Loyal 20%',
      'Article',
    ]);
    el.columns = 'platform loyalty';
    await el.updateComplete;
    expect(cells('column')).to.deep.equal(['Desktop 70%, Mobile 25%', 'New 50%, Returning 30%, Loyal 20%']);
    await expect(el).to.be.accessible();
  });

  it('leaves out columns the data does not have', async () => {
    const { el } = await topPages(toppages(page('/a', 5)), { columns: 'sections platform loyalty type' });
    expect([...el.shadowRoot!.querySelectorAll('th')].map((th) => th.textContent)).to.deep.equal([
      'Rank',
      'Page',
      'People',
      'Sections',
    ]);
  });

  it('articles-only asks for more pages with types=1, hides landing pages and keeps the row count', async () => {
    const pages = Array.from({ length: 12 }, (_, index) =>
      page(`/p${index}`, 100 - index, { type: index % 3 === 0 ? 'LandingPage' : 'Article' }),
    );
    const { server, rows, cells, el } = await topPages(toppages(...pages), { 'articles-only': '', max: '5' });
    const polled = new URL(server.requests[0]!.url);
    expect(polled.searchParams.get('types')).to.equal('1');
    expect(polled.searchParams.get('limit')).to.equal('15');
    expect(rows()).to.have.length(5);
    expect(cells('title')).to.deep.equal(['Story /p1', 'Story /p2', 'Story /p4', 'Story /p5', 'Story /p7']);
    expect(text(el)).to.contain('Top articles now');
  });

  it('articles-only fills a limit far above 33 from the 100 rows the cache allows', async () => {
    // Thirty landing pages among the top 100: the 60 articles asked for are all there.
    const pages = Array.from({ length: 100 }, (_, index) =>
      page(`/p${index}`, 1000 - index, { type: index % 10 < 3 ? 'Landing Page' : 'Article' }),
    );
    const { server, rows } = await topPages(
      toppages(...pages),
      { 'articles-only': '' },
      '/live/toppages/v3/?host=example.com&limit=60',
    );
    const polled = new URL(server.requests[0]!.url);
    expect(polled.searchParams.get('types')).to.equal('1');
    expect(polled.searchParams.get('limit')).to.equal('100');
    expect(rows()).to.have.length(60);
  });

  it('max limits the rows shown', async () => {
    const { rows, el } = await topPages(tenPages(), { max: '3' });
    expect(rows()).to.have.length(3);
    el.max = 0;
    await el.updateComplete;
    expect(rows()).to.have.length(10);
  });

  it('strip-title removes a given suffix, or any site name after a final separator when empty', async () => {
    const body = toppages(
      page('/a', 3, { title: 'Budget vote | Daily News' }),
      page('/b', 2, { title: 'Storm – live updates - Daily News' }),
      page('/c', 1, { title: ' | Daily News' }),
    );
    const { el, cells } = await topPages(body, { 'strip-title': ' | Daily News' });
    expect(cells('title')).to.deep.equal([
      'Budget vote',
      'Storm – live updates - Daily News',
      ' | Daily News'.trim(),
    ]);
    el.stripTitle = '';
    await el.updateComplete;
    expect(cells('title')).to.deep.equal(['Budget vote', 'Storm – live updates', '| Daily News']);
  });
  describe('custom metrics, recirculation and filters', () => {
    const METRICS_SRC = '/live/toppages/v3/?host=example.com&limit=10&metrics=_pw,_rv,_cmp,video_state';

    it('shows each metric asked for in src as a column, by type, in the order asked', async () => {
      const metrics = {
        _cmp: {
          visitors: 40,
          unique: 4,
          top: [
            { value: 'spring-sale', visitors: 20 },
            { value: 'newsletter', visitors: 12 },
            { value: 'podcast', visitors: 5 },
            { value: 'partner', visitors: 3 },
          ],
        },
        _pw: [30, 0, 8, 2],
        _rv: { count: 40, sum: 94.5, avg: 2.3625, min: 0.5, max: 4 },
        video_state: { playing: 3, paused: 1, ended: 0 },
      };
      const { el, cells } = await topPages(
        toppages(page('/a', 50, { metrics })),
        {
          'metric-names': '{"_pw": "Paywall", "_rv": "Reader value"}',
          'metric-labels': '{"_pw": ["free", "metered", "registration"]}',
        },
        METRICS_SRC,
      );
      const headers = [...el.shadowRoot!.querySelectorAll('th')].map((th) => th.textContent);
      expect(headers).to.deep.equal([
        'Rank',
        'Page',
        'People',
        'Paywall',
        'Reader value',
        '_cmp',
        'video_state',
      ]);
      expect(cells('metric')).to.deep.equal([
        'free 30, registration 8, #3 2',
        'avg 2.36, sum 94.5',
        'spring-sale 20, newsletter 12, podcast 5',
        'playing 3, paused 1',
      ]);
      expect(el.shadowRoot!.querySelectorAll('[part~=column]')).to.have.length(4);
      await expect(el).to.be.accessible();
    });

    it('shows "—" (no data) in a metric cell for a page without it or a number metric nobody reported', async () => {
      const body = toppages(
        page('/a', 50, { metrics: { _rv: { count: 0, sum: 0, avg: null, min: null, max: null } } }),
        page('/b', 40, { metrics: {} }),
        page('/c', 30),
      );
      const { cells } = await topPages(body, {}, METRICS_SRC);
      expect(cells('metric')).to.deep.equal(['—no data', '—no data', '—no data']);
    });

    it('renders hostile metric values, labels and names as text', async () => {
      (window as unknown as { pwned?: boolean }).pwned = false;
      const hostile = '<img src=x onerror="window.pwned=true">';
      const metrics = {
        _cmp: { visitors: 5, unique: 1, top: [{ value: hostile, visitors: 5 }] },
        _pw: [4],
        video_state: { [hostile]: 2 },
      };
      const { el, cells } = await topPages(
        toppages(page('/a', 50, { metrics })),
        {
          'metric-names': JSON.stringify({ _cmp: '<b>Campaign</b>' }),
          'metric-labels': JSON.stringify({ _pw: ['<script>window.pwned=true</script>'] }),
        },
        METRICS_SRC,
      );
      expect(el.shadowRoot!.querySelectorAll('img, script, b')).to.have.length(0);
      expect(cells('metric')).to.deep.equal([
        '<script>window.pwned=true</script> 4',
        `${hostile} 5`,
        `${hostile} 2`,
      ]);
      expect([...el.shadowRoot!.querySelectorAll('th')].map((th) => th.textContent)).to.include(
        '<b>Campaign</b>',
      );
      expect((window as unknown as { pwned?: boolean }).pwned).to.equal(false);
    });

    it('ignores metric-names and metric-labels that are not the documented JSON', async () => {
      const metrics = { _pw: [1, 2] };
      const { el, cells } = await topPages(
        toppages(page('/a', 50, { metrics })),
        { 'metric-names': 'not json', 'metric-labels': '{"_pw": "free"}' },
        METRICS_SRC,
      );
      expect([...el.shadowRoot!.querySelectorAll('th')].map((th) => th.textContent)).to.include('_pw');
      expect(cells('metric')).to.deep.equal(['#0 1, #1 2']);
    });

    it('links where readers go next (now_on=1) when asked for the now-on column, http(s) only', async () => {
      const stats = {
        people: 50,
        article: 50,
        now_on: [
          { path: 'example.com/next', visitors: 6 },
          { path: 'javascript:alert(1)', visitors: 4 },
          { path: '/third', visitors: 2 },
          { path: '/fourth', visitors: 1 },
        ],
      };
      const { el, cells, server } = await topPages(
        toppages(page('/a', 50, { stats })),
        { columns: 'now-on' },
        '/live/toppages/v3/?host=example.com&now_on=1',
      );
      expect(new URL(server.requests[0]!.url).searchParams.get('now_on')).to.equal('1');
      expect([...el.shadowRoot!.querySelectorAll('th')].map((th) => th.textContent)).to.include('Read next');
      expect(cells('column')).to.deep.equal(['/next 6, javascript:alert(1) 4, /third 2']);
      const links = [...el.shadowRoot!.querySelectorAll('td.detail a')].map((a) => a.getAttribute('href'));
      expect(links).to.deep.equal(['https://example.com/next', 'https://example.com/third']);
      await expect(el).to.be.accessible();
    });

    it('names each page\'s top referrers with their visitors and counts its referrers (columns="referrers")', async () => {
      const referred = (toprefs: { domain: string; visitors: number }[], num_refs: number) => ({
        people: 50,
        article: 50,
        toprefs,
        num_refs,
      });
      const body = toppages(
        page('/a', 50, {
          stats: referred(
            [
              { domain: 'www.google.com', visitors: 12 },
              { domain: 't.co', visitors: 5 },
              { domain: 'example.org', visitors: 2.5 },
              { domain: 'bing.com', visitors: 1 },
            ],
            31,
          ),
        }),
        page('/b', 40, { stats: referred([{ domain: 'news.google.com', visitors: 3 }], 1) }),
        page('/c', 30, { stats: referred([], 0) }),
      );
      const { el, cells } = await topPages(body, { columns: 'referrers' });
      expect([...el.shadowRoot!.querySelectorAll('th')].map((th) => th.textContent)).to.include('Referrers');
      expect(cells('column')).to.deep.equal([
        '31 referrers: Google 12, X (Twitter) 5, example.org 2.5',
        '1 referrer: Google News 3',
        '0 referrers',
      ]);
      await expect(el).to.be.accessible();
    });

    it('renders hostile referrer domains as text', async () => {
      (window as unknown as { pwned?: boolean }).pwned = false;
      const hostile = '<img src=x onerror="window.pwned=true">';
      const stats = {
        people: 9,
        article: 9,
        toprefs: [
          { domain: hostile, visitors: 4 },
          { domain: 'javascript:alert(1)', visitors: 2 },
        ],
        num_refs: 2,
      };
      const { el, cells } = await topPages(toppages(page('/a', 9, { stats })), { columns: 'referrers' });
      expect(el.shadowRoot!.querySelectorAll('td.detail img, td.detail a')).to.have.length(0);
      expect(cells('column')).to.deep.equal([`2 referrers: ${hostile} 4, javascript:alert(1) 2`]);
      expect((window as unknown as { pwned?: boolean }).pwned).to.equal(false);
    });

    it('leaves the referrers column out when the data has no referrer counts', async () => {
      const { el } = await topPages(tenPages(), { columns: 'referrers' });
      expect([...el.shadowRoot!.querySelectorAll('th')].map((th) => th.textContent)).to.not.include(
        'Referrers',
      );
    });

    it('passes several sections, several authors and exclude_people on to the service, also with articles-only', async () => {
      const src =
        '/live/toppages/v3/?host=example.com&section=politics,world%20news&author=Ada,Grace%20Hopper&exclude_people=5&limit=4';
      const { server } = await topPages(tenPages(), { 'articles-only': '' }, src);
      const polled = new URL(server.requests[0]!.url).searchParams;
      expect(polled.get('section')).to.equal('politics,world news');
      expect(polled.get('author')).to.equal('Ada,Grace Hopper');
      expect(polled.get('exclude_people')).to.equal('5');
      expect(polled.get('limit')).to.equal('12');
    });
  });
});
