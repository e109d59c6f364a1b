/**
 * The per-host upstream budget under competition, on a virtual clock at full scale (3 fills per
 * 1 s window, real minutes), and the per-client-IP limit.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ClientLimit } from '../src/server/http/client-limit.ts';
import { createCacheHandler, createLogger } from '../src/server/http/handler.ts';
import { CLIENT_IP_HEADER } from '../src/runtime/node-http.ts';
import { DEFAULTS } from '../src/server/config/options.ts';
import {
  API_KEY,
  HOSTS,
  maxInSlidingWindow,
  startHarness,
  upstreamLogLines,
} from './helpers/cache-harness.node.ts';
import { startFakeUpstream } from './helpers/fake-upstream.node.ts';
import { startVirtualCache } from './helpers/virtual-cache.node.ts';

test('15 keys of one host competing for 3 minutes: at most 183 calls in any sliding minute, shared fairly', async () => {
  // Fifteen distinct fills competing, not one fold group of fifteen limits.
  const v = startVirtualCache({ fold: false });
  const keys = Array.from({ length: 15 }, (_, i) => `/live/toppages/v3/?host=example.com&limit=${i + 1}`);
  const stopAt = v.clock.now() + 180_000;
  // Every key polled three times a TTL: far more demand than 3 fills per window carry.
  const pollers = keys.map(async (key) => {
    while (v.clock.now() < stopAt) {
      const reply = await v.get(key);
      assert.ok(reply.status === 200 || reply.status === 503, `${reply.status}`);
      await v.clock.sleep(1000);
    }
  });
  await v.clock.runUntil(stopAt + DEFAULTS.maxWaitMs);
  await Promise.all(pollers);
  const metrics = v.get('/metrics');
  await v.clock.advance(0);
  const waits = (await metrics).text;
  const closed = v.cache.close();
  await v.clock.advance(60_000);
  await closed;
  // The budget promises 183 grants on the clock that counts its windows (`grantedAt` of each log line).
  const grants = upstreamLogLines(v.logs).map((line) => line.grantedAt);
  const most = maxInSlidingWindow(grants, 60_000);
  assert.ok(
    maxInSlidingWindow(
      v.arrivals.map((arrival) => arrival.at),
      60_000,
    ) < 200,
    'the upstream never sees its limit reached',
  );
  assert.ok(most <= 183, `${most} calls in one sliding minute`);
  assert.ok(most >= 170, `${most}: the budget was actually spent`);
  // Shared evenly: every key within a fifth of the mean. (A plan that ranked keys by fetch time
  // refilled the three keys of a tick's earliest window every tick: 24 against 13 for the rest.)
  const perKey = keys.map(
    (key) => v.arrivals.filter((arrival) => arrival.key.endsWith(`limit=${key.split('limit=')[1]}`)).length,
  );
  const mean = v.arrivals.length / keys.length;
  assert.ok(
    perKey.every((count) => Math.abs(count - mean) <= mean / 5),
    `unfair: ${perKey.join(', ')} (mean ${mean.toFixed(1)})`,
  );
  assert.match(waits, /^pulse_budget_waits_total\{host="example.com"\} [1-9]\d*$/m);
});

test('per-client-IP limit: 429 with Retry-After past the limit, other addresses unaffected', async () => {
  const h = await startHarness({ clientLimit: 5, clientLimitWindowMs: 60_000 });
  after(() => h.close());
  const path = '/live/top_geo/v1/?host=example.com';
  for (let i = 0; i < 5; i += 1) assert.equal((await h.get(path)).status, 200);
  const refused = await h.get(path);
  assert.equal(refused.status, 429);
  assert.equal((refused.json() as { error: { code: string } }).error.code, 'too_many_requests');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal((await h.get('/healthz')).status, 200, 'operations routes are not limited');
  assert.equal(h.upstream.calls.length, 1);
});

test('the default limit never refuses a newsroom: 500 viewers behind one NAT polling 4 URLs in phase', async () => {
  const upstream = await startFakeUpstream();
  const cache = createCacheHandler({
    upstream: upstream.url,
    apiKey: API_KEY,
    hosts: HOSTS,
    logger: createLogger('silent'),
  });
  after(async () => {
    await cache.close();
    await upstream.close();
  });
  const urls = [
    '/live/quickstats/v4/?host=example.com',
    '/live/toppages/v3/?host=example.com',
    '/live/referrers/v3/?host=example.com',
    '/live/top_geo/v1/?host=example.com',
  ];
  const fromTheNat = (url: string) =>
    cache.handle(new Request(`http://cache.test${url}`, { headers: { [CLIENT_IP_HEADER]: '203.0.113.7' } }));
  for (const tick of [1, 2]) {
    const replies = await Promise.all(
      Array.from({ length: 500 * urls.length }, (_, i) => fromTheNat(urls[i % urls.length]!)),
    );
    assert.equal(replies.filter((reply) => reply.status === 429).length, 0, `refusals on tick ${tick}`);
  }
  // The rest of the minute, counted by the limiter alone: 21 ticks of 2,000 fit in one window.
  const limit = new ClientLimit(DEFAULTS.clientLimit, DEFAULTS.clientLimitWindowMs);
  for (let request = 0; request < 21 * 2000; request += 1)
    assert.equal(await limit.refusal('203.0.113.7'), undefined);
});
