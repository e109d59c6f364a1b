/**
 * What the endpoint lets through: hostile inputs never reach the upstream, the upstream request
 * is built from scratch, the key appears in no response and no log line, CORS only for listed
 * origins, and the operations routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API_KEY, rawRequest, startHarness, type Harness } from './helpers/cache-harness.node.ts';

describe('hostile input never reaches the upstream', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const refused: [string, number, string?][] = [
    ['/live/toppages/v3/?host=example.com&jsonp=steal', 400, 'jsonp'],
    ['/live/toppages/v3/?host=example.com&callback=steal', 400, 'callback'],
    ['/live/toppages/v3/?host=example.com&apikey=mine', 400, 'apikey'],
    ['/live/toppages/v3/?host=example.com&APIKEY=mine', 400, 'APIKEY'],
    ['/live/toppages/v3/?host=example.com&debug=1', 400, 'debug'],
    ['/live/toppages/v3/?host=example.com&limit=100000', 400, 'limit'],
    ['/live/toppages/v3/?host=example.com&limit=-1', 400, 'limit'],
    ['/live/toppages/v3/?host=example.com&limit=1e3', 400, 'limit'],
    ['/live/toppages/v3/?host=example.com&limit=5&limit=6', 400, 'limit'],
    ['/live/toppages/v3/?host=example.com&sort_by=__proto__', 400, 'sort_by'],
    ['/live/toppages/v3/', 400, 'host'],
    ['/live/toppages/v3/?host=evil.example', 403, 'host'],
    ['/live/toppages/v3/?host=https://evil.example/', 400, 'host'],
    ['/live/toppages/v3/?host=example.com%0d%0aX-SVC-AK:%20x', 400, 'host'],
    ['/live/quickstats/v4/?host=example.com&path=../../admin', 400, 'path'],
    ['/live/quickstats/v4/?host=example.com&path=/news/../../admin', 400, 'path'],
    ['/live/quickstats/v4/?host=example.com&path=/news/%2e%2e/admin', 400, 'path'],
    ['/live/quickstats/v4/?host=example.com&path=/news%2F..%2Fadmin', 400, 'path'],
    ['/live/quickstats/v4/?host=example.com&path=http://evil.example/x', 400, 'path'],
    ['/live/quickstats/v4/?host=example.com&path=//evil.example/x', 400, 'path'],
    ['/live/quickstats/v4/?host=example.com&path=/x%00y', 400, 'path'],
    [
      '/mab/htapi/v1/experiments/raw_data/?host=example.com&start=2026-11-20&end=2026-11-01&tz=UTC',
      400,
      'end',
    ],
    [
      '/mab/htapi/v1/experiments/raw_data/?host=example.com&start=2026-11-01&end=2026-11-20&tz=Mars/Olympus',
      400,
      'tz',
    ],
    ['/live/toppages%2Fv3/?host=example.com', 404],
    ['/live/toppages/v3/../../../etc/passwd', 404],
    ['/live/toppages/v3/..%2F..%2Fadmin?host=example.com', 404],
    ['/live/toppages/v4/?host=example.com', 404],
    ['/admin', 404],
    [`/live/toppages/v3/?host=example.com&section=${'a'.repeat(5000)}`, 414],
  ];
  for (const [target, status, param] of refused) {
    test(`${target.slice(0, 90)} → ${status}${param ? ` naming ${param}` : ''}`, async () => {
      const reply = await rawRequest(h.url, target);
      assert.equal(reply.status, status, reply.body);
      const { error } = JSON.parse(reply.body) as {
        error: { code: string; message: string; param?: string };
      };
      assert.equal(typeof error.message, 'string');
      if (param) assert.equal(error.param, param);
      assert.equal(reply.headers['cache-control'], 'no-store');
      assert.equal(h.upstream.calls.length, 0);
    });
  }

  test('methods other than GET/HEAD are 405, OPTIONS is answered', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const reply = await rawRequest(h.url, '/live/toppages/v3/?host=example.com', { method });
      assert.equal(reply.status, 405);
      assert.equal(reply.headers.allow, 'GET, HEAD, OPTIONS');
    }
    assert.equal(
      (await rawRequest(h.url, '/live/toppages/v3/?host=example.com', { method: 'OPTIONS' })).status,
      204,
    );
    assert.equal(h.upstream.calls.length, 0);
  });

  test('an absolute-form request target still goes only to the configured upstream', async () => {
    const reply = await rawRequest(h.url, 'http://evil.example/live/top_geo/v1/?host=example.com');
    assert.equal(reply.status, 200);
    assert.equal(h.upstream.calls.length, 1);
    assert.equal(h.upstream.calls[0]!.url.origin, h.upstream.url);
  });
});

describe('the upstream request is built from scratch', () => {
  test('only X-SVC-AK, Accept and User-Agent; canonical query; nothing from the client', async () => {
    const h = await startHarness();
    after(() => h.close());
    await h.get('/live/toppages/v3?types=1&host=example.com&limit=5&section=b,a,a', {
      headers: {
        cookie: 'session=1',
        authorization: 'Bearer x',
        'x-forwarded-for': '10.0.0.1',
        referer: 'https://x/',
        'x-svc-ak': 'client-key',
      },
    });
    const [call] = h.upstream.calls;
    assert.ok(call);
    assert.equal(call.url.pathname, '/live/toppages/v3/');
    assert.equal(call.url.search, '?host=example.com&limit=5&section=a%2Cb&types=1');
    const names = [...call.headers.keys()].filter(
      (name) => name !== 'host' && name !== 'connection' && name !== 'x-pulse-client-ip',
    );
    assert.deepEqual(names.sort(), ['accept', 'user-agent', 'x-svc-ak']);
    assert.equal(call.headers.get('x-svc-ak'), API_KEY);
    assert.equal(call.headers.get('accept'), 'application/json');
    assert.match(call.headers.get('user-agent')!, /^pulse-widgets\/\d+\.\d+\.\d+/);
  });

  test('an upstream base with a path prefix keeps it', async () => {
    const h = await startHarness();
    after(() => h.close());
    const prefixed = await startHarness({ upstream: `${h.upstream.url}/api/v2/` }, h.upstream);
    after(() => prefixed.close());
    await prefixed.get('/live/top_geo/v1/?host=example.com');
    assert.equal(h.upstream.calls[0]!.url.pathname, '/api/v2/live/top_geo/v1/');
  });
});

describe('the key never leaves', () => {
  test('absent from every response header and body, and from captured logs', async () => {
    const h = await startHarness({ upstreamTimeoutMs: 200, allowedOrigins: ['https://news.example.com'] });
    after(() => h.close());
    const paths = [
      '/live/quickstats/v4/?host=example.com',
      '/live/toppages/v3/?host=example.com&jsonp=x',
      '/live/toppages/v3/?host=evil.example',
      '/nope',
      '/metrics',
      '/healthz',
      '/readyz',
    ];
    for (const path of paths) await h.get(path, { headers: { origin: 'https://news.example.com' } });
    h.upstream.respond = () =>
      new Response(`key was ${API_KEY}`, { status: 500, headers: { 'x-echo': API_KEY } });
    await h.get('/live/referrers/v3/?host=example.com');
    h.upstream.respond = () => new Response(null, { status: 401 });
    await h.get('/live/summary/v3/?host=example.com&keys=new');
    h.upstream.respond = () => new Response(null, { status: 429, headers: { 'retry-after': '1' } });
    await h.get('/live/top_geo/v1/?host=example.com');
    assert.ok(h.seen.length > 20);
    for (const text of h.seen)
      assert.ok(!text.includes(API_KEY), `key found in a response: ${text.slice(0, 80)}`);
    assert.ok(h.logs.length >= 4, 'one log line per upstream call');
    for (const line of h.logs) assert.ok(!line.includes(API_KEY), `key found in a log line: ${line}`);
  });

  test('the default logger censors the key should anything hand it over', async () => {
    const { Writable } = await import('node:stream');
    const { createLogger } = await import('../src/server/http/handler.ts');
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write: (chunk, _e, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    logger.info({ apiKey: API_KEY, request: { headers: { 'x-svc-ak': API_KEY } } }, 'careless');
    assert.equal(lines.length, 1);
    assert.ok(!lines[0]!.includes(API_KEY));
  });
});

describe('CORS', () => {
  test('unset: no CORS headers at all, same-origin only', async () => {
    const h = await startHarness();
    after(() => h.close());
    const reply = await h.get('/live/top_geo/v1/?host=example.com', {
      headers: { origin: 'https://news.example.com' },
    });
    assert.equal(reply.status, 200);
    for (const name of reply.headers.keys()) assert.ok(!name.startsWith('access-control-'), name);
  });

  test('listed origins are allowed without credentials; others get nothing', async () => {
    const h = await startHarness({ allowedOrigins: ['https://news.example.com'] });
    after(() => h.close());
    const path = '/live/top_geo/v1/?host=example.com';
    const allowed = await h.get(path, { headers: { origin: 'https://news.example.com' } });
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://news.example.com');
    assert.equal(allowed.headers.get('access-control-allow-credentials'), null);
    assert.match(allowed.headers.get('access-control-expose-headers')!, /Cache-Status/);
    assert.match(allowed.headers.get('vary')!, /Origin/);
    const denied = await h.get(path, { headers: { origin: 'https://evil.example' } });
    assert.equal(denied.headers.get('access-control-allow-origin'), null);
    const badParam = await h.get('/live/top_geo/v1/?host=example.com&jsonp=x', {
      headers: { origin: 'https://news.example.com' },
    });
    assert.equal(
      badParam.headers.get('access-control-allow-origin'),
      'https://news.example.com',
      'errors are readable by allowed pages too',
    );

    const preflight = await h.get(path, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://news.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://news.example.com');
    assert.match(preflight.headers.get('access-control-allow-headers')!, /If-None-Match/);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, HEAD');
    const deniedPreflight = await h.get(path, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(deniedPreflight.headers.get('access-control-allow-origin'), null);
    assert.equal(h.upstream.calls.length, 1);
  });
});

describe('operations', () => {
  test('/healthz, /readyz and /metrics with the counters', async () => {
    const h = await startHarness({ prefix: '/pulse' });
    after(() => h.close());
    await h.get('/pulse/live/top_geo/v1/?host=example.com');
    await h.get('/pulse/live/top_geo/v1/?host=example.com');
    assert.deepEqual((await h.get('/pulse/healthz')).json(), { status: 'ok' });
    assert.deepEqual((await h.get('/pulse/readyz')).json(), { status: 'ready' });
    assert.equal(
      (await h.get('/live/top_geo/v1/?host=example.com')).status,
      404,
      'routes live under the prefix',
    );
    const metrics = (await h.get('/pulse/metrics')).text;
    assert.match(metrics, /^pulse_cache_hits_total\{route="top_geo"\} 1$/m);
    assert.match(metrics, /^pulse_cache_misses_total\{route="top_geo"\} 1$/m);
    assert.match(metrics, /^pulse_upstream_calls_total\{route="top_geo",status="200"\} 1$/m);
    assert.match(metrics, /^pulse_cache_bytes \d+$/m);
    assert.match(metrics, /^# TYPE pulse_budget_waits_total counter$/m);
    assert.match(metrics, /^# TYPE pulse_cache_stale_serves_total counter$/m);
    const line = JSON.parse(h.logs.find((one) => one.includes('"upstream call"'))!);
    assert.deepEqual(
      { route: line.route, query: line.query, status: line.status, outcome: line.outcome },
      { route: 'top_geo', query: 'host=example.com', status: 200, outcome: 'ok' },
    );
    assert.equal(typeof line.ms, 'number');
  });
});
