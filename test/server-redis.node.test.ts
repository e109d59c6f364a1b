/**
 * The shared tier on a real redis-server (started here on a free loopback port, stopped after):
 * several cache endpoints in one process, each with its own Redis connection and its own HTTP
 * server, in front of one counting fake upstream. What needs the real Redis is here: herds, leases
 * and waiters across instances, shared failures, Redis killed and back. Its semantics are the
 * tier contract's (tier-contract.node.test.ts), so the timing of plans and budget is proven once,
 * on a virtual clock (server-instances.node.test.ts and the simulation).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { RedisStore } from '../src/history/redis-store.ts';
import { createLogger } from '../src/server/http/handler.ts';
import { RedisTier } from '../src/server/tier/redis-tier.ts';
import { realClock } from '../src/runtime/clock.ts';
import {
  API_KEY,
  assertOneFillPerKeyUnderHerd,
  startHarness,
  until,
  type Harness,
} from './helpers/cache-harness.node.ts';
import {
  jsonResponse,
  startFakeUpstream,
  validResponse,
  type FakeUpstream,
} from './helpers/fake-upstream.node.ts';
import { REDIS_MISSING } from '../scripts/servers.mjs';
import { startRedis, type RedisProcess } from './helpers/redis-process.node.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fill leases asked for by every instance that ended as `outcome` (won, held, offline…). */
async function leases(instances: readonly Harness[], outcome: string): Promise<number> {
  let total = 0;
  for (const h of instances) {
    for (const value of (await h.cache.registry.getSingleMetric('pulse_shared_leases_total')?.get())
      ?.values ?? [])
      if (value.labels.outcome === outcome) total += value.value;
  }
  return total;
}

const tally = (statuses: Map<number, number>) =>
  [...statuses].map(([status, n]) => `${n}×${status}`).join(' ');

async function sharedUp(h: Harness): Promise<boolean> {
  const metric = await h.cache.registry.getSingleMetric('pulse_shared_tier_up')?.get();
  return metric?.values[0]?.value === 1;
}

/** Polls every path, each poller going round the instances, until `stopAt`; counts answers by status. */
async function poll(
  instances: readonly Harness[],
  paths: readonly string[],
  everyMs: number,
  stopAt: number,
) {
  const statuses = new Map<number, number>();
  await Promise.all(
    paths.map(async (path, p) => {
      for (let turn = p; Date.now() < stopAt; turn += 1) {
        const reply = await instances[turn % instances.length]!.get(path);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        await sleep(everyMs);
      }
    }),
  );
  return statuses;
}

describe('shared tier on a real redis-server', { skip: REDIS_MISSING }, () => {
  let redis: RedisProcess;
  let tests = 0;

  before(async () => {
    redis = await startRedis();
  });
  after(() => redis?.close());

  /** `count` endpoints on one Redis and one fake upstream, each with its own connection; resolves once all share. */
  async function instances(
    count: number,
    options: Parameters<typeof startHarness>[0] = {},
    upstream?: FakeUpstream,
  ): Promise<Harness[]> {
    const fake = upstream ?? (await startFakeUpstream());
    tests += 1;
    const started = await Promise.all(
      Array.from({ length: count }, () =>
        startHarness(
          {
            redisUrl: redis.url,
            redisPrefix: `test-${tests}:`,
            instances: count,
            clientLimit: 0,
            ...options,
          },
          fake,
        ),
      ),
    );
    after(() => Promise.all(started.map((h) => h.close())));
    await until(
      async () => (await Promise.all(started.map(sharedUp))).every(Boolean),
      'every instance connected to Redis',
      10_000,
    );
    return started;
  }

  for (const count of [2, 3]) {
    test(`${count} instances under a cold herd: one upstream call per key, the same body everywhere, nothing of the key in Redis`, async () => {
      // Timeouts far longer than a busy machine needs to get the whole herd waiting.
      const herd = await instances(count, { liveTtlMs: 10_000, upstreamTimeoutMs: 9000, maxWaitMs: 9000 });
      const paths = [
        '/live/quickstats/v4/?host=example.com',
        '/live/toppages/v3/?host=example.com&limit=5',
        '/live/referrers/v3/?host=news.example.org',
      ];
      await assertOneFillPerKeyUnderHerd(herd, paths, 10);

      const client = createClient({ url: redis.url });
      await client.connect();
      try {
        const keys = await client.keys(`test-${tests}:*`);
        assert.equal(
          keys.filter((key) => key.startsWith(`test-${tests}:entry:`)).length,
          paths.length,
          keys.join(', '),
        );
        for (const key of keys) {
          const type = await client.type(key);
          // Hashes: budget windows; sorted sets: the budget's minute and fold groups' members.
          const value =
            type === 'hash'
              ? JSON.stringify(await client.hGetAll(key))
              : type === 'zset'
                ? JSON.stringify(await client.zRange(key, 0, -1))
                : await client.get(key);
          assert.ok(!`${key} ${value}`.includes(API_KEY), `${key} holds the API key`);
        }
      } finally {
        client.destroy();
      }
    });
  }

  test('a dashboard opening across 2 instances: the queries of one fold group, split between them, make one upstream call', async () => {
    const upstream = await startFakeUpstream();
    after(() => upstream.close());
    const pair = await instances(
      2,
      { liveTtlMs: 10_000, upstreamTimeoutMs: 9000, maxWaitMs: 9000 },
      upstream,
    );
    const limits = [1, 2, 3, 4, 5, 6];
    // Each instance sees half the dashboard; alone, each would fill its own widest query.
    const replies = await Promise.all(
      limits.map((limit) => pair[limit % 2]!.get(`/live/toppages/v3/?host=example.com&limit=${limit}`)),
    );
    assert.deepEqual(
      replies.map((reply) => reply.status),
      limits.map(() => 200),
    );
    assert.deepEqual(
      upstream.calls.map((call) => `${call.url.pathname}${call.url.search}`),
      ['/live/toppages/v3/?host=example.com&limit=6'],
    );
    for (const reply of replies.slice(0, -1))
      assert.match(
        reply.headers.get('cache-status')!,
        /; key="\/live\/toppages\/v3\/\?host=example\.com&limit=6"/,
      );
  });

  test('Redis killed mid-run: every answer still 200 (each instance acts alone); back: shared again', async () => {
    // Real time at full scale: a scaled TTL forces a timeout a busy machine's fake upstream misses.
    const trio = await instances(3, { staleWindowMs: 60_000, fold: false });
    const paths = Array.from({ length: 6 }, (_, i) => `/live/referrers/v3/?host=example.com&limit=${i + 1}`);
    const phase = (ms: number) => poll(trio, paths, 1000, Date.now() + ms);
    assert.deepEqual([...(await phase(3000)).keys()], [200]);
    await redis.kill();
    try {
      const before = await leases(trio, 'offline');
      const alone = await phase(3000);
      assert.deepEqual([...alone.keys()], [200], `stale or fresh, never an error: ${tally(alone)}`);
      assert.ok((await leases(trio, 'offline')) > before, 'the instances filled alone');
    } finally {
      await redis.restart();
    }
    await until(
      async () => (await Promise.all(trio.map(sharedUp))).every(Boolean),
      'every instance reconnected',
      5000,
    );
    const before = await leases(trio, 'won');
    const again = await phase(3000);
    assert.deepEqual([...again.keys()], [200]);
    assert.ok(
      (await leases(trio, 'won')) > before,
      'shared again once Redis is back: fills leased through it',
    );
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
    const [a, b] = await instances(2, {
      liveTtlMs: 3000,
      upstreamTimeoutMs: 1000,
      maxWaitMs: 300,
      backoffBaseMs: 5000,
    });
    const upstream = a!.upstream;
    upstream.respond = (request, call, index) =>
      new URL(request.url).searchParams.get('limit') === '2'
        ? jsonResponse({ error: 'slow down' }, { status: 429, headers: { 'retry-after': '30' } })
        : index === 0
          ? new Response('broken', { status: 500 })
          : validResponse(request, call, index);

    assert.equal((await a!.get('/live/quickstats/v4/?host=example.com')).status, 503);
    const backedOff = await b!.get('/live/quickstats/v4/?host=example.com');
    assert.equal(backedOff.status, 503);
    assert.ok(
      Number(backedOff.headers.get('retry-after')) >= 4,
      `Retry-After ${backedOff.headers.get('retry-after')}: the shared backoff`,
    );
    assert.equal(upstream.calls.length, 1, 'no second try during the backoff');

    const limited = await a!.get('/live/toppages/v3/?host=news.example.org&limit=2');
    assert.equal((limited.json() as { error: { code: string } }).error.code, 'upstream_rate_limited');
    const other = await b!.get('/live/toppages/v3/?host=news.example.org&limit=3');
    assert.equal(other.status, 503);
    assert.equal((other.json() as { error: { code: string } }).error.code, 'upstream_rate_limited');
    assert.equal(upstream.calls.length, 2, 'the other instance waited out the cooldown');
  });

  test("an instance whose clock is a minute ahead of Redis's keeps Redis's time: in its answers, its log and /metrics", async () => {
    // Redis counts the budget's windows on its own clock (TIME); every instance plans in them.
    const aheadMs = 60_000;
    const [instance] = await instances(1, { clock: { ...realClock, now: () => realClock.now() + aheadMs } });
    const answer = await instance!.get('/live/quickstats/v4/?host=example.com');
    assert.equal(answer.status, 200);
    // Filled once Redis granted the call's slot: stamped on Redis's clock, not a minute ahead.
    const fetchedAt = Date.parse(answer.headers.get('last-modified') ?? '');
    assert.ok(
      Math.abs(fetchedAt - Date.now()) < 10_000,
      `Last-Modified ${answer.headers.get('last-modified')}`,
    );

    const offset = (
      await instance!.cache.registry.getSingleMetric('pulse_shared_tier_clock_offset_ms')?.get()
    )?.values[0]?.value;
    assert.ok(offset !== undefined && Math.abs(offset + aheadMs) < 1000, `offset ${offset} ms`);
    const said = instance!.logs
      .map((line) => JSON.parse(line) as { msg: string; offsetMs?: number })
      .filter((line) => line.offsetMs !== undefined);
    assert.equal(said.length, 1, instance!.logs.join(''));
    assert.match(
      said[0]!.msg,
      /keeps time on the shared tier's clock \(Redis's\), which is \d+ ms behind its own/,
    );
  });
});

describe('a Redis client closed while it connects', { skip: REDIS_MISSING }, () => {
  // node-redis 6.3's `destroy()` spares a socket still connecting: a tier or a history store
  // closed as it started (a server stopped during its start) kept a connection to Redis, and its
  // process alive (src/runtime/redis-close.ts).
  const logger = createLogger('error');
  const closers: [string, (url: string) => void][] = [
    ['the shared tier', (url) => new RedisTier({ url, prefix: 'closing:', timeoutMs: 500, logger }).close()],
    [
      'the history store',
      (url) =>
        void new RedisStore({ url, prefix: 'closing:', timeoutMs: 500, logger, now: Date.now }).close(),
    ],
  ];
  for (const [name, openAndClose] of closers)
    test(`${name}: no connection is left once its connect lands`, async () => {
      const redis = await startRedis();
      const admin = createClient({ url: redis.url });
      after(async () => {
        admin.destroy();
        await redis.close();
      });
      await admin.connect();
      const stat = async (field: string) =>
        Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(await admin.info())![1]);
      const received = await stat('total_connections_received');

      openAndClose(redis.url);
      await until(
        async () => (await stat('total_connections_received')) > received,
        'the closed connection reaching Redis',
      );
      await until(async () => (await stat('connected_clients')) === 1, "no connection but the test's own");
    });
});
