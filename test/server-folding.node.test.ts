/**
 * Query folding, the refresh plan and fresh first paint, through the cache endpoint in front of
 * the real simulator's Web handler, answering in process. Cache and simulator share one
 * `VirtualClock` that each request moves until it is answered: the fold group's gathering, the
 * budget's slots, the first-paint wait and the upstream's timeout are all timers on it, so
 * "the simulator's answer for this step" is exact, "older than two intervals" is a clock move,
 * and a busy machine changes nothing.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { routes, type RouteName } from '../src/api/index.ts';
import { createCacheHandler, createLogger, type CacheHandler } from '../src/server/http/handler.ts';
import type { CacheOptions } from '../src/server/config/options.ts';
import { readSettings } from '../src/server/config/settings.ts';
import type { UpstreamTransport } from '../src/server/upstream.ts';
import { createUpstreamHandler } from '../src/simulator/index.ts';
import { DASHBOARD_QUERIES } from './helpers/dashboard-queries.node.ts';
import { encodeNow } from './simulation/upstream.ts';
import { UpstreamGate } from './helpers/upstream-gate.node.ts';
import { closeAll, startVirtualCluster } from './helpers/virtual-cache.node.ts';
import { moveUntil, moveUntilSettled, settle, VirtualClock } from './helpers/virtual-clock.node.ts';

const KEY = 'fold-test-key';

async function folding(options: Partial<CacheOptions> = {}) {
  const clock = new VirtualClock(Date.parse('2026-03-10T14:00:00Z'));
  const simulate = createUpstreamHandler({ apiKey: KEY, now: clock.now, rateLimitPerMinute: 1_000_000 });
  const calls: string[] = [];
  const gate = new UpstreamGate();
  let down = false;
  const upstreamTransport: UpstreamTransport = async (url, call) => {
    calls.push(`${url.pathname}${url.search}`);
    await gate.pass(call.signal);
    const response = down
      ? new Response('<h1>Bad gateway</h1>', { status: 502, headers: { 'content-type': 'text/html' } })
      : await simulate(new Request(url, { headers: call.headers }));
    return {
      statusCode: response.status,
      headers: Object.fromEntries(response.headers),
      body: { text: () => response.text(), dump: async () => response.body?.cancel() },
    };
  };
  const cache: CacheHandler = createCacheHandler({
    upstream: 'http://127.0.0.1:9',
    apiKey: KEY,
    hosts: ['example.com'],
    logger: createLogger('silent'),
    clock,
    upstreamTransport,
    encodeBody: encodeNow,
    ...options,
  });
  after(() => moveUntilSettled(clock, cache.close()));
  /** A request that has started; `clock` moves only while something awaits `answered`. */
  const request = async (path: string, headers: Record<string, string> = {}) => {
    const response = await cache.handle(new Request(`http://cache.test${path}`, { headers }));
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const answered = <T>(work: Promise<T>) => moveUntilSettled(clock, work);
  const get = (path: string, headers: Record<string, string> = {}) => answered(request(path, headers));
  const getAll = (paths: readonly string[]) => answered(Promise.all(paths.map((path) => request(path))));
  /** The simulator's own answer to a query at the clock's current step. */
  const direct = async (route: RouteName, query: string) => {
    const response = await simulate(
      new Request(`http://sim.test${routes[route].path}?${query}`, { headers: { 'x-svc-ak': KEY } }),
    );
    return response.text();
  };
  const hold = () => gate.hold();
  /** From now on the upstream answers 502. */
  const fail = () => {
    down = true;
  };
  return { clock, calls, request, answered, get, getAll, direct, hold, fail, cache };
}

const TOPPAGES = '/live/toppages/v3/';
const NARROW = `${TOPPAGES}?host=example.com&limit=5`;

type Reply = { status: number; headers: Headers; text: string };

/** NARROW folded with a wider query: its answer, derived from the wide fill. */
async function foldedCopy(f: Awaited<ReturnType<typeof folding>>): Promise<Reply> {
  const [narrow] = await f.getAll([NARROW, `${TOPPAGES}?host=example.com&limit=10&loyalty=1`]);
  return narrow!;
}

/**
 * No error while a copy exists: `copy`, answered stale, from a wide query of its group, with the
 * `detail` that says why the fill did not answer.
 */
function assertStaleCopy(reply: Reply, copy: Reply, detail: string): void {
  assert.equal(reply.status, 200);
  assert.equal(reply.text, copy.text);
  assert.match(
    reply.headers.get('cache-status')!,
    new RegExp(`^pulse-widgets; fwd=stale; detail=${detail}; key="`),
  );
}

describe('query folding through the cache', () => {
  test('three toppages queries opened together make one upstream call of their union, each answered exactly', async () => {
    const f = await folding();
    const queries = [
      'host=example.com&limit=5',
      'host=example.com&limit=10&loyalty=1',
      'host=example.com&limit=3&types=1&metrics=_rv',
    ];
    const replies = await f.getAll(queries.map((query) => `${TOPPAGES}?${query}`));
    assert.deepEqual(f.calls, [`${TOPPAGES}?host=example.com&limit=10&loyalty=1&metrics=_rv&types=1`]);
    for (const [index, reply] of replies.entries()) {
      assert.equal(reply.status, 200);
      assert.equal(reply.text, await f.direct('toppages', queries[index]!), queries[index]);
      assert.match(
        reply.headers.get('cache-status')!,
        /^pulse-widgets; fwd=miss; fwd-status=200; stored; detail=folded; key="\/live\/toppages\/v3\/\?host=example\.com&limit=10&loyalty=1&metrics=_rv&types=1"; ttl=\d+$/,
      );
    }
    assert.equal(
      new Set(replies.map((reply) => reply.headers.get('etag'))).size,
      3,
      'each derived body has its own ETag',
    );
    assert.equal(
      new Set(replies.map((reply) => reply.headers.get('last-modified'))).size,
      1,
      "Last-Modified is the wide fill's",
    );

    await f.clock.advance(1000);
    const again = await f.get(`${TOPPAGES}?${queries[0]}`, {
      'if-none-match': replies[0]!.headers.get('etag')!,
    });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('age'), '1');
    assert.match(again.headers.get('cache-status')!, /^pulse-widgets; hit; detail=folded; key="/);
    assert.equal(f.calls.length, 1);
  });

  test('filters are never derived: a section, an author or a sort order is its own fill', async () => {
    const f = await folding();
    await f.get(`${TOPPAGES}?host=example.com&limit=20`);
    for (const filter of ['section=News', 'author=Ann%20Lee', 'sort_by=search', 'exclude_people=2']) {
      const reply = await f.get(`${TOPPAGES}?host=example.com&limit=5&${filter}`);
      assert.equal(reply.status, 200);
      assert.doesNotMatch(reply.headers.get('cache-status')!, /folded/);
    }
    assert.equal(f.calls.length, 5);
  });

  test('summary keys, quickstats flags, referrers and top_geo limits fold; by_type does not', async () => {
    const f = await folding();
    const pairs: [RouteName, string[]][] = [
      ['summary', ['host=example.com&keys=new', 'host=example.com&keys=new,read,title']],
      ['quickstats', ['host=example.com', 'host=example.com&all_platforms=1&loyalty=1']],
      ['referrers', ['host=example.com&limit=3', 'host=example.com&limit=15']],
      ['top_geo', ['host=example.com&limit=2', 'host=example.com&limit=8']],
    ];
    for (const [route, queries] of pairs) {
      const replies = await f.getAll(queries.map((query) => `${routes[route].path}?${query}`));
      for (const [index, reply] of replies.entries())
        assert.equal(reply.text, await f.direct(route, queries[index]!), `${route}?${queries[index]}`);
    }
    assert.equal(f.calls.length, 4, f.calls.join('\n'));
    await f.get('/live/referrers/v3/?host=example.com&limit=3&by_type=1');
    assert.equal(f.calls.length, 5);
  });

  test('the wide query shrinks when the widest poller leaves, and stays one query while they all poll', async () => {
    const f = await folding();
    const narrow = `${TOPPAGES}?host=example.com&limit=5`;
    const wide = `${TOPPAGES}?host=example.com&limit=50&now_on=1`;
    await f.getAll([narrow, wide]);
    assert.deepEqual(f.calls, [`${TOPPAGES}?host=example.com&limit=50&now_on=1`]);
    // Only the narrow one polls on; two intervals later the wide one is no longer filled.
    for (let tick = 0; tick < 4; tick += 1) {
      await f.clock.advance(3000);
      assert.equal((await f.get(narrow)).status, 200);
    }
    await moveUntil(
      f.clock,
      () => f.calls.at(-1) === `${TOPPAGES}?host=example.com&limit=5`,
      'a fill of the narrow query alone',
    );
    const alone = await f.get(narrow);
    assert.doesNotMatch(
      alone.headers.get('cache-status')!,
      /folded/,
      'the narrow query is now the whole group',
    );
    assert.ok(f.calls.filter((call) => call.includes('limit=50')).length <= 3, f.calls.join('\n'));
  });

  test('a member waiting for its new wide query when the instance closes gets its stale copy, not a 503', async () => {
    const f = await folding();
    const first = await foldedCopy(f);
    await f.clock.advance(10_000);
    const release = f.hold();
    // A new member widens the group: the new wide query has no answer yet, and the narrow one waits for its fill.
    const widening = f.request(`${TOPPAGES}?host=example.com&limit=3&types=1`);
    const waiting = f.request(NARROW);
    await moveUntil(f.clock, () => f.calls.length === 2, 'the new wide query at the upstream');
    await f.answered(f.cache.close());
    const reply = await f.answered(waiting);
    release();
    await f.answered(widening);
    // The service did not fail: the fill was still under way when the instance closed.
    assertStaleCopy(reply, first, 'refreshing');
  });

  test('a member asked as its instance closes, its group syncing with the tier, gets its stale copy, not a 503', async () => {
    const [one, two] = startVirtualCluster(2);
    const { clock } = one!;
    const [first] = await moveUntilSettled(
      clock,
      Promise.all([one!.get(NARROW), one!.get(`${TOPPAGES}?host=example.com&limit=10&loyalty=1`)]),
    );
    assert.equal(first!.status, 200);
    await clock.advance(4_000);
    const asked = one!.get(NARROW);
    // Closed at once, the clock still: the ask waits for its group's sync with the tier.
    const closing = one!.cache.close();
    await settle();
    const reply = await moveUntilSettled(clock, asked);
    await moveUntilSettled(clock, closing);
    await closeAll([two!]);
    // Closing dropped the entries while the lookup waited (seed 13890): it found no copy, the
    // fill it then wanted could not start, the budget closed.
    assertStaleCopy(reply, first!, '[a-z-]+');
  });

  test('a member whose new wide query waits for the budget past maxWaitMs gets its copy, marked as waiting for the budget', async () => {
    // One upstream call a minute: the first fill takes it, and the new wide query waits for the next.
    const f = await folding({ budgetFills: 1, budgetWindowMs: 60_000 });
    const first = await foldedCopy(f);
    await f.clock.advance(10_000);
    const [reply] = await f.getAll([NARROW, `${TOPPAGES}?host=example.com&limit=3&types=1`]);
    assert.equal(f.calls.length, 1, 'no call past the budget');
    // The service never failed: the Cache-Status says what held the fill back.
    assertStaleCopy(reply!, first, 'budget');
  });

  test("a dashboard back from a hidden tab is answered from its group's wide query: one call, not one per member", async () => {
    const f = await folding();
    const WIDE = `${TOPPAGES}?host=example.com&limit=10&loyalty=1`;
    await foldedCopy(f);
    const before = f.calls.length;
    // Hidden for 10 s: no member is asked for more than two intervals, and the copy is servable.
    await f.clock.advance(10_000);
    const replies = await f.getAll([NARROW, WIDE]);
    assert.deepEqual(
      replies.map((reply) => reply.status),
      [200, 200],
    );
    // Rebuilt member by member, the narrow query came back alone and was filled apart (seed 6620).
    assert.deepEqual(f.calls.slice(before), [WIDE]);
  });

  test('a member whose wide query changed five times since its copy is still answered that copy when the new one fails', async () => {
    const f = await folding();
    const first = await foldedCopy(f);
    // Both stop polling; others come one a second, each widening the group's query again.
    await f.clock.advance(7000);
    for (const flag of ['types=1', 'metrics=_rv', 'now_on=1', 'loyalty=1']) {
      assert.equal((await f.get(`${TOPPAGES}?host=example.com&limit=3&${flag}`)).status, 200);
      await f.clock.advance(1000);
    }
    f.fail();
    const reply = await f.get(NARROW);
    assertStaleCopy(reply, first, 'upstream-error');
  });

  test('a wide query replaced while its first fill is under way still answers its members when the new one fails', async () => {
    const f = await folding();
    const WIDE = `${TOPPAGES}?host=example.com&limit=10&loyalty=1`;
    let release = f.hold();
    const first = f.request(WIDE);
    await moveUntil(f.clock, () => f.calls.length === 1, 'the first wide query at the upstream');
    // A new member widens the group while that fill is at the upstream, then the fill lands.
    const widening = f.request(`${TOPPAGES}?host=example.com&limit=3&types=1`);
    await f.clock.advance(1);
    release();
    assert.equal((await first).status, 200);
    // The new wide query's fill fails.
    release = f.hold();
    await moveUntil(f.clock, () => f.calls.length === 2, 'the new wide query at the upstream');
    f.fail();
    release();
    await f.answered(widening);
    // A member the first wide query covers, once that copy is stale: answered from it. (Its
    // fill still under way when the group's wide query changed, it was forgotten with the
    // unservable ones, and the member was answered 503 beside a servable copy: seed 2308.)
    await f.clock.advance(4000);
    const reply = await f.get(NARROW);
    assert.equal(reply.status, 200, reply.text);
    assert.ok(
      reply.headers
        .get('cache-status')!
        .startsWith(`pulse-widgets; fwd=stale; detail=upstream-error; key="${WIDE}";`),
      reply.headers.get('cache-status')!,
    );
  });

  test('fold: false (PULSE_FOLD=off) gives every query its own fill and a plain Cache-Status', async () => {
    const f = await folding({ fold: false });
    const replies = await f.getAll(
      ['limit=5', 'limit=10'].map((limit) => `${TOPPAGES}?host=example.com&${limit}`),
    );
    assert.equal(f.calls.length, 2);
    for (const reply of replies) assert.doesNotMatch(reply.headers.get('cache-status')!, /folded/);
    const off = readSettings(['serve', '--fold', 'off'], {});
    assert.ok('settings' in off && off.settings.fold === false);
    const env = readSettings(['serve'], { PULSE_FOLD: 'off' });
    assert.ok('settings' in env && env.settings.fold === false);
    const on = readSettings(['serve'], {});
    assert.ok('settings' in on && on.settings.fold === true);
    assert.deepEqual(readSettings(['serve', '--fold', 'maybe'], {}), {
      errors: ['PULSE_FOLD (--fold): must be on or off'],
    });
  });
});

describe('fresh at first paint', () => {
  test('a copy older than two intervals waits for the fill while the upstream is healthy', async () => {
    const f = await folding();
    const path = '/live/quickstats/v4/?host=example.com';
    await f.get(path);
    await f.clock.advance(60_000);
    const reply = await f.get(path);
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('cache-status')!, /^pulse-widgets; fwd=miss/);
    assert.equal(reply.headers.get('age'), '0');
    assert.equal(reply.text, await f.direct('quickstats', 'host=example.com'));
  });

  test('…but no longer than firstPaintWaitMs: then the stored copy, marked stale', async () => {
    const f = await folding({ firstPaintWaitMs: 30 });
    const path = '/live/quickstats/v4/?host=example.com';
    const first = await f.get(path);
    await f.clock.advance(60_000);
    const release = f.hold();
    const reply = await f.get(path);
    release();
    assert.equal(reply.status, 200);
    assert.equal(reply.text, first.text);
    assert.match(reply.headers.get('cache-status')!, /^pulse-widgets; fwd=stale; detail=refreshing/);
    assert.equal(reply.headers.get('age'), '60');
  });

  test('a copy one interval old is answered at once, stale, while it refreshes', async () => {
    const f = await folding();
    const path = '/live/quickstats/v4/?host=example.com';
    const first = await f.get(path);
    await f.clock.advance(4000);
    const release = f.hold();
    const reply = await f.get(path);
    release();
    assert.equal(reply.text, first.text);
    assert.match(reply.headers.get('cache-status')!, /^pulse-widgets; fwd=stale; detail=refreshing/);
  });

  test('a cold dashboard of 20 realistic queries: every answer 200, one fill per fold group', async () => {
    const f = await folding();
    const dashboard = DASHBOARD_QUERIES.slice(0, 20);
    const replies = await f.getAll(dashboard);
    assert.deepEqual(
      replies.map((reply) => reply.status),
      dashboard.map(() => 200),
    );
    // quickstats, toppages, referrers, top_geo, summary, and the three filtered toppages.
    assert.equal(f.calls.length, 8, f.calls.join('\n'));
    const metrics = async () => (await f.cache.handle(new Request('http://cache.test/metrics'))).text();
    assert.match(await metrics(), /^pulse_cache_folded_total\{route="toppages"\} [1-9]/m);
    // The dashboard polls again a tick later: its queries are established, and planned.
    await f.clock.advance(3000);
    assert.deepEqual(
      (await f.getAll(dashboard)).map((reply) => reply.status),
      dashboard.map(() => 200),
    );
    // The host's refresh plan: 20 queries polled, 8 upstream queries kept fresh, every tick.
    await moveUntil(
      f.clock,
      async () => /^pulse_schedule_groups\{host="example.com"\} 8$/m.test(await metrics()),
      'the plan of all 8 groups',
    );
    const plan = await metrics();
    assert.match(plan, /^pulse_schedule_keys\{host="example.com"\} 20$/m);
    assert.match(plan, /^pulse_schedule_calls_per_minute\{host="example.com"\} 160$/m);
    assert.match(plan, /^pulse_schedule_stretch\{host="example.com"\} 1$/m);
  });
});
