/**
 * The node:http hit path answers fresh hits without the Web handler, and must answer them exactly
 * as the Web handler would: same status, headers and bytes, for every encoding, HEAD, 304, CORS
 * and the per-IP limit. Anything that is not a plain fresh hit must still reach the Web handler.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, describe, test } from 'node:test';
import { CLIENT_IP_HEADER } from '../src/runtime/node-http.ts';
import { startHarness, until, type Harness } from './helpers/cache-harness.node.ts';
import { settleWhileMoving, VirtualClock } from './helpers/virtual-clock.node.ts';

const TOPPAGES = '/live/toppages/v3/?host=example.com&limit=25';
/** Folded into TOPPAGES's group: answered from its wide fill. */
const NARROW = '/live/toppages/v3/?host=example.com&limit=5';
/** Headers node:http adds itself per connection or per second. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

interface Raw {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A request's method and header lines (an array: the header sent once per value). */
type RequestInit_ = { method?: string; headers?: Record<string, string | string[]> };

/** A request as written, the answer as bytes (no decompression, no normalisation). */
function rawGet(base: string, target: string, init: RequestInit_ = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    request({ hostname, port, path: target, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers))
          if (!TRANSPORT.has(name)) headers[name] = String(value);
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
    })
      .on('error', reject)
      .end();
  });
}

/** The same request straight to the Web handler, as a Hono or Workers deployment would run it. */
async function webGet(h: Harness, target: string, init: RequestInit_ = {}): Promise<Raw> {
  const headers = new Headers({ [CLIENT_IP_HEADER]: '127.0.0.1' });
  for (const [name, value] of Object.entries(init.headers ?? {}))
    for (const one of [value].flat()) headers.append(name, one);
  const response = await h.cache.handle(
    new Request(`http://cache.test${target}`, { method: init.method ?? 'GET', headers }),
  );
  const answered: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!TRANSPORT.has(name)) answered[name] = value;
  });
  return { status: response.status, headers: answered, body: Buffer.from(await response.arrayBuffer()) };
}

/** The hit path's answer to `target` (TOPPAGES) and the Web handler's: the same status, headers and bytes, with this Cache-Status. */
async function assertSameAnswer(
  h: Harness,
  name: string,
  init: RequestInit_,
  cacheStatus: RegExp,
  target = TOPPAGES,
): Promise<void> {
  const fast = await rawGet(h.url, target, init);
  const web = await webGet(h, target, init);
  assert.equal(fast.status, web.status, name);
  assert.deepEqual(fast.headers, web.headers, name);
  assert.ok(fast.body.equals(web.body), `${name}: same bytes`);
  assert.match(fast.headers['cache-status']!, cacheStatus, name);
}

/**
 * The cache on a `VirtualClock` that only the test moves, its answers over real sockets. Folding
 * is off (folded hits are test/server-fold-hit-path's): then no request waits on a timer (a fold
 * group gathers for 100 ms), so a miss fills while the clock stands still and the upstream's
 * timeout can never run out on a loaded machine.
 */
async function harness(options: Parameters<typeof startHarness>[0] = {}) {
  const clock = new VirtualClock();
  const h = await startHarness({ clock, fold: false, clientLimit: 0, ...options });
  after(() => h.close());
  return { h, clock };
}

describe('node:http hit path', () => {
  test('answers every kind of hit byte for byte as the Web handler does, without reaching it', async () => {
    const { h, clock } = await harness({ allowedOrigins: ['https://news.example.com'] });
    assert.equal((await rawGet(h.url, TOPPAGES)).status, 200); // the miss that fills, on the Web handler
    await clock.advance(1200); // Age 1, max-age counting down
    const etag = (await webGet(h, TOPPAGES)).headers.etag!;
    const cases: [string, RequestInit_][] = [
      ['gzip', { headers: { 'accept-encoding': 'gzip' } }],
      ['br preferred', { headers: { 'accept-encoding': 'gzip, deflate, br' } }],
      ['br refused by weight', { headers: { 'accept-encoding': 'br;q=0, gzip' } }],
      ['identity', { headers: {} }],
      ['HEAD', { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } }],
      ['If-None-Match', { headers: { 'if-none-match': etag, 'accept-encoding': 'gzip' } }],
      ['If-None-Match, another tag', { headers: { 'if-none-match': 'W/"other"' } }],
      ['allowed origin', { headers: { origin: 'https://news.example.com', 'accept-encoding': 'br' } }],
      ['other origin', { headers: { origin: 'https://evil.example' } }],
      // Read from the raw lines: any case, and repeats joined as the Web handler's Headers.get does.
      ['header names in any case', { headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': etag } }],
      ['If-None-Match twice', { headers: { 'if-none-match': ['W/"other"', etag] } }],
      ['Accept-Encoding twice', { headers: { 'accept-encoding': ['identity', 'br'] } }],
      ['Origin twice', { headers: { origin: ['https://news.example.com', 'https://evil.example'] } }],
    ];
    const before = h.received();
    for (const [name, init] of cases) await assertSameAnswer(h, name, init, /^pulse-widgets; hit/);
    // Header lines are made once and reused: a second later, Age and max-age move on.
    await clock.advance(1000);
    for (const [name, init] of cases)
      await assertSameAnswer(h, `${name}, a second later`, init, /^pulse-widgets; hit/);
    assert.equal(h.received(), before, 'no hit reached the Web handler');
    assert.equal(h.upstream.calls.length, 1);
    const metrics = (await rawGet(h.url, '/metrics')).body.toString();
    assert.match(
      metrics,
      new RegExp(`^pulse_cache_hits_total\\{route="toppages"\\} ${cases.length * 4 + 1}$`, 'm'),
      'hits on both paths are counted',
    );
  });

  test("a fold member's fresh hit, derived from its group's wide answer, byte for byte as the Web handler's", async () => {
    const { h, clock } = await harness({ fold: true });
    // A dashboard's first poll: both queries gather into one fill of the group's wide query.
    const first = await settleWhileMoving(
      clock,
      Promise.all([rawGet(h.url, TOPPAGES), rawGet(h.url, NARROW)]),
      1000,
    );
    assert.deepEqual(
      first.map((reply) => reply.status),
      [200, 200],
    );
    await clock.advance(1200);
    const etag = (await webGet(h, NARROW)).headers.etag!;
    const cases: [string, RequestInit_][] = [
      ['gzip', { headers: { 'accept-encoding': 'gzip' } }],
      ['br', { headers: { 'accept-encoding': 'gzip, deflate, br' } }],
      ['identity', { headers: {} }],
      ['HEAD', { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } }],
      ['If-None-Match', { headers: { 'if-none-match': etag } }],
    ];
    const folded =
      /^pulse-widgets; hit; detail=folded; key="\/live\/toppages\/v3\/\?host=example\.com&limit=25"/;
    const before = h.received();
    for (const [name, init] of cases) await assertSameAnswer(h, name, init, folded, NARROW);
    await clock.advance(1000);
    for (const [name, init] of cases)
      await assertSameAnswer(h, `${name}, a second later`, init, folded, NARROW);
    assert.equal(h.received(), before, 'no folded hit reached the Web handler');
    assert.equal(h.upstream.calls.length, 1, 'one fill, of the wide query');
    const metrics = (await rawGet(h.url, '/metrics')).body.toString();
    assert.match(
      metrics,
      new RegExp(`^pulse_cache_folded_total\\{route="toppages"\\} ${cases.length * 4 + 2}$`, 'm'),
      'folded answers on both paths are counted',
    );
    // Past the wide answer's freshness the member is the Web handler's again.
    await clock.advance(1000);
    const beforeStale = h.received();
    assert.match((await rawGet(h.url, NARROW)).headers['cache-status']!, /^pulse-widgets; fwd=stale/);
    assert.equal(h.received(), beforeStale + 1, 'a stale folded answer comes from the Web handler');
  });

  test('the same query written differently is one key; its first sight is parsed, later ones are not', async () => {
    const { h } = await harness();
    await rawGet(h.url, TOPPAGES);
    const before = h.received();
    for (const target of [
      '/live/toppages/v3?limit=25&host=example.com',
      '/live/toppages/v3/?host=EXAMPLE.com&limit=25&now_on=0',
    ]) {
      const reply = await rawGet(h.url, target);
      assert.equal(reply.status, 200);
      assert.match(reply.headers['cache-status']!, /^pulse-widgets; hit/);
    }
    assert.equal(h.received(), before);
    assert.equal(h.upstream.calls.length, 1);
  });

  test('leaves to the Web handler whatever is not a plain fresh hit', async () => {
    const { h, clock } = await harness({ staleWindowMs: 60_000 });
    await rawGet(h.url, TOPPAGES);
    const web: [string, { method?: string; headers?: Record<string, string> }, number][] = [
      [`${TOPPAGES}&apikey=x`, {}, 400],
      [`${TOPPAGES}&limit=2`, {}, 400],
      ['/live/toppages/v3/?host=evil.example', {}, 403],
      ['/live/./toppages/v3/?host=example.com&limit=25', {}, 200],
      [TOPPAGES, { method: 'OPTIONS' }, 204],
      [TOPPAGES, { method: 'POST' }, 405],
      ['/healthz', {}, 200],
    ];
    for (const [target, init, status] of web) {
      const before = h.received();
      const reply = await rawGet(h.url, target, init);
      assert.equal(reply.status, status, `${init.method ?? 'GET'} ${target}: ${reply.body}`);
      assert.equal(h.received(), before + 1, `${init.method ?? 'GET'} ${target} reached the Web handler`);
    }
    // Past its freshness, younger than two intervals: answered stale at once (an older copy would wait for the fill).
    await clock.advance(4_000);
    const before = h.received();
    const stale = await rawGet(h.url, TOPPAGES);
    assert.match(stale.headers['cache-status']!, /^pulse-widgets; fwd=stale/);
    assert.equal(h.received(), before + 1, 'a stale answer comes from the Web handler');
  });

  test('while a refill is in flight, answers the stale entry as the Web handler does, without reaching it', async () => {
    const { h, clock } = await harness({ staleWindowMs: 60_000 });
    await rawGet(h.url, TOPPAGES);
    await clock.advance(4_000);
    const release = h.upstream.hold();
    // The first request past freshness reaches the Web handler, which answers stale and starts the refill.
    assert.match(
      (await rawGet(h.url, TOPPAGES)).headers['cache-status']!,
      /^pulse-widgets; fwd=stale; detail=refreshing/,
    );
    await h.upstream.arrived(2);
    const etag = (await webGet(h, TOPPAGES)).headers.etag!;
    const before = h.received();
    const cases: [string, RequestInit_][] = [
      ['gzip', { headers: { 'accept-encoding': 'gzip' } }],
      ['HEAD', { method: 'HEAD', headers: { 'accept-encoding': 'br' } }],
      ['If-None-Match', { headers: { 'if-none-match': etag } }],
    ];
    for (const [name, init] of cases)
      await assertSameAnswer(h, name, init, /^pulse-widgets; fwd=stale; detail=refreshing/);
    assert.equal(h.received(), before, 'no answer during the refill reached the Web handler');
    const metrics = (await rawGet(h.url, '/metrics')).body.toString();
    assert.match(
      metrics,
      new RegExp(
        `^pulse_cache_stale_serves_total\\{route="toppages",detail="refreshing"\\} ${cases.length * 2 + 2}$`,
        'm',
      ),
      'stale answers on both paths are counted',
    );
    release();
    await until(
      async () => /^pulse-widgets; hit/.test((await rawGet(h.url, TOPPAGES)).headers['cache-status']!),
      'the refill landed',
    );
    assert.equal(h.upstream.calls.length, 2, 'one refill');
  });

  test('counts hits against the per-IP limit: 429 with Retry-After and CORS past it', async () => {
    const { h } = await harness({ clientLimit: 3, allowedOrigins: ['*'] });
    assert.equal((await rawGet(h.url, TOPPAGES)).status, 200);
    const before = h.received();
    assert.equal((await rawGet(h.url, TOPPAGES)).status, 200);
    assert.equal((await rawGet(h.url, TOPPAGES)).status, 200);
    const refused = await rawGet(h.url, TOPPAGES, { headers: { origin: 'https://any.example' } });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.equal(refused.headers['access-control-allow-origin'], '*');
    assert.equal(JSON.parse(refused.body.toString()).error.code, 'too_many_requests');
    assert.equal(h.received(), before, 'the hits and the refusal came from the hit path');
  });

  test('a folded hit refused by the per-IP limit is not counted as a folded answer', async () => {
    const { h, clock } = await harness({ fold: true, clientLimit: 4 });
    const first = settleWhileMoving(
      clock,
      Promise.all([rawGet(h.url, TOPPAGES), rawGet(h.url, NARROW)]),
      1000,
    );
    assert.deepEqual(
      (await first).map((reply) => reply.status),
      [200, 200],
    );
    await clock.advance(1200);
    const before = h.received();
    const statuses: number[] = [];
    for (let poll = 0; poll < 4; poll += 1) statuses.push((await rawGet(h.url, NARROW)).status);
    assert.deepEqual(statuses, [200, 200, 429, 429], 'two folded hits, then two past the limit');
    assert.equal(h.received(), before, 'all four on the hit path');
    const folded = (await h.cache.registry.getSingleMetric('pulse_cache_folded_total')?.get())?.values;
    assert.deepEqual(
      folded?.map(({ labels, value }) => [labels.route, value]),
      [['toppages', 3]],
      'the first answer and the two folded hits sent',
    );
  });

  test('a custom clientIp with a limit sends every request to the Web handler, which can read it', async () => {
    const { h } = await harness({
      clientLimit: 2,
      clientIp: (request) => request.headers.get('x-real-ip') ?? undefined,
    });
    await rawGet(h.url, TOPPAGES, { headers: { 'x-real-ip': '198.51.100.1' } });
    await rawGet(h.url, TOPPAGES, { headers: { 'x-real-ip': '198.51.100.1' } });
    assert.equal((await rawGet(h.url, TOPPAGES, { headers: { 'x-real-ip': '198.51.100.1' } })).status, 429);
    assert.equal((await rawGet(h.url, TOPPAGES, { headers: { 'x-real-ip': '198.51.100.2' } })).status, 200);
    assert.equal(h.received(), 4);
  });
});
