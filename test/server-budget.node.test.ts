/**
 * The per-host upstream budget under competition, and the per-client-IP limit. The budget runs
 * on the real clock, scaled down 20×: 3 fills per 50 ms window, so a "minute" is 3 s.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ClientLimit } from '../src/server/client-limit.ts';
import { createCacheHandler, createLogger } from '../src/server/handler.ts';
import { CLIENT_IP_HEADER } from '../src/server/node-http.ts';
import { DEFAULTS } from '../src/server/options.ts';
import { API_KEY, HOSTS, maxInSlidingWindow, startHarness, until, upstreamLogLines } from './helpers/cache-harness.node.ts';
import { startFakeUpstream } from './helpers/fake-upstream.node.ts';

const SCALE = 20;
const WINDOW_MS = 1000 / SCALE;
const MINUTE_MS = 60_000 / SCALE;

test('15 keys of one host competing: at most 183 calls in any sliding minute, shared fairly', async () => {
  const h = await startHarness({
    liveTtlMs: 3000 / SCALE,
    upstreamTimeoutMs: 140,
    budgetWindowMs: WINDOW_MS,
    backoffBaseMs: 1000 / SCALE,
    backoffMaxMs: 30_000 / SCALE,
    maxWaitMs: 5000 / SCALE,
    clientLimit: 0,
    // Fifteen distinct fills competing, not one fold group of fifteen limits.
    fold: false,
  });
  after(() => h.close());
  const keys = Array.from({ length: 15 }, (_, i) => `/live/toppages/v3/?host=example.com&limit=${i + 1}`);
  const stopAt = Date.now() + MINUTE_MS + 700;
  // Every key polled three times a TTL: far more demand than 3 fills per window carry.
  await Promise.all(keys.map(async (key) => {
    while (Date.now() < stopAt) {
      const reply = await h.get(key);
      assert.ok(reply.status === 200 || reply.status === 503, `${reply.status}`);
      await new Promise((resolve) => setTimeout(resolve, 3000 / SCALE / 3));
    }
  }));
  // The budget promises 183 grants on the clock that counts its windows (`grantedAt` of each log
  // line). Sends and arrivals lag a grant by a busy event loop's delay, which the 17 calls of
  // slack under the upstream's 200 absorb.
  // Closing waits for the calls still in flight, so every grant has its log line. (Matching log
  // lines to arrivals cannot tell: a call that timed out before it reached the upstream has a
  // line and no arrival.)
  await h.cache.close();
  const sends = upstreamLogLines(h.logs).map((line) => line.grantedAt);
  const arrivals = h.upstream.calls.map((call) => call.at);
  const most = maxInSlidingWindow(sends, MINUTE_MS);
  assert.ok(maxInSlidingWindow(arrivals, MINUTE_MS) < 200, 'the upstream never sees its limit reached');
  const perKey = keys.map((key) => h.upstream.calls.filter((call) => `${call.url.pathname}${call.url.search}`.endsWith(`limit=${key.split('limit=')[1]}`)).length);
  console.log(`budget: ${arrivals.length} calls in ${MINUTE_MS + 700} ms; max ${most} in a sliding "minute" (${MINUTE_MS} ms); per key ${Math.min(...perKey)}..${Math.max(...perKey)}`);
  assert.ok(most <= 183, `${most} calls in one sliding minute`);
  assert.ok(most >= 120, `${most}: the budget was actually under pressure`);
  // Shared evenly: every key within a fifth of the mean. (A plan that ranked keys by fetch time
  // refilled the three keys of a tick's earliest window every tick: 24 against 13 for the rest.)
  const mean = arrivals.length / keys.length;
  assert.ok(perKey.every((count) => Math.abs(count - mean) <= mean / 5), `unfair: ${perKey.join(', ')} (mean ${mean.toFixed(1)})`);
  assert.match((await h.get('/metrics')).text, /^pulse_budget_waits_total\{host="example.com"\} [1-9]\d*$/m);
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
  const cache = createCacheHandler({ upstream: upstream.url, apiKey: API_KEY, hosts: HOSTS, logger: createLogger('silent') });
  after(async () => {
    await cache.close();
    await upstream.close();
  });
  const urls = ['/live/quickstats/v4/?host=example.com', '/live/toppages/v3/?host=example.com', '/live/referrers/v3/?host=example.com', '/live/top_geo/v1/?host=example.com'];
  const fromTheNat = (url: string) => cache.handle(new Request(`http://cache.test${url}`, { headers: { [CLIENT_IP_HEADER]: '203.0.113.7' } }));
  for (const tick of [1, 2]) {
    const replies = await Promise.all(Array.from({ length: 500 * urls.length }, (_, i) => fromTheNat(urls[i % urls.length]!)));
    assert.equal(replies.filter((reply) => reply.status === 429).length, 0, `refusals on tick ${tick}`);
  }
  // The rest of the minute, counted by the limiter alone: 21 ticks of 2,000 fit in one window.
  const limit = new ClientLimit(DEFAULTS.clientLimit, DEFAULTS.clientLimitWindowMs);
  for (let request = 0; request < 21 * 2000; request += 1) assert.equal(await limit.refusal('203.0.113.7'), undefined);
});
