/**
 * The cache endpoint in front of a service whose bodies differ from the contract: an unusable
 * body is a 502 `upstream_invalid` in honest words (the last good copy served, marked stale, as
 * in an outage), values that cannot be used are dropped from a body that is still served, each
 * shape of difference is logged once with its JSON path and counted in /metrics. Then a seeded
 * property: over 1,000 mutations of the simulator's bodies, the cache answers 200 unless an
 * essential field is broken, and then the honest 502.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { readDifferences, routes, ROUTE_NAMES, type Difference, type RouteName } from '../src/api/index.ts';
import { ContractDrift } from '../src/server/contract-drift.ts';
import { RESPONSE_SHAPES } from '../src/api/response-shapes.ts';
import { jsonResponse, validResponse } from './helpers/fake-upstream.node.ts';
import { startHarness, until, upstreamLogLines, type Harness } from './helpers/cache-harness.node.ts';
import { VirtualClock } from './helpers/virtual-clock.node.ts';
import { mutate, seededRandom } from './helpers/mutations.ts';
import { SIMULATED_QUERIES, simulatorBody } from './helpers/simulator-bodies.ts';

const QUICKSTATS = '/live/quickstats/v4/?host=example.com';
const TOPPAGES = '/live/toppages/v3/?host=example.com';
const TTL = 1000;
/** Past the raw data TTL, the stale window and the longest backoff: every request fills again. */
const FORGET_MS = 120_000;

async function harness() {
  const clock = new VirtualClock();
  const h = await startHarness({
    clock,
    liveTtlMs: TTL,
    upstreamTimeoutMs: 500,
    staleWindowMs: 10_000,
    backoffBaseMs: 1000,
    backoffMaxMs: 2000,
    hosts: ['example.com', 'news.example.org'],
    fold: false,
  });
  after(() => h.close());
  return { h, clock };
}

function driftLines(h: Harness): Record<string, unknown>[] {
  return h.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => String(line.msg).startsWith('upstream body'));
}

async function metricsText(h: Harness): Promise<string> {
  return (await h.get('/metrics')).text;
}

describe('an answer that cannot be read', () => {
  test('with nothing cached: 502 upstream_invalid saying the answer could not be read, logged once with its path, counted', async () => {
    const { h, clock } = await harness();
    h.upstream.respond = () => jsonResponse({ data: { stats: 'many' } });
    for (let fill = 1; fill <= 2; fill++) {
      const reply = await h.get(QUICKSTATS);
      assert.equal(reply.status, 502);
      const { error } = reply.json() as { error: { code: string; message: string } };
      assert.equal(error.code, 'upstream_invalid');
      assert.match(error.message, /answer could not be read/);
      assert.doesNotMatch(error.message, /not answering/);
      assert.match(reply.cacheStatus, /detail=upstream-invalid/);
      assert.ok(reply.headers.get('retry-after'));
      await clock.advance(FORGET_MS);
    }
    assert.equal(h.upstream.calls.length, 2);
    assert.deepEqual(
      upstreamLogLines(h.logs).map((line) => line.outcome),
      ['invalid', 'invalid'],
    );
    const drift = driftLines(h);
    assert.equal(drift.length, 1, 'one line per route and shape change, not per fill');
    assert.deepEqual(
      { route: drift[0]!.route, path: drift[0]!.path, expected: drift[0]!.expected, found: drift[0]!.found },
      { route: 'quickstats', path: '$.data.stats', expected: 'object', found: 'string' },
    );
    assert.match(await metricsText(h), /pulse_upstream_invalid_bodies_total\{route="quickstats"\} 2/);
  });

  test('after a good fill: the last good copy is served, marked stale as in an outage', async () => {
    const { h, clock } = await harness();
    const good = await h.get(QUICKSTATS);
    h.upstream.respond = () => jsonResponse({ data: [] });
    await clock.advance(2 * TTL + 1);
    await h.get(QUICKSTATS);
    await until(() => upstreamLogLines(h.logs).length >= 2, 'the failed refill');
    const stale = await h.get(QUICKSTATS);
    assert.equal(stale.status, 200);
    assert.equal(stale.text, good.text);
    assert.match(stale.cacheStatus, /fwd=stale; detail=upstream-invalid/);
  });
});

describe('values that cannot be used', () => {
  test('are dropped from a body that is still served; counted; logged once per shape change', async () => {
    const { h, clock } = await harness();
    const pages = (extra: Record<string, unknown>) => ({
      pages: [
        { path: '/a', title: 'A', stats: { people: 3 } },
        { title: 'no path', stats: { people: 2 } },
        { path: '/c', stats: { people: 1, ...extra } },
      ],
    });
    h.upstream.respond = () => jsonResponse(pages({}));
    for (let fill = 0; fill < 2; fill++) {
      const reply = await h.get(TOPPAGES);
      assert.equal(reply.status, 200);
      assert.deepEqual(
        (reply.json() as { pages: { path: string }[] }).pages.map((page) => page.path),
        ['/a', '/c'],
      );
      await clock.advance(FORGET_MS);
    }
    h.upstream.respond = () => jsonResponse(pages({ visits: 'many' }));
    await h.get(TOPPAGES);
    await clock.advance(FORGET_MS);
    h.upstream.respond = validResponse;
    await h.get(TOPPAGES);
    const drift = driftLines(h);
    assert.deepEqual(
      drift.map((line) => line.msg),
      [
        'upstream body read with values dropped: optional fields of another type or unusable entries',
        'upstream body read with values dropped: optional fields of another type or unusable entries',
        'upstream body matches the contract again',
      ],
    );
    assert.deepEqual(
      (drift[0]!.differences as { path: string }[]).map((difference) => difference.path),
      ['$.pages[1].path'],
    );
    assert.deepEqual(
      (drift[1]!.differences as { pattern: string }[]).map((difference) => difference.pattern).sort(),
      ['$.pages[].path', '$.pages[].stats.visits'],
    );
    const metrics = await metricsText(h);
    assert.match(metrics, /pulse_upstream_dropped_total\{route="toppages",what="entry"\} 3/);
    assert.match(metrics, /pulse_upstream_dropped_total\{route="toppages",what="field"\} 1/);
  });
});

describe('the drift log', () => {
  const drop = (pattern: string): Difference => ({
    path: pattern.replace('[]', '[0]'),
    pattern,
    kind: 'type',
    expected: 'number',
    found: 'string',
    essential: false,
    dropped: pattern.replace('[]', '[0]'),
  });
  test('says each shape of difference once per route, whichever query shows it, and when the route is clean again', () => {
    const drift = new ContractDrift();
    const said = (query: string, dropped: Difference[]) =>
      drift.note('toppages', query, undefined, dropped)?.message.split(':')[0];
    assert.deepEqual(
      [
        said('limit=5', [drop('$.pages[].stats.people')]),
        said('limit=10', [drop('$.pages[].stats.people')]),
        said('limit=5', [drop('$.pages[].stats.people')]),
        said('limit=10', []),
        said('limit=5', [drop('$.pages[].stats.visits')]),
        said('limit=10', [drop('$.pages[].stats.people')]),
        said('limit=5', []),
        said('limit=10', []),
        said('limit=10', []),
      ],
      [
        'upstream body read with values dropped',
        undefined,
        undefined,
        undefined,
        'upstream body read with values dropped',
        'upstream body read with values dropped',
        undefined,
        'upstream body matches the contract again',
        undefined,
      ],
    );
    assert.equal(
      drift.note(
        'quickstats',
        'host=a',
        {
          path: '$.data',
          pattern: '$.data',
          kind: 'missing',
          expected: 'object',
          found: 'absent',
          essential: true,
        },
        [],
      )?.fields.path,
      '$.data',
    );
  });
});

/** What each route needs to show anything (docs/upstream-assumptions.md): only breaking these refuses a body. */
const ESSENTIAL: Readonly<Record<RouteName, readonly string[]>> = {
  toppages: ['$', '$.pages'],
  summary: ['$'],
  referrers: ['$', '$.referrers'],
  top_geo: ['$', '$.geo'],
  quickstats: ['$', '$.data', '$.data.stats'],
  raw_data: ['$', '$.data'],
};
const TRIALS_PER_ROUTE = 170;
const SEED = Number(process.env.PULSE_PROPERTY_SEED ?? 23);

describe(`seeded mutations of the simulator's bodies (seed ${SEED}, PULSE_PROPERTY_SEED to replay)`, () => {
  test(`${TRIALS_PER_ROUTE * ROUTE_NAMES.length} mutations: 200 unless an essential field is broken, then 502 upstream_invalid`, async () => {
    const { h, clock } = await harness();
    const next = seededRandom(SEED);
    const bodies = new Map(ROUTE_NAMES.map((route) => [route, simulatorBody(route)]));
    let current: unknown;
    h.upstream.respond = () => jsonResponse(current);
    const counts = { served: 0, refused: 0 };
    for (const route of ROUTE_NAMES) {
      const path = `${routes[route].path}?${SIMULATED_QUERIES[route]}`;
      for (let trial = 0; trial < TRIALS_PER_ROUTE; trial++) {
        const { body, description } = mutate(bodies.get(route), next);
        current = body;
        const where = `seed ${SEED}, ${route} trial ${trial}: ${description}`;
        // The Web handler in process: the upstream call is a real socket, the client's request need not be.
        const reply = await h.cache.handle(new Request(`${h.url}${path}`));
        const text = await reply.text();
        const reading = readDifferences(RESPONSE_SHAPES[route], body);
        if (reading.ok) {
          assert.equal(reply.status, 200, `${where}: ${text.slice(0, 200)}`);
          counts.served++;
        } else {
          assert.ok(
            ESSENTIAL[route].includes(reading.problem.pattern),
            `${where}: refused for ${reading.problem.pattern}, which is not essential`,
          );
          assert.equal(reply.status, 502, where);
          assert.equal(
            (JSON.parse(text) as { error: { code: string } }).error.code,
            'upstream_invalid',
            where,
          );
          counts.refused++;
        }
        await clock.advance(FORGET_MS);
      }
    }
    assert.ok(
      counts.refused > 0 && counts.served > counts.refused,
      `both outcomes exercised: ${JSON.stringify(counts)}`,
    );
  });
});
