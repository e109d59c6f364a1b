import { expect, fixture, waitUntil } from '@open-wc/testing';
import '../src/index.ts';
import '../src/locales/ar.ts';
import '../src/locales/de.ts';
import type { TrafficChart } from '../src/index.ts';
import { failOnLitWarnings, freshHub, reply, settle, START_TIME } from './helpers/browser-fakes.ts';
import { quickstats, URLS } from './helpers/browser-fixtures.ts';
import { describeCommonBehaviour, states } from './helpers/browser-states.ts';
import { historyAlongside, historyDay } from './helpers/history-fixtures.ts';
import type { HistoryResponse } from '../src/api/index.ts';

const words = (node: Element) => (node.textContent ?? '').replace(/\s+/g, ' ').trim();

/** A chart on `people` live figures and a history body the test can change. */
async function chart(
  history: HistoryResponse | (() => Response) = historyDay(),
  attributes: Record<string, string> = {},
) {
  const feed = { people: 1180 };
  const made = freshHub((request) => {
    if (!request.url.includes('/history/v1/')) {
      const body = quickstats(feed.people);
      body.data.stats.platform = { d: 400, m: 700 };
      return reply(made.clock, body);
    }
    return typeof history === 'function' ? history() : reply(made.clock, history);
  });
  const server = made.server;
  const el = document.createElement('traffic-chart') as TrafficChart;
  el.setAttribute('src', URLS.quickstats);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  await fixture(el);
  await settle();
  const part = (name: string) => el.shadowRoot!.querySelector(`[part~=${name}]`);
  await waitUntil(
    () => part('chart') || part('notice')?.textContent?.includes('cannot'),
    'the history loaded',
  );
  await el.updateComplete;
  const next = async (people: number) => {
    feed.people = people;
    await made.clock.toNextTick();
    await el.updateComplete;
  };
  return { el, clock: made.clock, server, part, next };
}

describe('<traffic-chart>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: 'traffic-chart',
    src: URLS.quickstats,
    ready: quickstats(1234),
    empty: quickstats(3),
    emptyAttributes: 'metric="subscr"',
    readyText: '1,234 people now',
    alongside: historyAlongside(),
  });

  it('says in one sentence how now compares with a typical day at this time, in the element’s locale', async () => {
    const { el, part } = await chart();
    expect(part('summary')!.textContent).to.equal(
      '1,180 people now, 18% above a typical Wednesday at 12:00 PM.',
    );
    await expect(el).to.be.accessible();
    const german = await chart(historyDay(), { lang: 'de' });
    expect(german.part('summary')!.textContent).to.match(
      /^Personen auf der Website jetzt: 1\.180, 18\s%\smehr als an einem typischen Mittwoch um 12:00\.$/,
    );
    expect([...german.part('axis')!.children].map((label) => label.textContent)).to.deep.equal([
      '1.600',
      '800',
      '0',
    ]);
  });

  it('speaks Arabic right to left, with plural forms, and stays accessible', async () => {
    const { el, part } = await chart(historyDay({ weeks: 2 }), { lang: 'ar' });
    const card = el.shadowRoot!.querySelector('[part=base]')!;
    expect(card.getAttribute('dir')).to.equal('rtl');
    expect(el.shadowRoot!.querySelector('[part=label]')!.textContent).to.equal('الموجودون على الموقع اليوم');
    const summary = part('summary')!.textContent!;
    expect(
      summary.startsWith(`الموجودون على الموقع الآن: ${new Intl.NumberFormat('ar').format(1180)}،`),
    ).to.equal(true);
    expect(summary).to.match(
      /، أعلى بنسبة .+ من يوم الأربعاء المعتاد في .+ \(المعتاد محسوب من سجل أسبوعين\)\.$/,
    );
    expect(words(part('table')!.querySelector('summary')!)).to.equal('عرض البيانات في جدول');
    await expect(el).to.be.accessible();
  });

  it('says when the band stands on fewer than four weeks, and when there is no typical day yet', async () => {
    const few = await chart(historyDay({ weeks: 2, median: 1180 }));
    expect(few.part('summary')!.textContent).to.equal(
      '1,180 people now, about the same as a typical Wednesday at 12:00 PM (typical from 2 weeks of history).',
    );
    const none = await chart(historyDay({ weeks: 0, median: null }));
    expect(none.part('summary')!.textContent).to.equal(
      '1,180 people now, no typical day recorded yet for this time.',
    );
    expect(none.part('band')!.getAttribute('d')).to.equal('');
  });

  it('draws today against the band, with gaps left as gaps and the live point at now', async () => {
    const { part } = await chart(
      historyDay({ value: (minute) => (minute >= 300 && minute < 360 ? null : 800) }),
    );
    const line = part('line')!.getAttribute('d')!;
    expect(line.match(/M/g)).to.have.length(2, 'the hour with no samples breaks the line');
    expect(part('now')!.getAttribute('d')).to.match(/^M720\.0 /);
    expect(part('band')!.getAttribute('d')).to.match(/Z$/);
    expect(getComputedStyle(part('band')!).fill).to.not.equal('none', 'the band is a filled area');
    const median = getComputedStyle(part('median')!);
    expect(median.strokeDasharray).to.not.equal(
      'none',
      'the median is dashed, not told apart by colour alone',
    );
    expect(words(part('legend')!)).to.equal(
      'Today Now Typical (median) Typical range (10th–90th percentile)',
    );
    const axis = [...part('chart')!.parentElement!.querySelectorAll('.x-axis span')].map(
      (span) => span.textContent,
    );
    expect(axis).to.deep.equal(['12 AM', '6 AM', '12 PM', '6 PM', '12 AM']);
  });

  it('draws no live point outside the plot just after midnight, before the new day is loaded', async () => {
    const yesterday = historyDay();
    yesterday.start -= 86_400_000;
    const { part } = await chart(yesterday);
    expect(part('now')!.getAttribute('d')).to.equal('');
    expect(part('line')!.getAttribute('d')).to.not.contain('1440');
  });

  it('moves the live point on the shared 3 s clock and loads history once a minute', async () => {
    const { server, part, next, clock } = await chart();
    expect(server.count('/history/v1/')).to.equal(1);
    const before = part('now')!.getAttribute('d');
    await next(1300);
    expect(part('now')!.getAttribute('d')).to.not.equal(before);
    expect(part('summary')!.textContent).to.contain('1,300 people now, 30% above');
    await next(1300);
    expect(server.count('/history/v1/')).to.equal(1, 'not on the 3 s clock');
    await clock.advance(60_000);
    await waitUntil(() => server.count('/history/v1/') === 2, 'the minute reload');
    expect(server.requests.filter((request) => request.url.includes('/history/v1/'))[0]!.url).to.contain(
      '/history/v1/?host=example.com&metric=people&range=today',
    );
  });

  it('offers the data as a table, hour by hour, accessibly', async () => {
    const { el, part } = await chart();
    const details = part('table') as HTMLDetailsElement;
    details.open = true;
    const rows = [...details.querySelectorAll('tbody tr')];
    expect(rows).to.have.length(24);
    expect(words(rows[0]!)).to.equal('12:00 AM 800 1,000 900 to 1,100');
    expect(words(rows[13]!)).to.equal(
      '1:00 PM 1,000 900 to 1,100',
      'hours still to come have no figure today',
    );
    expect(details.querySelector('caption')!.textContent).to.equal(
      'Today by hour against a typical Wednesday',
    );
    await expect(el).to.be.accessible();
  });

  it('keeps the live figure and explains when history cannot be loaded', async () => {
    const { el, part } = await chart(
      () =>
        new Response(
          JSON.stringify({
            error: { code: 'history_unavailable', message: 'History cannot be read right now' },
          }),
          { status: 503 },
        ),
    );
    expect(states(el)).to.include('ready');
    expect(part('summary')!.textContent).to.equal('1,180 people now.');
    expect(part('notice')!.textContent).to.contain(
      'The day so far cannot be shown: The data source is unavailable (HTTP 503).',
    );
    await expect(el).to.be.accessible();
  });

  it('names what another metric counts, in its label and its sentence', async () => {
    const { part, el } = await chart(historyDay(), { metric: 'search' });
    expect(el.shadowRoot!.querySelector('[part=label]')!.textContent).to.equal('People from search today');
    expect(part('summary')!.textContent).to.match(
      /^12 people from search now, 99% below a typical Wednesday/,
    );
  });

  it('charts the last 7 days with weekday labels and a table every 6 hours', async () => {
    const step = 300_000;
    const end = Math.floor(START_TIME / step) * step + step;
    const points = 2016;
    const week: HistoryResponse = {
      ...historyDay(),
      range: '7d',
      start: end - points * step,
      stepSeconds: 300,
      values: Array<number>(points).fill(900),
      typical: {
        weeks: 4,
        median: Array<number>(points).fill(1000),
        low: Array<number>(points).fill(900),
        high: Array<number>(points).fill(1100),
      },
    };
    const { el, server, part } = await chart(week, { range: '7d' });
    expect(server.requests.some((request) => request.url.includes('range=7d'))).to.equal(true);
    expect(el.shadowRoot!.querySelector('[part=label]')!.textContent).to.equal(
      'People on the site over the last 7 days',
    );
    expect(part('summary')!.textContent).to.equal(
      '1,180 people now, 18% above a typical Wednesday at 12:00 PM.',
    );
    const axis = [...el.shadowRoot!.querySelectorAll('.x-axis span')].map((span) => span.textContent);
    expect(axis).to.deep.equal(['Wed', 'Thu', 'Fri', 'Sat', 'Sun', 'Mon', 'Tue', 'Wed']);
    const rows = [...part('table')!.querySelectorAll('tbody tr')];
    expect(rows).to.have.length(28);
    // The row's time as this engine's Intl writes it (WebKit: "Wed, 12 PM").
    const firstRow = new Intl.DateTimeFormat('en', {
      timeZone: week.timeZone,
      weekday: 'short',
      hour: 'numeric',
    }).format(week.start);
    expect(words(rows[0]!)).to.equal(`${firstRow} 900 1,000 900 to 1,100`);
    await expect(el).to.be.accessible();
  });

  it('asks for platform figures when charting a platform', async () => {
    const { server } = await chart(historyDay(), { metric: 'platform_m' });
    expect(server.requests.some((request) => request.url.includes('all_platforms=1'))).to.equal(true);
    expect(server.requests.some((request) => request.url.includes('metric=platform_m'))).to.equal(true);
  });
});
