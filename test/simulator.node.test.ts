/**
 * The seeded model behind the simulated upstream, exercised through its Web handler in-process
 * (no sockets; the HTTP behaviour is in simulator-http.node.test.ts): every response schema
 * accepts every parameter combination, the numbers are coherent, deterministic per seed and
 * stable within a 3-second step.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  SORT_BY,
  SUMMARY_KEYS,
  type FullHistogram,
  type PageStats,
  type QuickstatsStats,
  type RouteName,
  type SortBy,
} from '../src/api/index.ts';
import {
  createSimulator,
  DEMO_HOSTS,
  RAW_DATA_DEFAULT_LIMIT,
  STEP_MS,
  type Sent,
} from '../src/simulator/index.ts';
import { simulatedUpstream } from './helpers/simulated-upstream.node.ts';

/** A Tuesday afternoon in UTC, on a step boundary. */
const T0 = Date.parse('2026-03-10T14:00:00Z');
const SOURCES = ['direct', 'links', 'search', 'social', 'internal', 'subscr'] as const;
const HOSTS = [...DEMO_HOSTS, `video@${DEMO_HOSTS[0]}`];

const upstream = (seed = 1, start = T0) => simulatedUpstream(seed, start);

/** Every subset of the toppages / quickstats flags as query strings. */
const FLAG_SETS = Array.from({ length: 16 }, (_, bits) =>
  ['now_on', 'all_platforms', 'loyalty', 'types']
    .map((flag, index) => `${flag}=${(bits >> index) & 1}`)
    .join('&'),
);

function assertHistogram(histogram: FullHistogram | undefined, where: string): void {
  assert.ok(histogram, `${where}: histogram missing`);
  assert.equal(histogram.hist.length, histogram.breaks.length + 1, `${where}: hist has breaks + 1 buckets`);
  assert.equal(
    histogram.num_values,
    histogram.hist.reduce((a, b) => a + b, 0),
    `${where}: num_values = sum(hist)`,
  );
  assert.ok(
    histogram.num_values === 0 ||
      (histogram.avg >= 0 &&
        Math.abs(histogram.avg * histogram.num_values - histogram.sum) <= histogram.num_values * 0.01 + 0.01),
    `${where}: avg × n ≈ sum`,
  );
}

const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

/** The parts that must add up to `people` in any stats object. */
function assertCoherent(stats: Sent<PageStats> | Sent<QuickstatsStats>, where: string): void {
  const people = stats.people;
  assert.equal(
    sum(SOURCES.map((source) => stats[source] ?? 0)),
    people,
    `${where}: sources add up to people`,
  );
  assert.equal(
    (stats.read ?? 0) + (stats.write ?? 0) + (stats.idle ?? 0),
    people,
    `${where}: read + write + idle = people`,
  );
  if (stats.platform) {
    assert.deepEqual(Object.keys(stats.platform), ['a', 'e', 'd', 'g', 'f', 'i', 'm', 'r', 't']);
    assert.equal(sum(Object.values(stats.platform)), people, `${where}: platforms add up to people`);
    for (const [letter, engaged] of Object.entries(stats.platform_engaged ?? {}))
      assert.ok(engaged <= stats.platform[letter]!, `${where}: engaged ≤ platform ${letter}`);
  }
  if (stats.loyalty) {
    assert.equal(
      stats.loyalty.new + stats.loyalty.returning + stats.loyalty.loyal,
      people,
      `${where}: loyalty adds up to people`,
    );
    assert.equal(stats.loyalty.new, stats.new);
  }
  for (const name of [
    'engaged_visit',
    'engaged_time',
    'writing_visit',
    'domload',
    'scroll',
    'visit',
  ] as const) {
    assertHistogram(stats[name], `${where} ${name}`);
    assert.equal(stats[name]!.num_values, people, `${where}: ${name} counts every person`);
  }
  assert.ok(
    (stats.recirc ?? 0) <= people && (stats.visits ?? 0) >= people,
    `${where}: recirc ≤ people ≤ visits`,
  );
  if (stats.now_on)
    assert.ok(
      sum(stats.now_on.map((entry) => entry.visitors)) <= (stats.recirc ?? 0),
      `${where}: now_on within recirc`,
    );
}

function sortValue(stats: Sent<PageStats>, sortBy: SortBy | undefined): number {
  if (sortBy === undefined) return stats.people;
  if (sortBy === 'engaged_time') return stats.engaged_time!.avg;
  if (sortBy === 'returning') return stats.people - stats.new!;
  return stats[sortBy]!;
}

describe('simulator: every response schema accepts every parameter combination', () => {
  it('toppages: all flag sets × all sort_by × metrics, on both sites and video@, over two steps', async () => {
    const sim = upstream();
    const metricsOptions = [
      '',
      '&metrics=_pw,_rv,_cmp,_sub,_rt,_ab,video_state',
      '&metrics=video_state,_unknown',
    ];
    const sorts = [undefined, ...SORT_BY];
    let round = 0;
    for (const step of [0, 1]) {
      sim.clock.now = T0 + step * STEP_MS;
      for (const host of HOSTS) {
        round++;
        for (const [flagIndex, flags] of FLAG_SETS.entries()) {
          for (const [sortIndex, sortBy] of sorts.entries()) {
            // Each (flags, sort_by, metrics) triple comes up twice over the six host × step rounds.
            const metrics = metricsOptions[(flagIndex + sortIndex + round) % metricsOptions.length]!;
            const query = `host=${host}&limit=8&${flags}${sortBy ? `&sort_by=${sortBy}` : ''}${metrics}`;
            const { pages } = await sim.get('toppages', query);
            assert.ok(pages.length > 0 && pages.length <= 8, query);
            const values = pages.map((page) => sortValue(page.stats, sortBy));
            values.forEach(
              (value, index) =>
                index === 0 ||
                assert.ok(values[index - 1]! >= value, `${query}: sorted by ${sortBy ?? 'people'}`),
            );
            const page = pages[0]!;
            assert.equal(page.stats.platform !== undefined, flags.includes('all_platforms=1'), query);
            assert.equal(page.stats.loyalty !== undefined, flags.includes('loyalty=1'), query);
            assert.equal(page.stats.now_on !== undefined, flags.includes('now_on=1'), query);
            assert.equal(page.type !== undefined, flags.includes('types=1'), query);
            assert.equal(page.metrics !== undefined, metrics !== '', query);
            if (page.type !== undefined) assert.ok(page.type === 'Article' || page.type === 'Landing Page');
          }
        }
      }
    }
  });

  it('quickstats: all flag sets × path forms × section, on both sites and video@', async () => {
    const sim = upstream();
    for (const host of HOSTS) {
      const top = (await sim.get('toppages', `host=${host}&limit=1`)).pages[0]!;
      const sitePath = top.path.slice(top.path.indexOf('/'));
      for (const flags of FLAG_SETS) {
        for (const filter of [
          '',
          `&path=${encodeURIComponent(sitePath)}`,
          `&path=${encodeURIComponent(top.path)}`,
          '&section=News,Tech',
        ]) {
          const { data } = await sim.get('quickstats', `host=${host}&${flags}${filter}`);
          assertCoherent(data.stats, `quickstats ${host} ${flags}${filter}`);
          assert.equal(data.type !== undefined, flags.includes('types=1') && filter.includes('path='));
        }
      }
    }
  });

  it('summary: each key alone and all keys together, with and without path', async () => {
    const sim = upstream();
    const { pages } = await sim.get('toppages', 'host=example.com&limit=1');
    for (const path of ['', `&path=${encodeURIComponent(pages[0]!.path)}`]) {
      for (const keys of [...SUMMARY_KEYS.map((key) => [key]), [...SUMMARY_KEYS]]) {
        const body = await sim.get('summary', `host=example.com&keys=${keys.join(',')}${path}`);
        assert.deepEqual(Object.keys(body).sort(), [...keys].sort());
        for (const [key, member] of Object.entries(body)) {
          if (member.type === 'numeric') {
            assert.deepEqual(
              Object.keys(member.data).sort(),
              [
                'lowerHinge',
                'max',
                'median',
                'min',
                'nzObservations',
                'observations',
                'sum',
                'sumOfSquares',
                'upperHinge',
              ],
              key,
            );
            const { min, max, median, lowerHinge, upperHinge, nzObservations, observations } =
              member.data as Record<string, number>;
            assert.ok(
              min! <= lowerHinge! &&
                lowerHinge! <= median! &&
                median! <= upperHinge! &&
                upperHinge! <= max! &&
                nzObservations! <= observations!,
              key,
            );
          } else {
            assert.equal(member.type, 'string', key);
            assert.ok(Object.keys(member.data).length <= 100, `${key}: categorical maps are capped`);
          }
        }
      }
    }
    const both = await sim.get('summary', 'host=example.com&keys=read,write,idle,new');
    const people = (await sim.get('quickstats', 'host=example.com')).data.stats.people;
    for (const key of ['read', 'write', 'idle'] as const) assert.equal(both[key]!.data.observations, people);
    assert.equal(sum(Object.values(both.new!.data)), people);
  });

  it('referrers: limit × path × by_type; every person has one referrer', async () => {
    const sim = upstream();
    const people = (await sim.get('quickstats', 'host=example.com')).data.stats.people;
    const flat = (await sim.get('referrers', 'host=example.com')).referrers as Record<string, number>;
    assert.equal(sum(Object.values(flat)), people);
    assert.ok('' in flat, 'dark social is the empty referrer');
    const byType = (await sim.get('referrers', 'host=example.com&by_type=1')).referrers as Record<
      string,
      Record<string, number>
    >;
    assert.deepEqual(Object.keys(byType), [...SOURCES]);
    assert.equal(sum(Object.values(byType).flatMap((names) => Object.values(names))), people);
    const { pages } = await sim.get('toppages', 'host=example.com&limit=1');
    for (const limit of ['', '&limit=1', '&limit=7', '&limit=100']) {
      for (const path of ['', `&path=${encodeURIComponent(pages[0]!.path)}`]) {
        for (const type of ['', '&by_type=0', '&by_type=1']) {
          const { referrers } = await sim.get('referrers', `host=example.com${limit}${path}${type}`);
          const entries =
            type === '&by_type=1'
              ? Object.values(referrers).flatMap((names) => Object.entries(names as Record<string, number>))
              : Object.entries(referrers);
          if (limit) assert.ok(entries.length <= Number(limit.slice(7)), `${limit}${path}${type}`);
          if (path)
            assert.equal(sum(entries.map(([, count]) => count as number)) <= pages[0]!.stats.people, true);
        }
      }
    }
  });

  it('top_geo: each segment within the total, limit per segment', async () => {
    const sim = upstream();
    for (const host of HOSTS) {
      for (const limit of ['', '&limit=1', '&limit=3', '&limit=100']) {
        const { geo } = await sim.get('top_geo', `host=${host}${limit}`);
        for (const segment of ['regions', 'countries', 'cities', 'metro_codes'] as const) {
          const counts = Object.values(geo[segment]);
          assert.ok(sum(counts) <= geo.total, `${host} ${segment} within total`);
          if (limit) assert.ok(counts.length <= Number(limit.slice(7)));
        }
        assert.ok(Object.keys(geo.regions).every((region) => /^[A-Z]{2}-[A-Z0-9]+$/.test(region)));
        assert.ok(Object.keys(geo.metro_codes).every((code) => /^\d+$/.test(code)));
        if (!limit) assert.equal(sum(Object.values(geo.countries)), geo.total);
      }
    }
  });

  it('raw data: status × tz × limit, ordered by creation, inside the range in that zone', async () => {
    const sim = upstream();
    for (const tz of ['UTC', 'America/Los_Angeles', 'Asia/Kolkata']) {
      for (const status of ['', '&status=all', '&status=active', '&status=archived']) {
        for (const limit of ['', '&limit=3']) {
          const query = `host=example.com&start=2026-03-01&end=2026-03-10&tz=${tz}${status}${limit}`;
          const { status: envelope, data } = await sim.get('raw_data', query);
          assert.equal(envelope, 'success');
          assert.ok(data.length > 0, query);
          if (limit) assert.equal(data.length, 3);
          if (status === '&status=active' || status === '&status=archived')
            assert.ok(
              data.every((row) => row.status === status.slice(8)),
              query,
            );
          const created = data.map((row) => Date.parse(row.created_at!));
          created.forEach(
            (time, index) => index === 0 || assert.ok(created[index - 1]! <= time, `${query}: oldest first`),
          );
          const offsetOf = (time: number) =>
            Date.parse(`${new Date(time).toLocaleString('sv-SE', { timeZone: tz }).replace(' ', 'T')}Z`) -
            time;
          for (const time of created) {
            const localDay = new Date(time + offsetOf(time)).toISOString().slice(0, 10);
            assert.ok(localDay >= '2026-03-01' && localDay <= '2026-03-10', `${query}: ${localDay} in range`);
          }
          for (const row of data) {
            assert.ok(
              row.user_email?.includes('@') && typeof row.user_id === 'number',
              'personal fields are present upstream',
            );
            if (!limit)
              assert.equal(
                data.filter((other) => other.experiment_id === row.experiment_id).length,
                row.num_variants,
                'one row per variant',
              );
          }
        }
      }
    }
    const statuses = new Set(
      (
        await sim.get('raw_data', 'host=example.com&start=2026-01-01&end=2026-03-10&tz=UTC&limit=5000')
      ).data.map((row) => row.status),
    );
    assert.deepEqual([...statuses].sort(), ['active', 'archived', 'completed']);
    const wide = await sim.get('raw_data', 'host=example.com&start=2025-06-01&end=2026-03-10&tz=UTC');
    assert.equal(wide.data.length, RAW_DATA_DEFAULT_LIMIT);
    const future = await sim.get('raw_data', 'host=example.com&start=2026-03-11&end=2026-03-20&tz=UTC');
    assert.deepEqual(future.data, []);
  });
});

describe('simulator: coherent numbers', () => {
  it('every top page is coherent and quickstats covers every page', async () => {
    const sim = upstream();
    for (const host of HOSTS) {
      for (const step of [0, 1, 2]) {
        sim.clock.now = T0 + step * STEP_MS;
        const { pages } = await sim.get(
          'toppages',
          `host=${host}&limit=100&all_platforms=1&loyalty=1&now_on=1`,
        );
        const { stats } = (await sim.get('quickstats', `host=${host}&all_platforms=1&loyalty=1`)).data;
        assertCoherent(stats, `${host} quickstats`);
        for (const page of pages) {
          assertCoherent(page.stats, `${host} ${page.path}`);
          assert.ok(stats.people >= page.stats.people, 'quickstats people ≥ any page');
          assert.ok(
            page.path.startsWith(`${host.replace('video@', '')}/`),
            'path is host followed by the page path',
          );
        }
        assert.equal(stats.pages, pages.length < 100 ? pages.length : stats.pages);
        const { geo } = await sim.get('top_geo', `host=${host}`);
        assert.equal(geo.total, stats.people, 'geo total is the site audience');
      }
    }
  });

  it('sorts the whole list by each sort_by', async () => {
    const sim = upstream();
    for (const sortBy of [undefined, ...SORT_BY]) {
      const { pages } = await sim.get(
        'toppages',
        `host=example.com&limit=100${sortBy ? `&sort_by=${sortBy}` : ''}`,
      );
      assert.equal(pages.length, 100);
      const values = pages.map((page) => sortValue(page.stats, sortBy));
      assert.deepEqual(
        values,
        [...values].sort((a, b) => b - a),
        `sorted by ${sortBy ?? 'people'}`,
      );
    }
  });

  it('filters: section and author (any match), exclude_people, limit', async () => {
    const sim = upstream();
    const all = (await sim.get('toppages', 'host=example.com&limit=100')).pages;
    const author = all.find((page) => page.authors!.length > 0)!.authors![0]!;
    const bySection = (await sim.get('toppages', 'host=example.com&limit=100&section=Sport,Tech')).pages;
    assert.ok(
      bySection.length > 0 &&
        bySection.every((page) =>
          page.sections!.some((section) => section === 'Sport' || section === 'Tech'),
        ),
    );
    const byAuthor = (
      await sim.get('toppages', `host=example.com&limit=100&author=${encodeURIComponent(author)},Nobody`)
    ).pages;
    assert.ok(byAuthor.length > 0 && byAuthor.every((page) => page.authors!.includes(author)));
    const busy = (
      await sim.get('toppages', 'host=example.com&limit=100&exclude_people=5&sort_by=engaged_time')
    ).pages;
    assert.ok(busy.length > 0 && busy.every((page) => page.stats.people >= 5));
    assert.equal((await sim.get('toppages', 'host=example.com')).pages.length, 10, 'default limit 10');
    assert.equal((await sim.get('toppages', 'host=example.com&limit=3')).pages.length, 3);
  });

  it('custom metrics of the three types and video_state', async () => {
    const sim = upstream();
    const { pages } = await sim.get(
      'toppages',
      'host=example.com&limit=50&metrics=_pw,_rv,_cmp,video_state,_nope',
    );
    for (const page of pages) {
      const metrics = page.metrics!;
      assert.deepEqual(
        Object.keys(metrics).sort(),
        ['_cmp', '_pw', '_rv', 'video_state'],
        'undeclared keys are left out',
      );
      const enumCounts = metrics._pw as number[];
      assert.ok(Array.isArray(enumCounts) && sum(enumCounts) <= page.stats.people);
      const numeric = metrics._rv as Record<string, number | null>;
      assert.ok(numeric.count === 0 || (numeric.min! <= numeric.avg! && numeric.avg! <= numeric.max!));
      const text = metrics._cmp as {
        visitors: number;
        unique: number;
        top: { value: string; visitors: number }[];
      };
      assert.ok(
        text.top.length <= 5 &&
          text.unique >= text.top.length &&
          sum(text.top.map((entry) => entry.visitors)) <= text.visitors,
      );
      assert.ok(sum(Object.values(metrics.video_state as Record<string, number>)) <= page.stats.people);
    }
    const video = (await sim.get('toppages', 'host=video@example.com&limit=50&metrics=video_state')).pages;
    for (const page of video)
      assert.equal(
        sum(Object.values(page.metrics!.video_state as Record<string, number>)),
        page.stats.people,
        'video@ counts viewers',
      );
    const other = (await sim.get('toppages', 'host=news.example.org&limit=1&metrics=_pw,_sub')).pages[0]!;
    assert.deepEqual(Object.keys(other.metrics!), ['_sub'], 'metrics are declared per site');
  });

  it('includes hostile and right-to-left titles so widgets escape them', () => {
    const simulator = createSimulator();
    const titles: string[] = [];
    for (let step = 0; step < 2000 && !titles.some((title) => title.includes('onerror')); step += 40) {
      const response = simulator.answer(
        'summary',
        { host: 'example.com', keys: ['title'] },
        T0 + (step * 3600_000) / 10,
      );
      titles.push(...Object.keys(response.title!.data));
    }
    assert.ok(titles.some((title) => title.includes('<img src=x onerror=alert(1)>')));
    assert.ok(titles.some((title) => /[\u0590-\u06FF]/.test(title)));
    assert.ok(titles.some((title) => / \| Example Daily$/.test(title)));
  });
});

describe('simulator: time and seeds', () => {
  const queries: [RouteName, string][] = [
    [
      'toppages',
      'host=example.com&limit=20&all_platforms=1&loyalty=1&types=1&now_on=1&metrics=_pw,_rv,_cmp,video_state',
    ],
    ['quickstats', 'host=news.example.org&all_platforms=1'],
    ['referrers', 'host=example.com&by_type=1'],
    ['top_geo', 'host=example.com'],
    ['summary', 'host=example.com&keys=title,time_spent,token'],
    ['raw_data', 'host=example.com&start=2026-03-01&end=2026-03-10&tz=UTC'],
  ];

  it('same seed and clock give the same bytes in two handlers; another seed differs', async () => {
    const a = upstream(7);
    const b = upstream(7);
    const c = upstream(8);
    for (const [route, query] of queries) {
      const body = await a.text(route, query);
      assert.equal(await b.text(route, query), body, `${route} is deterministic`);
      assert.notEqual(await c.text(route, query), body, `${route} depends on the seed`);
    }
  });

  it('identical within a 3 s step, different across steps', async () => {
    const sim = upstream(1, T0 + 1);
    for (const [route, query] of queries) {
      sim.clock.now = T0 + 1;
      const first = await sim.text(route, query);
      sim.clock.now = T0 + STEP_MS - 1;
      assert.equal(await sim.text(route, query), first, `${route} stable within the step`);
      if (route === 'raw_data') continue;
      sim.clock.now = T0 + STEP_MS;
      assert.notEqual(await sim.text(route, query), first, `${route} moves at the next step`);
    }
  });

  it('visitors follow a daily curve', () => {
    const simulator = createSimulator();
    const people = (hour: number) =>
      simulator.answer(
        'quickstats',
        { host: 'example.com' },
        Date.parse(`2026-03-10T${String(hour).padStart(2, '0')}:00:00Z`),
      ).data.stats.people;
    // example.com's audience is at UTC−5: 04:00 local is the trough, 20:30 local the peak.
    assert.ok(people(9) * 2 < people(1), `night ${people(9)} vs evening ${people(1)}`);
  });
});
