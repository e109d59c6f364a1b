import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalQuery,
  findRoute,
  pageUrl,
  parseQuery,
  routes,
  ROUTE_NAMES,
  type RouteName,
} from '../src/api/index.ts';
import { retryAfterMs } from '../src/api/retry-after.ts';

function parse(name: RouteName, query: string) {
  return parseQuery(name, new URLSearchParams(query));
}

function problem(name: RouteName, query: string) {
  const result = parse(name, query);
  assert.equal(result.success, false, `${name}?${query} should be refused`);
  return result.success ? undefined : result.problem;
}

describe('route table', () => {
  it('lists the six upstream paths with their versions', () => {
    assert.deepEqual(
      ROUTE_NAMES.map((name) => routes[name].path),
      [
        '/live/toppages/v3/',
        '/live/summary/v3/',
        '/live/referrers/v3/',
        '/live/top_geo/v1/',
        '/live/quickstats/v4/',
        '/mab/htapi/v1/experiments/raw_data/',
      ],
    );
  });

  it('finds routes with or without the trailing slash, and nothing else', () => {
    assert.equal(findRoute('/live/toppages/v3'), 'toppages');
    assert.equal(findRoute('/live/toppages/v3/'), 'toppages');
    assert.equal(findRoute('/live/toppages/v2/'), undefined);
    assert.equal(findRoute('/live/toppages/v3//'), undefined);
    assert.equal(findRoute('/live%2Ftoppages%2Fv3/'), undefined);
  });

  it('gives live routes 3 s and raw data 60 s', () => {
    assert.equal(routes.quickstats.ttlMs, 3000);
    assert.equal(routes.raw_data.ttlMs, 60_000);
  });
});

describe('parameter schemas', () => {
  it('fill the toppages default limit and canonicalise', () => {
    const result = parse('toppages', 'types=0&section= Sport,news,Sport&host=EXAMPLE.com&loyalty=1');
    assert.ok(result.success);
    assert.equal(canonicalQuery(result.params), 'host=example.com&limit=10&loyalty=1&section=Sport%2Cnews');
  });

  it('give the same key for equal queries written differently', () => {
    const a = parse('referrers', 'host=a.com&limit=5&by_type=0');
    const b = parse('referrers', 'limit=5&host=A.com');
    assert.ok(a.success && b.success);
    assert.equal(canonicalQuery(a.params), canonicalQuery(b.params));
  });

  const refusals: [RouteName, string, string][] = [
    ['toppages', 'limit=5', 'host'],
    ['toppages', 'host=a.com&limit=0', 'limit'],
    ['toppages', 'host=a.com&limit=101', 'limit'],
    ['toppages', 'host=a.com&limit=1e2', 'limit'],
    ['toppages', 'host=a.com&limit=5&limit=6', 'limit'],
    ['toppages', 'host=a.com&sort_by=random', 'sort_by'],
    ['toppages', 'host=a.com&loyalty=yes', 'loyalty'],
    ['toppages', 'host=a.com&metrics=views', 'metrics'],
    ['toppages', 'host=a.com&section=,', 'section'],
    ['toppages', 'host=a.com&author=a%00b', 'author'],
    ['toppages', 'host=a.com&exclude_people=-3', 'exclude_people'],
    ['toppages', 'host=a.com&jsonp=cb', 'jsonp'],
    ['toppages', 'host=a.com&apikey=k', 'apikey'],
    ['toppages', 'host=a.com&callback=cb', 'callback'],
    ['toppages', 'host=http://evil.com/', 'host'],
    ['toppages', 'host=a.com/x', 'host'],
    ['summary', 'host=a.com', 'keys'],
    ['summary', 'host=a.com&keys=title,nope', 'keys'],
    ['summary', 'host=a.com&keys=title&path=../x', 'path'],
    ['summary', 'host=a.com&keys=title&path=/a/%2e%2e/b', 'path'],
    ['summary', 'host=a.com&keys=title&path=//evil.com/x', 'path'],
    ['summary', 'host=a.com&keys=title&path=http://evil.com/x', 'path'],
    ['referrers', 'host=a.com&by_type=2', 'by_type'],
    ['top_geo', 'host=a.com&limit=99999999999', 'limit'],
    ['quickstats', 'host=a.com&path=/a b', 'path'],
    ['raw_data', 'host=a.com&start=2026-01-01&end=2026-01-31', 'tz'],
    ['raw_data', 'host=a.com&start=2026-1-1&end=2026-01-31&tz=UTC', 'start'],
    ['raw_data', 'host=a.com&start=2026-02-30&end=2026-03-01&tz=UTC', 'start'],
    ['raw_data', 'host=a.com&start=2026-02-01&end=2026-01-01&tz=UTC', 'end'],
    ['raw_data', 'host=a.com&start=2024-01-01&end=2026-01-01&tz=UTC', 'end'],
    ['raw_data', 'host=a.com&start=2026-01-01&end=2026-01-31&tz=Mars/Olympus', 'tz'],
    ['raw_data', 'host=a.com&start=2026-01-01&end=2026-01-31&tz=UTC&limit=+5', 'limit'],
    ['raw_data', 'host=a.com&start=2026-01-01&end=2026-01-31&tz=UTC&status=live', 'status'],
  ];
  for (const [name, query, param] of refusals) {
    it(`refuse ${name}?${query} naming ${param}`, () => {
      const found = problem(name, query);
      assert.equal(found?.param, param);
      assert.match(found!.message, new RegExp(`^${param} `));
    });
  }

  it('accept a full raw data query with an Olson zone', () => {
    const result = parse(
      'raw_data',
      'host=a.com&start=2026-01-01&end=2026-01-31&tz=America/Argentina/Buenos_Aires&limit=200&status=active',
    );
    assert.ok(result.success);
    assert.deepEqual(result.params, {
      host: 'a.com',
      start: '2026-01-01',
      end: '2026-01-31',
      tz: 'America/Argentina/Buenos_Aires',
      limit: 200,
      status: 'active',
    });
  });
});

describe('response schemas', () => {
  const histogram = { breaks: [1, 2], num_values: 3, median: 1, hist: [1, 1, 1], avg: 1.2, sum: 3.6 };

  it('keep unknown fields and accept null performance_score and float counts', () => {
    const body = {
      pages: [
        {
          title: 't',
          path: 'a.com/x',
          stats: { people: 2.5, performance_score: null, engaged_time: histogram, future: 1 },
          extra: true,
        },
      ],
    };
    const result = routes.toppages.response.safeParse(body);
    assert.ok(result.success);
    assert.equal((result.data.pages[0] as Record<string, unknown>).extra, true);
    assert.equal((result.data.pages[0]!.stats as Record<string, unknown>).future, 1);
  });

  it('refuse a body whose essential fields are missing or of another type', () => {
    assert.equal(routes.toppages.response.safeParse({ pages: { a: 1 } }).success, false);
    assert.equal(routes.top_geo.response.safeParse({ geo: 3 }).success, false);
    assert.equal(routes.quickstats.response.safeParse({ data: { metrics: {} } }).success, false);
    assert.equal(routes.summary.response.safeParse([]).success, false);
    assert.equal(routes.raw_data.response.safeParse({ status: 'success' }).success, false);
  });

  it('drop what is not essential when it has another type, and the entries that cannot be used', () => {
    const toppages = routes.toppages.response.safeParse({
      pages: [{ title: 1, path: '/x', stats: { people: '1', visits: 2 } }, { title: 'no path' }],
    });
    assert.ok(toppages.success);
    assert.deepEqual(JSON.parse(JSON.stringify(toppages.data)), {
      pages: [{ path: '/x', stats: { visits: 2 } }],
    });
    const summary = routes.summary.response.safeParse({
      title: { data: { a: 'b', c: 2 }, type: 'string' },
      broken: 3,
    });
    assert.ok(summary.success);
    assert.deepEqual(summary.data, { title: { data: { c: 2 }, type: 'string' } });
    assert.equal(routes.top_geo.response.safeParse({ geo: { countries: {} } }).success, true);
    assert.equal(routes.quickstats.response.safeParse({ data: { stats: { people: 1 } } }).success, true);
  });
});

describe('page links', () => {
  it('read the three path forms', () => {
    assert.equal(pageUrl('/news/a', 'example.com')?.href, 'https://example.com/news/a');
    assert.equal(pageUrl('example.com/news/a', 'other.com')?.href, 'https://example.com/news/a');
    assert.equal(pageUrl('http://example.com/news/a', 'x.com')?.href, 'http://example.com/news/a');
    assert.equal(
      pageUrl('/news/a', 'example.com', 'https://www.example.com')?.href,
      'https://www.example.com/news/a',
    );
  });

  it('never link anything but http(s)', () => {
    for (const path of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,x',
      '//evil.com/x',
      'evil.com@x/y',
      'vbscript:x',
    ]) {
      assert.equal(pageUrl(path, 'example.com'), undefined, path);
    }
  });
});

describe('Retry-After, read by the hub, the cache and the doctor', () => {
  const now = Date.parse('2026-11-29T04:00:00Z');
  const table: [value: string | null | undefined, ms: number | undefined][] = [
    ['20', 20_000],
    [' 3 ', 3_000],
    ['0', 0],
    ['Sun, 29 Nov 2026 04:00:30 GMT', 30_000],
    // A date already past (a clock behind the server's): retry now, not a negative wait.
    ['Sun, 29 Nov 2026 03:59:00 GMT', 0],
    // No advice, or none that can be read: the caller's own backoff decides.
    [null, undefined],
    [undefined, undefined],
    ['', undefined],
    ['soon', undefined],
    ['1e3', undefined],
  ];
  for (const [value, ms] of table)
    it(`${JSON.stringify(value)} is ${ms === undefined ? 'no advice' : `${ms} ms`}`, () => {
      assert.equal(retryAfterMs(value, now), ms);
    });
});
