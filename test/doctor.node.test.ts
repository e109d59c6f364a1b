/**
 * `pulse-widgets doctor` against real local HTTP servers: the simulator, which matches the
 * contract, and a deliberately drifted upstream (the simulator's answers with fields renamed,
 * retyped, removed and added, one route refused, one body unusable). The report names each
 * difference with its JSON path, and never the key.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { findRoute, parseQuery } from '../src/api/index.ts';
import { doctorCommand } from '../src/server/doctor/command.ts';
import { LONGEST_WAIT_MS, notNowWaitMs } from '../src/server/doctor/doctor.ts';
import type { Clock } from '../src/runtime/clock.ts';
import { listen } from '../src/runtime/node-http.ts';
import { createSimulator, createUpstreamHandler, DEMO_HOSTS } from '../src/simulator/index.ts';
import type { RouteReport } from '../src/server/doctor/doctor.ts';
import { VirtualClock } from './helpers/virtual-clock.node.ts';

const KEY = 'doctor-test-key-7f3a9c';
const HOST = DEMO_HOSTS[0]!;

/**
 * `clock`, moved only by the doctor's own waits: they pass at once, and its timeout of an answer
 * cannot fire while a real socket answers, however slow the machine.
 */
const movedBySleeps = (clock: VirtualClock): Clock => ({
  now: clock.now,
  monotonic: clock.monotonic,
  setTimeout: clock.setTimeout,
  clearTimeout: clock.clearTimeout,
  timeout: clock.timeout,
  sleep: (ms) => clock.advance(ms),
});

async function doctor(upstream: string, args: string[] = [], clock?: VirtualClock) {
  let out = '';
  let err = '';
  const code = await doctorCommand(
    args,
    { PULSE_UPSTREAM: upstream, PULSE_API_KEY: KEY, PULSE_HOSTS: `${HOST},news.example.org` },
    { out: (text) => (out += text), err: (text) => (err += text) },
    clock && movedBySleeps(clock),
  );
  assert.ok(!out.includes(KEY) && !err.includes(KEY), 'the key is never printed');
  return { code, out, err };
}

// biome-ignore lint/suspicious/noExplicitAny: drift functions reach into bodies of every shape.
type Json = Record<string, any>;

/** The simulator's answer to the request, changed by `drift` (or replaced by the Response it returns). */
function driftedUpstream(drift: (route: string, body: Json) => Json | Response) {
  const simulator = createSimulator({ seed: 5 });
  const seen: Request[] = [];
  return listen(
    async (request) => {
      seen.push(request);
      const url = new URL(request.url);
      const route = findRoute(url.pathname)!;
      const parsed = parseQuery(route, url.searchParams);
      assert.ok(parsed.success, `${route}: ${parsed.success ? '' : parsed.problem.message}`);
      const changed = drift(
        route,
        JSON.parse(JSON.stringify(simulator.answer(route, parsed.params as never, Date.now()))) as Json,
      );
      if (changed instanceof Response) return changed;
      return Response.json(changed, {
        headers: { 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '150' },
      });
    },
    0,
    '127.0.0.1',
  ).then((server) => ({ server, seen }));
}

describe('pulse-widgets doctor', () => {
  test('against the simulator: every route answers and matches the contract', async () => {
    const server = await listen(createUpstreamHandler({ apiKey: KEY, seed: 3 }), 0, '127.0.0.1');
    after(() => server.close());
    const { code, out } = await doctor(server.url);
    assert.equal(code, 0, out);
    assert.match(out, /Routes: 6 match the contract, 0 differ but are usable, 0 unusable\./);
    assert.equal(out.match(/no difference from the contract/g)?.length, 6);
    assert.match(out, /x-ratelimit-remaining: \d+/);
    const json = JSON.parse((await doctor(server.url, ['--json', '--host', 'news.example.org'])).out) as {
      host: string;
      routes: RouteReport[];
    };
    assert.equal(json.host, 'news.example.org');
    assert.deepEqual(
      json.routes.map((route) => [route.route, route.status, route.outcome, route.differences.length]),
      [
        ['toppages', 200, 'ok', 0],
        ['summary', 200, 'ok', 0],
        ['referrers', 200, 'ok', 0],
        ['top_geo', 200, 'ok', 0],
        ['quickstats', 200, 'ok', 0],
        ['raw_data', 200, 'ok', 0],
      ],
    );
  });

  test('against a drifted upstream: each difference with its path, refusals and unusable routes said, exit 1', async () => {
    const { server, seen } = await driftedUpstream((route, body) => {
      switch (route) {
        case 'toppages':
          body.pages[0].stats.people = '12';
          body.pages[0].stats.engagement_score = 0.4;
          delete body.pages[1].path;
          for (const page of body.pages) page.stats.engaged_time = page.stats.engaged_time.avg;
          return body;
        case 'referrers':
          return Response.json(
            { error: 'maintenance' },
            {
              status: 500,
              headers: { 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '149', 'retry-after': '30' },
            },
          );
        case 'top_geo':
          return { location: body.geo };
        case 'quickstats':
          delete body.data.metrics;
          delete body.data.host_metadata;
          return body;
        default:
          return body;
      }
    });
    after(() => server.close());
    const { code, out } = await doctor(server.url, ['--json']);
    assert.equal(code, 1);
    assert.ok(
      seen.every((request) => request.headers.get('x-svc-ak') === KEY),
      'the key travels in its header',
    );
    const raw = new URL(seen.find((request) => request.url.includes('raw_data'))!.url).searchParams;
    assert.equal(raw.get('start'), raw.get('end'), 'raw data for one day');
    const routes = new Map(
      (JSON.parse(out) as { routes: RouteReport[] }).routes.map((report) => [report.route, report]),
    );

    const toppages = routes.get('toppages')!;
    assert.equal(toppages.outcome, 'ok');
    const seenIn = (report: RouteReport) =>
      report.differences.map(({ path, kind, expected, found, dropped }) => ({
        path,
        kind,
        expected,
        found,
        dropped,
      }));
    assert.deepEqual(
      seenIn(toppages).filter(
        (difference) => difference.path.startsWith('$.pages[0]') || difference.path.startsWith('$.pages[1]'),
      ),
      [
        {
          path: '$.pages[0].stats.people',
          kind: 'type',
          expected: 'number',
          found: 'string',
          dropped: '$.pages[0].stats.people',
        },
        {
          path: '$.pages[0].stats.engagement_score',
          kind: 'unknown',
          expected: undefined,
          found: 'number',
          dropped: undefined,
        },
        {
          path: '$.pages[1].path',
          kind: 'missing',
          expected: 'string',
          found: 'absent',
          dropped: '$.pages[1]',
        },
      ],
    );
    assert.equal(toppages.differences.length, 3, 'a histogram sent as a bare number is no difference');

    const referrers = routes.get('referrers')!;
    assert.deepEqual(
      [referrers.status, referrers.outcome, referrers.rateLimit],
      [500, 'status', { 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '149', 'retry-after': '30' }],
    );

    const geo = routes.get('top_geo')!;
    assert.equal(geo.outcome, 'invalid');
    assert.deepEqual(
      geo.problem && { path: geo.problem.path, kind: geo.problem.kind, expected: geo.problem.expected },
      { path: '$.geo', kind: 'missing', expected: 'object' },
    );

    const quickstats = routes.get('quickstats')!;
    assert.equal(quickstats.outcome, 'ok', 'quickstats v4 without metrics and host_metadata is usable');
    assert.deepEqual(
      seenIn(quickstats).map((difference) => `${difference.kind} ${difference.path}`),
      ['missing $.data.metrics', 'missing $.data.host_metadata'],
    );
    assert.deepEqual(
      ['summary', 'raw_data'].map((route) => routes.get(route as never)!.differences.length),
      [0, 0],
    );

    const text = (await doctor(server.url)).out;
    for (const line of [
      '  - other type at $.pages[0].stats.people: expected number, found string; field dropped',
      '  - unknown field $.pages[0].stats.engagement_score (number): kept and passed through',
      '  - essential field missing: $.pages[1].path (string); entry dropped: $.pages[1]',
      '  HTTP 500 in ',
      '  refused for: essential field missing: $.geo (object)',
      '  - optional field missing: $.data.metrics (object)',
      'Routes: 2 match the contract, 2 differ but are usable, 2 unusable.',
    ])
      assert.ok(text.includes(line), `the report says ${JSON.stringify(line)}:\n${text}`);
  });

  test('a "not now" (429 or 503 with a short Retry-After) is asked again once, when it said; both answers reported', async () => {
    const clock = new VirtualClock(Date.parse('2026-11-28T12:00:00Z'));
    const asked = new Map<string, number[]>();
    const { server } = await driftedUpstream((route, body) => {
      const times = asked.get(route) ?? [];
      asked.set(route, [...times, clock.now()]);
      // A cache endpoint whose cold fill missed its upstream timeout: 503 once, then the body.
      if (route === 'summary' && times.length === 0)
        return Response.json(
          { error: 'upstream_unavailable' },
          { status: 503, headers: { 'retry-after': '1' } },
        );
      // Still refusing when asked again: that is the finding.
      if (route === 'quickstats')
        return Response.json({ error: 'busy' }, { status: 429, headers: { 'retry-after': '2' } });
      // Longer than the doctor waits: reported as it came.
      if (route === 'raw_data')
        return Response.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '60' } });
      return body;
    });
    after(() => server.close());
    const { code, out } = await doctor(server.url, ['--json'], clock);
    assert.equal(code, 1, 'quickstats and raw_data stay unusable');
    assert.deepEqual(
      [...asked].map(([route, times]) => [route, times.length]),
      [
        ['toppages', 1],
        ['summary', 2],
        ['referrers', 1],
        ['top_geo', 1],
        ['quickstats', 2],
        ['raw_data', 1],
      ],
    );
    for (const [route, seconds] of [
      ['summary', 1],
      ['quickstats', 2],
    ] as const) {
      const [first, second] = asked.get(route)!;
      assert.equal(second! - first!, seconds * 1000, `${route} asked again when it said`);
    }
    const routes = new Map(
      (JSON.parse(out) as { routes: RouteReport[] }).routes.map((report) => [report.route, report]),
    );
    const summary = routes.get('summary')!;
    assert.deepEqual(
      [summary.status, summary.outcome, summary.notNow?.status, summary.notNow?.waitedMs],
      [200, 'ok', 503, 1000],
    );
    const quickstats = routes.get('quickstats')!;
    assert.deepEqual(
      [quickstats.status, quickstats.outcome, quickstats.notNow?.status],
      [429, 'status', 429],
    );
    assert.deepEqual([routes.get('raw_data')!.status, routes.get('raw_data')!.notNow], [503, undefined]);

    asked.clear();
    const text = (await doctor(server.url, [], clock)).out;
    for (const pattern of [
      /summary {2}GET .*\n {2}HTTP 503 in \d+ ms; retry-after: 1; asked again 1000 ms later, as it said\n {2}HTTP 200 in \d+ ms; x-ratelimit-limit: 200, x-ratelimit-remaining: 150\n {2}usable\n/,
      /quickstats {2}GET .*\n {2}HTTP 429 in \d+ ms; retry-after: 2; asked again 2000 ms later, as it said\n {2}HTTP 429 in \d+ ms; retry-after: 2\n {2}UNUSABLE: the service did not answer 200\n/,
      /raw_data {2}GET .*\n {2}HTTP 503 in \d+ ms; retry-after: 60\n {2}UNUSABLE/,
      /Routes: 4 match the contract, 0 differ but are usable, 2 unusable\./,
    ])
      assert.match(text, pattern);
  });

  test('notNowWaitMs: only a 429 or 503 whose Retry-After the doctor can wait out', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const rows: [number | undefined, string | undefined, number | undefined][] = [
      [503, '1', 1000],
      [429, '10', LONGEST_WAIT_MS],
      [429, '11', undefined],
      [503, ' 0 ', 0],
      [503, 'Sat, 28 Nov 2026 12:00:05 GMT', 5000],
      [503, 'Sat, 28 Nov 2026 11:59:00 GMT', 0],
      [503, 'soon', undefined],
      [503, undefined, undefined],
      [500, '1', undefined],
      [502, '1', undefined],
      [200, '1', undefined],
      [undefined, '1', undefined],
    ];
    for (const [status, retryAfter, expected] of rows)
      assert.equal(
        notNowWaitMs(
          { status, rateLimit: retryAfter === undefined ? {} : { 'retry-after': retryAfter } },
          now,
        ),
        expected,
        `${status} with Retry-After ${JSON.stringify(retryAfter)}`,
      );
  });

  test('says what is missing from the environment, and never asks for the key as an argument', async () => {
    let err = '';
    const code = await doctorCommand(
      [],
      { PULSE_UPSTREAM: 'https://api.example.com', PULSE_HOSTS: HOST },
      { out: () => {}, err: (text) => (err += text) },
    );
    assert.equal(code, 2);
    assert.match(err, /no key: set PULSE_API_KEY/);
  });
});
