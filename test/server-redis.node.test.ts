/**
 * The shared tier on a real redis-server (started here on a free loopback port, stopped after):
 * several cache endpoints in one process, each with its own Redis connection and its own HTTP
 * server, in front of one counting fake upstream. Clocks are real (Redis expires leases on its
 * own) and scaled down: TTLs of a few hundred ms, budget windows of 50 ms (a "minute" is 3 s).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { leastRefillGap } from '../src/server/refresh-schedule.ts';
import { API_KEY, assertOneFillPerKeyUnderHerd, maxInSlidingWindow, scaledTimes as scaled, startHarness, until, upstreamLogLines, type Harness } from './helpers/cache-harness.node.ts';
import { jsonResponse, startFakeUpstream, validResponse, type FakeUpstream } from './helpers/fake-upstream.node.ts';
import { REDIS_BINARY, startRedis, type RedisProcess } from './helpers/redis-process.node.ts';

const SCALE = 20;
const WINDOW_MS = 1000 / SCALE;
const TTL_MS = 3000 / SCALE;
const SCALED = scaled(SCALE);
/**
 * The shared budget counts windows on Redis's clock and a call leaves an instance a Redis round
 * trip later; scaled 20× a busy machine's round trip is a large part of a 50 ms window, so the
 * sliding-minute test runs scaled 10× (100 ms windows, a 6 s "minute").
 */
const BUDGET_SCALE = 10;
const BUDGET_MINUTE_MS = 60_000 / BUDGET_SCALE;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The shortest time between two upstream calls for the same key granted since `since`, across
 * instances: their log lines' `grantedAt`, on Redis's clock, where the lease makes it the refresh
 * plan's least gap at least (a grant confirms the lease for that long, and the next one needs it
 * expired; one process alone keeps the same gap). Counted
 * at the fake upstream instead, a busy event loop delayed one arrival by 100 ms (a 60 ms gap
 * seen for a 150 ms TTL), more than any honest slack.
 */
function shortestGrantGap(harnesses: readonly Harness[], since = 0): number {
  const grants = harnesses.flatMap((h) => upstreamLogLines(h.logs)).filter((line) => line.grantedAt >= since).sort((a, b) => a.grantedAt - b.grantedAt);
  const last = new Map<string, number>();
  let shortest = Infinity;
  for (const { route, query, grantedAt } of grants) {
    const key = `${route}?${query}`;
    const previous = last.get(key);
    if (previous !== undefined) shortest = Math.min(shortest, grantedAt - previous);
    last.set(key, grantedAt);
  }
  return shortest;
}

const tally = (statuses: Map<number, number>) => [...statuses].map(([status, n]) => `${n}×${status}`).join(' ');

async function sharedUp(h: Harness): Promise<boolean> {
  const metric = await h.cache.registry.getSingleMetric('pulse_shared_tier_up')?.get();
  return metric?.values[0]?.value === 1;
}

/** Polls every path, each poller going round the instances, until `stopAt`; counts answers by status. */
async function poll(instances: readonly Harness[], paths: readonly string[], everyMs: number, stopAt: number) {
  const statuses = new Map<number, number>();
  await Promise.all(paths.map(async (path, p) => {
    for (let turn = p; Date.now() < stopAt; turn += 1) {
      const reply = await instances[turn % instances.length]!.get(path);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      await sleep(everyMs);
    }
  }));
  return statuses;
}

describe('shared tier on a real redis-server', { skip: REDIS_BINARY ? false : 'redis-server is not installed (Debian: apt-get install redis-server); CI installs it' }, () => {
  let redis: RedisProcess;
  let tests = 0;

  before(async () => {
    redis = await startRedis();
  });
  after(() => redis?.close());

  /** `count` endpoints on one Redis and one fake upstream, each with its own connection; resolves once all share. */
  async function instances(count: number, options: Parameters<typeof startHarness>[0] = {}, upstream?: FakeUpstream): Promise<Harness[]> {
    const fake = upstream ?? (await startFakeUpstream());
    tests += 1;
    const started = await Promise.all(Array.from({ length: count }, () => startHarness({
      redisUrl: redis.url,
      redisPrefix: `test-${tests}:`,
      instances: count,
      clientLimit: 0,
      ...options,
    }, fake)));
    after(() => Promise.all(started.map((h) => h.close())));
    await until(async () => (await Promise.all(started.map(sharedUp))).every(Boolean), 'every instance connected to Redis', 10_000);
    return started;
  }

  for (const count of [2, 3]) {
    test(`${count} instances under a cold herd: one upstream call per key, the same body everywhere, nothing of the key in Redis`, async () => {
      // Timeouts far longer than a busy machine needs to get the whole herd waiting.
      const herd = await instances(count, { liveTtlMs: 10_000, upstreamTimeoutMs: 9000, maxWaitMs: 9000 });
      const paths = ['/live/quickstats/v4/?host=example.com', '/live/toppages/v3/?host=example.com&limit=5', '/live/referrers/v3/?host=news.example.org'];
      await assertOneFillPerKeyUnderHerd(herd, paths, 10);

      const client = createClient({ url: redis.url });
      await client.connect();
      try {
        const keys = await client.keys(`test-${tests}:*`);
        assert.equal(keys.filter((key) => key.startsWith(`test-${tests}:entry:`)).length, paths.length, keys.join(', '));
        for (const key of keys) {
          const type = await client.type(key);
          // Hashes: budget windows; sorted sets: the budget's minute and fold groups' members.
          const value = type === 'hash' ? JSON.stringify(await client.hGetAll(key)) : type === 'zset' ? JSON.stringify(await client.zRange(key, 0, -1)) : await client.get(key);
          assert.ok(!`${key} ${value}`.includes(API_KEY), `${key} holds the API key`);
        }
      } finally {
        client.destroy();
      }
    });
  }

  test('refresh-ahead across three instances: one fill per key per TTL, every TTL, served everywhere', async () => {
    // A budget of 3 fills per 100 ms: enough for 3 keys every 300 ms, so only the leases limit fills.
    const trio = await instances(3, { liveTtlMs: 300, upstreamTimeoutMs: 200, budgetWindowMs: 100 });
    const upstream = trio[0]!.upstream;
    const paths = ['/live/quickstats/v4/?host=example.com', '/live/toppages/v3/?host=example.com&limit=5', '/live/referrers/v3/?host=news.example.org'];
    const startedAt = Date.now();
    const statuses = await poll(trio, paths, 40, startedAt + 1500);
    const elapsed = Date.now() - startedAt;
    const gap = shortestGrantGap(trio);
    console.log(`3 instances, 3 keys, ${elapsed} ms of polling: ${upstream.calls.length} fills (TTL 300 ms), shortest gap per key ${gap} ms, answers ${tally(statuses)}`);
    assert.deepEqual([...statuses.keys()], [200]);
    assert.ok(gap >= leastRefillGap(300, 100), `two fills of one key ${gap} ms apart`);
    assert.ok(upstream.calls.length <= paths.length * Math.ceil(elapsed / 300 + 1), `${upstream.calls.length} fills`);
    assert.ok(upstream.calls.length >= paths.length * 3, `${upstream.calls.length} fills: leases expire and keys are refilled`);
  });

  test('a dashboard opening across 2 instances: the queries of one fold group, split between them, make one upstream call', async () => {
    const upstream = await startFakeUpstream();
    after(() => upstream.close());
    const pair = await instances(2, { liveTtlMs: 10_000, upstreamTimeoutMs: 9000, maxWaitMs: 9000 }, upstream);
    const limits = [1, 2, 3, 4, 5, 6];
    // Each instance sees half the dashboard; alone, each would fill its own widest query.
    const replies = await Promise.all(limits.map((limit) => pair[limit % 2]!.get(`/live/toppages/v3/?host=example.com&limit=${limit}`)));
    assert.deepEqual(replies.map((reply) => reply.status), limits.map(() => 200));
    assert.deepEqual(upstream.calls.map((call) => `${call.url.pathname}${call.url.search}`), ['/live/toppages/v3/?host=example.com&limit=6']);
    for (const reply of replies.slice(0, -1)) assert.match(reply.headers.get('cache-status')!, /; key="\/live\/toppages\/v3\/\?host=example\.com&limit=6"/);
  });

  test('a cold dashboard of 9 keys across 2 instances takes the shared budget\'s burst, as one instance alone would', async () => {
    const upstream = await startFakeUpstream();
    after(() => upstream.close());
    const pair = await instances(2, scaled(BUDGET_SCALE), upstream);
    const paths = Array.from({ length: 9 }, (_, i) => `/live/toppages/v3/?host=example.com&limit=${i + 1}`);
    const replies = await Promise.all(paths.map((path, i) => pair[i % 2]!.get(path)));
    assert.deepEqual(replies.map((reply) => reply.status), paths.map(() => 200));
    const windows = new Set(pair.flatMap((h) => upstreamLogLines(h.logs)).map((line) => Math.floor(line.grantedAt / (1000 / BUDGET_SCALE))));
    // 3 a window would take 3 windows; the burst grants all 9 in the first (the second, if they straddle its start).
    assert.ok(windows.size <= 2, `granted over ${windows.size} windows`);
  });

  test('each of 2 instances plans the keys polled on either: the same plan, one fill per key per tick', async () => {
    const upstream = await startFakeUpstream();
    after(() => upstream.close());
    const pair = await instances(2, scaled(BUDGET_SCALE), upstream);
    const ttl = 3000 / BUDGET_SCALE;
    const polledOn = [0, 0, 1, 1].map((instance, i) => ({ instance: pair[instance]!, path: `/live/toppages/v3/?host=example.com&limit=${i + 1}` }));
    const groups = async (h: Harness) => Number(/^pulse_schedule_groups\{host="example.com"\} (\d+)$/m.exec((await h.get('/metrics')).text)?.[1]);
    // Every widget polls its own instance only, every third of a tick. The cold first fills of a
    // fresh process may miss the scaled 280 ms timeout on a busy machine: statuses count from
    // the moment both plans hold the 4 keys, which is what this test is about.
    let since = Infinity;
    const statuses: number[] = [];
    const stopAt = Date.now() + 10 * ttl;
    const polling = Promise.all(polledOn.map(async ({ instance, path }) => {
      while (Date.now() < stopAt) {
        const sentAt = Date.now();
        const { status } = await instance.get(path);
        if (sentAt >= since) statuses.push(status);
        await sleep(ttl / 3);
      }
    }));
    await until(async () => (await Promise.all(pair.map(groups))).every((count) => count === 4), 'both plans hold the 4 keys', 6 * ttl);
    since = Date.now();
    await polling;
    assert.deepEqual([...new Set(statuses)], [200]);
    const ticks = (Date.now() - since) / ttl;
    const perKey = polledOn.map(({ path }) => upstream.calls.filter((call) => call.at >= since && `${call.url.pathname}${call.url.search}` === path).length);
    // Two plans made from different views refilled a key in two windows of one tick (their
    // lease expiring in between): twice a tick. One plan, or the same plan twice, refills it once.
    for (const count of perKey) assert.ok(count <= Math.ceil(ticks) + 1, `fills per key ${perKey.join(', ')} in ${ticks.toFixed(1)} ticks`);
    // And the plans do refill them (a refill pushed to the next tick by a late timer is not this test's concern).
    assert.ok(perKey.every((count) => count >= Math.floor(ticks / 2)), `every key refilled by the plans: ${perKey.join(', ')} in ${ticks.toFixed(1)} ticks`);
  });

  test('two instances, 15 competing keys: at most 183 calls in any sliding minute between them', async () => {
    const pair = await instances(2, scaled(BUDGET_SCALE));
    const upstream = pair[0]!.upstream;
    const paths = Array.from({ length: 15 }, (_, i) => `/live/toppages/v3/?host=example.com&limit=${i + 1}`);
    const statuses = await poll(pair, paths, 3000 / BUDGET_SCALE / 3, Date.now() + BUDGET_MINUTE_MS + 700);
    // Counted when Redis granted each call (its log's `grantedAt`, on Redis's clock), which is what
    // the shared windows promise. A send lags its grant by the lease confirmation's round trip, a
    // few ms that vary, so two calls granted 61 windows apart could be sent less than a "minute"
    // apart (184 seen once); arrivals stay within the slack under 200.
    const most = maxInSlidingWindow(pair.flatMap((h) => upstreamLogLines(h.logs).map((line) => line.grantedAt)), BUDGET_MINUTE_MS);
    assert.ok(maxInSlidingWindow(upstream.calls.map((call) => call.at), BUDGET_MINUTE_MS) < 200, 'the upstream never sees its limit reached');
    const fromEach = pair.map((h) => upstreamLogLines(h.logs).length);
    const mostSent = maxInSlidingWindow(pair.flatMap((h) => upstreamLogLines(h.logs).map((line) => line.sentAt)), BUDGET_MINUTE_MS);
    console.log(`shared budget: ${upstream.calls.length} calls (${fromEach.join(' + ')} by instance); max ${most} granted (${mostSent} sent) in a sliding "minute" (${BUDGET_MINUTE_MS} ms); answers ${tally(statuses)}`);
    assert.ok(most <= 183, `${most} calls in one sliding minute`);
    assert.ok(most >= 90, `${most}: the budget was actually under pressure`);
    assert.ok(fromEach.every((calls) => calls > 0), 'both instances filled');
    assert.ok(shortestGrantGap(pair) >= leastRefillGap(3000 / BUDGET_SCALE, 1000 / BUDGET_SCALE), 'never two fills of one key closer than one process makes them');
  });

  test('Redis killed mid-run: every answer still 200, each instance within its share of the budget; back: shared again', async () => {
    const trio = await instances(3, { ...SCALED, staleWindowMs: 60_000 });
    const upstream = trio[0]!.upstream;
    // 6 keys a TTL want 40 fills a second: more than one instance's share (1 per 50 ms), less than the shared budget.
    const paths = Array.from({ length: 6 }, (_, i) => `/live/referrers/v3/?host=example.com&limit=${i + 1}`);
    const phase = async (ms: number) => {
      const from = upstream.calls.length;
      const startedAt = Date.now();
      const statuses = await poll(trio, paths, TTL_MS / 3, startedAt + ms);
      return { statuses, calls: upstream.calls.slice(from), startedAt };
    };

    const shared = await phase(800);
    assert.deepEqual([...shared.statuses.keys()], [200]);
    assert.ok(shortestGrantGap(trio, shared.startedAt) >= leastRefillGap(TTL_MS, WINDOW_MS), 'shared: fills of a key apart as in one process');

    await redis.kill();
    try {
      const logsBefore = trio.map((h) => upstreamLogLines(h.logs).length);
      const alone = await phase(1200);
      const aloneTimes = trio.map((h, i) => upstreamLogLines(h.logs).slice(logsBefore[i]).map((line) => line.grantedAt));
      const mostAlone = aloneTimes.map((times) => maxInSlidingWindow(times, 1000));
      console.log(`Redis down 1.2 s: answers ${tally(alone.statuses)}; ${alone.calls.length} calls; max per instance in any 1 s: ${mostAlone.join(', ')} (share: 21)`);
      assert.deepEqual([...alone.statuses.keys()], [200], 'stale or fresh, never an error');
      // The share grants at most 21 in any 1 s (20 windows of 50 ms and both ends of the second).
      assert.ok(mostAlone.every((most) => most <= 1000 / WINDOW_MS + 1), `over the share: ${mostAlone.join(', ')}`);
      assert.ok(Math.max(...mostAlone) >= 5, 'the instances did fill alone');
    } finally {
      await redis.restart();
    }
    await until(async () => (await Promise.all(trio.map(sharedUp))).every(Boolean), 'every instance reconnected', 5000);
    await phase(2 * TTL_MS); // fills started alone before the reconnect land during this
    const again = await phase(800);
    const gapAgain = shortestGrantGap(trio, again.startedAt);
    console.log(`Redis back: ${again.calls.length} calls in 800 ms for ${paths.length} keys, shortest gap per key ${gapAgain} ms`);
    assert.deepEqual([...again.statuses.keys()], [200]);
    assert.ok(gapAgain >= leastRefillGap(TTL_MS, WINDOW_MS), 'shared again: fills of a key apart as in one process');
  });

  test('a cold waiter on another instance never calls the upstream: it gets the entry, or a 503 with Retry-After', async () => {
    const [a, b] = await instances(2, { liveTtlMs: 3000, upstreamTimeoutMs: 1000, maxWaitMs: 300 });
    const upstream = a!.upstream;
    const path = '/live/top_geo/v1/?host=example.com';
    const release = upstream.hold();
    const first = a!.get(path);
    await upstream.arrived(1);
    const waiter = await b!.get(path);
    assert.equal(waiter.status, 503);
    assert.ok(Number(waiter.headers.get('retry-after')) >= 1);
    assert.equal((waiter.json() as { error: { code: string } }).error.code, 'upstream_unavailable');
    release();
    await first;
    await until(async () => (await b!.get(path)).status === 200, 'the entry A published');
    assert.equal(upstream.calls.length, 1);
    assert.match((await b!.get(path)).cacheStatus, /^pulse-widgets; hit/);
  });

  test('failures and cooldowns are shared: a backoff or a 429 on one instance stops the others too', async () => {
    const [a, b] = await instances(2, { liveTtlMs: 3000, upstreamTimeoutMs: 1000, maxWaitMs: 300, backoffBaseMs: 5000 });
    const upstream = a!.upstream;
    upstream.respond = (request, call, index) => new URL(request.url).searchParams.get('limit') === '2'
      ? jsonResponse({ error: 'slow down' }, { status: 429, headers: { 'retry-after': '30' } })
      : index === 0 ? new Response('broken', { status: 500 }) : validResponse(request, call, index);

    assert.equal((await a!.get('/live/quickstats/v4/?host=example.com')).status, 503);
    const backedOff = await b!.get('/live/quickstats/v4/?host=example.com');
    assert.equal(backedOff.status, 503);
    assert.ok(Number(backedOff.headers.get('retry-after')) >= 4, `Retry-After ${backedOff.headers.get('retry-after')}: the shared backoff`);
    assert.equal(upstream.calls.length, 1, 'no second try during the backoff');

    const limited = await a!.get('/live/toppages/v3/?host=news.example.org&limit=2');
    assert.equal((limited.json() as { error: { code: string } }).error.code, 'upstream_rate_limited');
    const other = await b!.get('/live/toppages/v3/?host=news.example.org&limit=3');
    assert.equal(other.status, 503);
    assert.equal((other.json() as { error: { code: string } }).error.code, 'upstream_rate_limited');
    assert.equal(upstream.calls.length, 2, 'the other instance waited out the cooldown');
  });
});
