/**
 * Caching behaviour of the endpoint against a counting fake upstream: one fill per key per TTL
 * under herds, stale serving, failures never cached, backoff and cooldowns. A manual clock
 * decides freshness, so "after expiry" is a clock move, not a wait.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cutBody, jsonResponse, validBody, validResponse } from './helpers/fake-upstream.node.ts';
import { startHarness, until, upstreamLogLines, type Harness } from './helpers/cache-harness.node.ts';
import { VirtualClock } from './helpers/virtual-clock.node.ts';

const QUICKSTATS = '/live/quickstats/v4/?host=example.com';
const TTL = 1000;

async function harness(options: Parameters<typeof startHarness>[0] = {}) {
  const clock = new VirtualClock();
  // Folding has its own tests (server-folding): here a fill starts at once, not after a fold group gathers.
  const h = await startHarness({
    clock,
    fold: false,
    liveTtlMs: TTL,
    upstreamTimeoutMs: 500,
    staleWindowMs: 10_000,
    ...options,
  });
  after(() => h.close());
  return { h, clock };
}

/** Waits until the fill that the upstream answered last has been stored or has failed. */
async function settled(h: Harness, calls: number) {
  await until(() => upstreamLogLines(h.logs).length >= calls, `${calls} upstream log lines`);
}

describe('one fill per key per TTL', () => {
  test('sequential requests within the TTL make one upstream call', async () => {
    const { h, clock } = await harness();
    const first = await h.get(QUICKSTATS);
    assert.equal(first.status, 200);
    assert.match(first.cacheStatus, /^pulse-widgets; fwd=miss/);
    for (let i = 0; i < 9; i += 1) {
      await clock.advance(TTL / 10);
      const reply = await h.get(QUICKSTATS);
      assert.equal(reply.status, 200);
      assert.match(reply.cacheStatus, /^pulse-widgets; hit/);
      assert.equal(reply.text, first.text);
    }
    assert.equal(h.upstream.calls.length, 1);
  });

  test('equivalent queries share one key: parameter order and defaults do not matter', async () => {
    const { h } = await harness();
    await h.get('/live/toppages/v3/?host=example.com&limit=10&now_on=0');
    await h.get('/live/toppages/v3?now_on=0&host=EXAMPLE.com');
    await h.get('/live/toppages/v3/?host=example.com');
    assert.equal(h.upstream.calls.length, 1);
    assert.equal(h.upstream.calls[0]!.url.search, '?host=example.com&limit=10');
  });

  test('a cold herd of 50 makes one call and gets identical bodies', async () => {
    // Deadlines far longer than a busy machine needs to get the whole herd waiting on the held
    // call (with 500 ms, a loaded machine timed the call out before the 50th request arrived).
    const { h } = await harness({ liveTtlMs: 120_000, upstreamTimeoutMs: 60_000, maxWaitMs: 60_000 });
    const release = h.upstream.hold();
    const replies = Array.from({ length: 50 }, () => h.get(QUICKSTATS));
    await until(
      () => h.received() === 50 && h.upstream.calls.length === 1,
      'all 50 requests waiting on one call',
    );
    release();
    const done = await Promise.all(replies);
    assert.equal(h.upstream.calls.length, 1);
    assert.equal(new Set(done.map((reply) => reply.text)).size, 1);
    assert.ok(
      done.every((reply) => reply.status === 200 && reply.cacheStatus.startsWith('pulse-widgets; fwd=miss')),
    );
  });

  test('a warm herd after expiry is served stale at once while one refresh runs', async () => {
    const { h, clock } = await harness({ liveTtlMs: 3000, upstreamTimeoutMs: 2900 });
    const first = await h.get(QUICKSTATS);
    await clock.advance(6000);
    const release = h.upstream.hold();
    const herd = await Promise.all(Array.from({ length: 50 }, () => h.get(QUICKSTATS)));
    assert.ok(herd.every((reply) => reply.status === 200 && reply.text === first.text));
    assert.ok(
      herd.every((reply) =>
        /^pulse-widgets; fwd=stale; detail=refreshing; ttl=-\d+$/.test(reply.cacheStatus),
      ),
      herd[0]!.cacheStatus,
    );
    assert.equal(h.upstream.calls.length, 2, 'one refresh, held at the upstream while the herd was answered');
    release();
    await until(
      async () => (await h.get(QUICKSTATS)).cacheStatus.startsWith('pulse-widgets; hit'),
      'the refreshed entry',
    );
    const fresh = await h.get(QUICKSTATS);
    assert.notEqual(fresh.text, first.text);
    assert.equal(h.upstream.calls.length, 2);
  });

  test('a slow upstream (within the timeout) is waited for once by everyone', async () => {
    const { h, clock } = await harness({ upstreamTimeoutMs: 900 });
    const release = h.upstream.hold();
    const replies = Array.from({ length: 10 }, () => h.get(QUICKSTATS));
    await until(
      () => h.received() === 10 && h.upstream.calls.length === 1,
      'ten requests waiting on one call',
    );
    await clock.advance(800);
    release();
    assert.ok((await Promise.all(replies)).every((reply) => reply.status === 200));
    assert.equal(h.upstream.calls.length, 1);
  });

  test('an upstream slower than the timeout gives a 503 in our words, nothing cached, and a backoff', async () => {
    const { h, clock } = await harness({ upstreamTimeoutMs: 100 });
    const release = h.upstream.hold();
    const pending = h.get(QUICKSTATS);
    await until(() => h.upstream.calls.length === 1, 'the call sent');
    await clock.advance(100);
    const reply = await pending;
    assert.equal(reply.status, 503);
    assert.deepEqual(Object.keys((reply.json() as { error: object }).error), ['code', 'message']);
    assert.ok(Number(reply.headers.get('retry-after')) >= 1);
    assert.equal(upstreamLogLines(h.logs)[0]?.outcome, 'timeout');
    const during = await h.get(QUICKSTATS);
    assert.equal(during.status, 503, 'still backing off');
    assert.equal(h.upstream.calls.length, 1, 'no call during the backoff');
    release();
    await clock.advance(1001);
    assert.equal((await h.get(QUICKSTATS)).status, 200);
    assert.equal(h.upstream.calls.length, 2);
  });
});

describe('failures', () => {
  test('upstream down: stale within the window, then a 503 with no upstream text', async () => {
    const { h, clock } = await harness();
    const good = await h.get(QUICKSTATS);
    h.upstream.respond = () =>
      new Response('Internal error: database password hunter2', {
        status: 500,
        headers: { 'content-type': 'text/plain' },
      });
    await clock.advance(2 * TTL);
    const stale = await h.get(QUICKSTATS);
    assert.equal(stale.text, good.text);
    await settled(h, 2);
    const afterFailure = await h.get(QUICKSTATS);
    assert.equal(afterFailure.text, good.text);
    assert.match(afterFailure.cacheStatus, /fwd=stale; detail=upstream-error/);
    await clock.advance(11_000);
    const gone = await h.get(QUICKSTATS);
    assert.equal(gone.status, 503);
    assert.equal((gone.json() as { error: { code: string } }).error.code, 'upstream_unavailable');
    assert.doesNotMatch(gone.text, /hunter2|Internal error/);
    assert.ok(gone.headers.get('retry-after'));
  });

  test('upstream unreachable: stale, then 503; /readyz stays ready', async () => {
    const { h, clock } = await harness();
    await h.get(QUICKSTATS);
    await h.upstream.close();
    await clock.advance(2 * TTL);
    assert.equal((await h.get(QUICKSTATS)).status, 200);
    await settled(h, 2);
    assert.equal(upstreamLogLines(h.logs)[1]?.outcome, 'network');
    assert.equal((await h.get('/readyz')).status, 200);
    assert.equal((await h.get('/healthz')).status, 200);
    await clock.advance(11_000);
    assert.equal((await h.get(QUICKSTATS)).status, 503);
    assert.equal((await h.get('/readyz')).status, 200);
  });

  test('a 5xx during refresh keeps the entry, and the key backs off', async () => {
    const { h, clock } = await harness();
    const good = await h.get(QUICKSTATS);
    h.upstream.respond = () => jsonResponse({ message: 'busy' }, { status: 502 });
    await clock.advance(2 * TTL);
    await h.get(QUICKSTATS);
    await settled(h, 2);
    for (let i = 0; i < 5; i += 1) assert.equal((await h.get(QUICKSTATS)).text, good.text);
    assert.equal(h.upstream.calls.length, 2, 'no retry before the backoff ends');
    h.upstream.respond = validResponse;
    await clock.advance(1001);
    await h.get(QUICKSTATS);
    await settled(h, 3);
    await until(
      async () => (await h.get(QUICKSTATS)).text !== good.text,
      'the entry replaced by a good fill',
    );
  });

  const badAnswers: [string, () => Response | Promise<Response>][] = [
    ['malformed JSON', () => new Response('{"data": ', { headers: { 'content-type': 'application/json' } })],
    [
      'wrong content type',
      () =>
        new Response(JSON.stringify(validBody('quickstats', 1)), {
          headers: { 'content-type': 'text/html' },
        }),
    ],
    [
      'JSONP',
      () =>
        new Response(`cb(${JSON.stringify(validBody('quickstats', 1))})`, {
          headers: { 'content-type': 'application/javascript' },
        }),
    ],
    [
      'oversized body',
      () => jsonResponse({ ...(validBody('quickstats', 1) as object), padding: 'x'.repeat(4096) }),
    ],
    [
      'oversized body without Content-Length',
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(JSON.stringify({ padding: 'x'.repeat(4096) })));
              controller.close();
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    ],
    ['cut socket', () => new Response(cutBody(), { headers: { 'content-type': 'application/json' } })],
    ['redirect', () => new Response(null, { status: 302, headers: { location: 'https://evil.example/' } })],
  ];
  for (const [name, answer] of badAnswers) {
    test(`${name}: nothing cached, 503 in our words`, async () => {
      const { h, clock } = await harness({ maxBodyBytes: 1024 });
      h.upstream.respond = answer;
      const reply = await h.get(QUICKSTATS);
      assert.equal(reply.status, 503);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
      h.upstream.respond = validResponse;
      await clock.advance(1001);
      const next = await h.get(QUICKSTATS);
      assert.equal(next.status, 200);
      assert.match(next.cacheStatus, /fwd=miss/, 'the bad answer was not cached');
      assert.equal(h.upstream.calls.length, 2);
    });
  }

  test('an answer that cannot be read during refresh does not replace the good entry', async () => {
    const { h, clock } = await harness();
    const good = await h.get(QUICKSTATS);
    h.upstream.respond = () => jsonResponse({ data: 'nope' });
    await clock.advance(2 * TTL);
    await h.get(QUICKSTATS);
    await settled(h, 2);
    assert.equal(upstreamLogLines(h.logs)[1]?.outcome, 'invalid');
    assert.equal((await h.get(QUICKSTATS)).text, good.text);
  });
});

describe('rate limits from the upstream', () => {
  test('429 with Retry-After: no calls for the host until the cooldown ends', async () => {
    const { h, clock } = await harness();
    h.upstream.respond = () =>
      jsonResponse(
        { message: 'slow down' },
        { status: 429, headers: { 'retry-after': '3', 'x-ratelimit-remaining': '0' } },
      );
    const refused = await h.get(QUICKSTATS);
    assert.equal(refused.status, 503);
    assert.equal((refused.json() as { error: { code: string } }).error.code, 'upstream_rate_limited');
    assert.equal(refused.headers.get('retry-after'), '3');
    h.upstream.respond = validResponse;
    for (const path of [
      QUICKSTATS,
      '/live/toppages/v3/?host=example.com',
      '/live/referrers/v3/?host=example.com',
    ]) {
      assert.equal((await h.get(path)).status, 503);
    }
    await clock.advance(2000);
    assert.equal((await h.get('/live/top_geo/v1/?host=example.com')).status, 503);
    assert.equal(h.upstream.calls.length, 1, 'nothing sent during the cooldown');
    assert.equal(
      (await h.get('/live/top_geo/v1/?host=news.example.org')).status,
      200,
      'other hosts are not cooled down',
    );
    await clock.advance(1001);
    assert.equal((await h.get(QUICKSTATS)).status, 200);
    assert.equal(h.upstream.calls.length, 3);
  });

  test('X-RateLimit-Remaining: 0 on a good answer serves it, then cools the host down', async () => {
    const { h, clock } = await harness({ cooldownMs: 5000 });
    h.upstream.respond = (request, call, index) => {
      const response = validResponse(request, call, index) as Response;
      response.headers.set('x-ratelimit-remaining', '0');
      return response;
    };
    assert.equal((await h.get(QUICKSTATS)).status, 200);
    h.upstream.respond = validResponse;
    const cooled = await h.get('/live/toppages/v3/?host=example.com');
    assert.equal(cooled.status, 503);
    assert.equal(cooled.headers.get('retry-after'), '5');
    await clock.advance(2 * TTL);
    const stale = await h.get(QUICKSTATS);
    assert.match(stale.cacheStatus, /fwd=stale; detail=rate-limited/);
    assert.equal(h.upstream.calls.length, 1);
    await clock.advance(5000);
    assert.equal((await h.get('/live/toppages/v3/?host=example.com')).status, 200);
    assert.equal(h.upstream.calls.length, 2);
  });
});

describe('response headers', () => {
  test('ETag and 304, Last-Modified is the fetch time, Age grows, max-age minus Age is what remains', async () => {
    const { h, clock } = await harness({ liveTtlMs: 3000, upstreamTimeoutMs: 2000 });
    const first = await h.get(QUICKSTATS);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\/"[\w-]+"$/);
    assert.equal(first.headers.get('last-modified'), new Date(clock.now()).toUTCString());
    assert.equal(first.headers.get('age'), '0');
    assert.equal(first.headers.get('vary'), 'Accept-Encoding');
    await clock.advance(1000);
    const later = await h.get(QUICKSTATS);
    assert.equal(later.headers.get('age'), '1');
    await clock.advance(1000);
    const notModified = await h.get(QUICKSTATS, { headers: { 'if-none-match': etag } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.text, '');
    assert.equal(notModified.headers.get('age'), '2');
    assert.equal(notModified.headers.get('etag'), etag);
    assert.equal(
      notModified.headers.get('last-modified'),
      null,
      'a 304 leaves out Last-Modified, which moves with every fill',
    );
    const [, maxAge] = /max-age=(\d+)/.exec(notModified.headers.get('cache-control')!)!;
    const ttl = Number(/ttl=(-?\d+)/.exec(notModified.cacheStatus)![1]);
    assert.equal(Number(maxAge) - 2, ttl, 'max-age - Age = remaining freshness');
    assert.match(notModified.headers.get('cache-control')!, /^public, max-age=\d+$/);
    assert.equal(h.upstream.calls.length, 1);
  });

  test('gzip and br are stored once per fill and served per Accept-Encoding', async () => {
    const { h } = await harness();
    const plain = await h.get(QUICKSTATS, { headers: { 'accept-encoding': 'identity' } });
    const raw = async (encoding: string) => {
      const { request } = await import('node:http');
      return new Promise<{ encoding?: string; length: number }>((resolve, reject) => {
        request(`${h.url}${QUICKSTATS}`, { headers: { 'accept-encoding': encoding } }, (res) => {
          let length = 0;
          res.on('data', (chunk: Buffer) => (length += chunk.length));
          res.on('end', () => resolve({ encoding: res.headers['content-encoding'], length }));
        })
          .on('error', reject)
          .end();
      });
    };
    assert.equal((await raw('gzip, deflate, br')).encoding, 'br');
    assert.equal((await raw('gzip')).encoding, 'gzip');
    assert.equal((await raw('br;q=0, gzip;q=0.5')).encoding, 'gzip');
    assert.equal((await raw('identity')).encoding, undefined);
    const viaFetch = await h.get(QUICKSTATS);
    assert.equal(viaFetch.text, plain.text, 'fetch decodes the stored br to the same JSON');
    assert.equal(h.upstream.calls.length, 1);
  });

  test('raw data loses user_email and user_id unless the operator opts in', async () => {
    const raw = '/mab/htapi/v1/experiments/raw_data/?host=example.com&start=2026-11-01&end=2026-11-20&tz=UTC';
    const { h } = await harness();
    const stripped = await h.get(raw);
    assert.equal(stripped.status, 200);
    assert.doesNotMatch(stripped.text, /user_email|user_id|editor@example\.com/);
    assert.match(stripped.text, /"variant_id":"v1"/);
    assert.match(
      stripped.headers.get('cache-control')!,
      /max-age=(59|60)$/,
      'raw data keeps for 60 s, not 3',
    );
    const { h: optedIn } = await harness({ rawDataPersonalFields: true });
    assert.match((await optedIn.get(raw)).text, /"user_email":"editor@example\.com".*"user_id":42/);
  });
});

describe('bounded work', () => {
  test('memory cap: the cache never holds more bytes than configured, oldest keys go first', async () => {
    const cap = 16 * 1024;
    // One entry per limit: folding would answer all forty from one.
    // Forty new queries from one address: past the per-client meter of new queries, which is not what is tested.
    const { h } = await harness({ cacheMaxBytes: cap, budgetFills: 100, fold: false, newQueryLimit: 0 });
    h.upstream.respond = (_request, _call, index) =>
      jsonResponse({ ...(validBody('toppages', index) as object), padding: `${index}`.repeat(600) });
    for (let limit = 1; limit <= 40; limit += 1)
      assert.equal((await h.get(`/live/toppages/v3/?host=example.com&limit=${limit}`)).status, 200);
    const metrics = (await h.get('/metrics')).text;
    const bytes = Number(/^pulse_cache_bytes (\d+)$/m.exec(metrics)![1]);
    const entries = Number(/^pulse_cache_entries (\d+)$/m.exec(metrics)![1]);
    assert.ok(bytes <= cap && bytes > 0, `${bytes} bytes held`);
    assert.ok(entries < 40, `${entries} entries held`);
    await h.get('/live/toppages/v3/?host=example.com&limit=1');
    assert.equal(h.upstream.calls.length, 41, 'the first key was evicted and refilled');
  });

  test('a key nobody polls is not refreshed', async () => {
    const { h, clock } = await harness({ liveTtlMs: 3000 });
    for (let i = 0; i < 3; i += 1) {
      await h.get(QUICKSTATS);
      await clock.advance(3000);
    }
    const whilePolled = h.upstream.calls.length;
    await clock.advance(60_000);
    assert.ok(
      h.upstream.calls.length <= whilePolled + 1,
      `${h.upstream.calls.length - whilePolled} calls after the last poll (at most the one refresh-ahead already planned)`,
    );
  });
});
