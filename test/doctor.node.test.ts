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
import { listen } from '../src/runtime/node-http.ts';
import { createSimulator, createUpstreamHandler, DEMO_HOSTS } from '../src/simulator/index.ts';
import type { RouteReport } from '../src/server/doctor/doctor.ts';

const KEY = 'doctor-test-key-7f3a9c';
const HOST = DEMO_HOSTS[0]!;

async function doctor(upstream: string, args: string[] = []) {
  let out = '';
  let err = '';
  const code = await doctorCommand(
    args,
    { PULSE_UPSTREAM: upstream, PULSE_API_KEY: KEY, PULSE_HOSTS: `${HOST},news.example.org` },
    { out: (text) => (out += text), err: (text) => (err += text) },
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
