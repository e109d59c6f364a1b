/**
 * The simulated upstream over real HTTP (node:http on 127.0.0.1, random port, injected clock):
 * auth, rate limit, jsonp, errors, and 3-second steps.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { histogramFields, routes } from '../src/api/index.ts';
import { listen, type RunningServer } from '../src/runtime/node-http.ts';
import { createUpstreamHandler, STEP_MS } from '../src/simulator/index.ts';

const KEY = 'sim-secret';
const LIMIT = 5;
const T0 = Date.parse('2026-03-10T14:00:00Z');
const TOPPAGES = '/live/toppages/v3/?host=example.com&limit=5&sort_by=engaged_time&loyalty=1&types=1';
const RAW = '/mab/htapi/v1/experiments/raw_data/?host=example.com&start=2026-03-01&end=2026-03-02&tz=UTC';

describe('simulated upstream over HTTP', () => {
  const clock = { now: T0 };
  let server: RunningServer;

  before(async () => {
    server = await listen(
      createUpstreamHandler({ apiKey: KEY, seed: 3, now: () => clock.now, rateLimitPerMinute: LIMIT }),
    );
  });
  after(() => server.close());

  /** Each test starts a fresh minute so the rate-limit windows of earlier tests are over. */
  let minute = 0;
  const freshMinute = () => (clock.now = T0 + ++minute * 120_000);

  const get = (path: string, init: RequestInit = {}, key: string | null = KEY) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { ...(key === null ? {} : { 'X-SVC-AK': key }), ...init.headers },
    });

  async function assertError(response: Response, status: number, code: string, param?: string) {
    const body = (await response.json()) as { error: { code: string; message: string; param?: string } };
    assert.equal(response.status, status, JSON.stringify(body));
    assert.match(response.headers.get('content-type')!, /^application\/json/);
    assert.equal(body.error.code, code);
    assert.ok(body.error.message.length > 0);
    assert.equal(body.error.param, param);
    if (param) assert.ok(body.error.message.includes(param), 'the message names the parameter');
    assert.ok(
      response.headers.has('x-ratelimit-limit') && response.headers.has('x-ratelimit-remaining'),
      'rate headers on errors too',
    );
  }

  it("answers the issue's example: five pages sorted by engaged time, with loyalty and type", async () => {
    freshMinute();
    const response = await get(TOPPAGES);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-ratelimit-limit'), String(LIMIT));
    assert.equal(response.headers.get('x-ratelimit-remaining'), String(LIMIT - 1));
    const body = routes.toppages.response.parse(await response.json());
    assert.equal(body.pages.length, 5);
    const times = body.pages.map((page) => histogramFields(page.stats?.engaged_time)!.avg!);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    assert.ok(body.pages.every((page) => page.stats?.loyalty && page.type));
    // The trailing slash is optional.
    assert.equal((await get(TOPPAGES.replace('/?', '?'))).status, 200);
  });

  it('refuses a missing key with 401 and a wrong key with 403', async () => {
    freshMinute();
    await assertError(await get(TOPPAGES, {}, null), 401, 'missing_key');
    await assertError(await get(TOPPAGES, {}, 'nope'), 403, 'bad_key');
    await assertError(await get(`${TOPPAGES}&apikey=nope`, {}, null), 403, 'bad_key');
    await assertError(await get(`${TOPPAGES}&apikey=`, {}, null), 401, 'missing_key');
  });

  it('accepts the apikey parameter on real-time endpoints, and marks it deprecated on raw data', async () => {
    freshMinute();
    const live = await get(`${TOPPAGES}&apikey=${KEY}`, {}, null);
    assert.equal(live.status, 200);
    assert.equal(live.headers.get('deprecation'), null);
    const raw = await get(`${RAW}&apikey=${KEY}`, {}, null);
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get('deprecation'), 'true');
    assert.match(raw.headers.get('warning')!, /^299 .*deprecated/);
    routes.raw_data.response.parse(await raw.json());
    const header = await get(RAW);
    assert.equal(header.status, 200);
    assert.equal(header.headers.get('deprecation'), null);
  });

  it('counts requests per host and answers 429 with Retry-After past the limit', async () => {
    const start = freshMinute();
    for (let n = 1; n <= LIMIT; n++) {
      clock.now = start + n * 1000;
      const response = await get(TOPPAGES);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-ratelimit-remaining'), String(LIMIT - n));
    }
    clock.now = start + 10_000;
    const refused = await get(TOPPAGES);
    await assertError(refused, 429, 'rate_limited');
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
    // The oldest request (at start + 1 s) leaves the sliding minute at start + 61 s.
    assert.equal(refused.headers.get('retry-after'), '51');
    const video = await get(TOPPAGES.replace('host=example.com', 'host=video@example.com'));
    assert.equal(video.status, 429, "video@ shares its site's budget");
    const other = await get(TOPPAGES.replace('example.com', 'news.example.org'));
    assert.equal(other.status, 200, 'another host has its own budget');
    assert.equal(other.headers.get('x-ratelimit-remaining'), String(LIMIT - 1));
    clock.now = start + 61_001;
    assert.equal((await get(TOPPAGES)).status, 200, 'one slot free again after the window slides');
    assert.equal((await get(TOPPAGES)).status, 429);
  });

  it('wraps jsonp in a JavaScript call and refuses names that are not identifiers', async () => {
    freshMinute();
    const response = await get('/live/quickstats/v4/?host=example.com&jsonp=onStats');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^application\/javascript/);
    const text = await response.text();
    const match = /^onStats\((.*)\);$/s.exec(text);
    assert.ok(match, text.slice(0, 80));
    routes.quickstats.response.parse(JSON.parse(match[1]!));
    await assertError(
      await get('/live/quickstats/v4/?host=example.com&jsonp=alert(1)//'),
      400,
      'bad_param',
      'jsonp',
    );
    await assertError(
      await get('/live/quickstats/v4/?host=example.com&jsonp=a.b'),
      400,
      'bad_param',
      'jsonp',
    );
    freshMinute();
    await assertError(await get(`${RAW}&jsonp=cb`), 400, 'bad_param', 'jsonp');
  });

  it('answers bad parameters with 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['/live/toppages/v3/?host=example.com&limit=0', 'limit'],
      ['/live/toppages/v3/?host=example.com&sort_by=random', 'sort_by'],
      ['/live/toppages/v3/?limit=5', 'host'],
      ['/live/toppages/v3/?host=example.com&colour=red', 'colour'],
      ['/live/summary/v3/?host=example.com', 'keys'],
      ['/live/referrers/v3/?host=example.com&by_type=yes', 'by_type'],
      ['/mab/htapi/v1/experiments/raw_data/?host=example.com&start=2026-03-01&end=2026-03-02', 'tz'],
    ];
    for (const [path, param] of cases) {
      freshMinute();
      await assertError(await get(path), 400, 'bad_param', param);
    }
  });

  it('refuses hosts it does not serve, video@ on raw data, unknown paths and other methods', async () => {
    freshMinute();
    await assertError(await get('/live/toppages/v3/?host=other.com'), 403, 'forbidden_host', 'host');
    await assertError(
      await get(RAW.replace('host=example.com', 'host=video@example.com')),
      400,
      'bad_param',
      'host',
    );
    assert.equal((await get('/live/toppages/v3/?host=video@news.example.org')).status, 200);
    await assertError(await get('/live/toppages/v2/?host=example.com'), 404, 'not_found');
    await assertError(await get('/'), 404, 'not_found');
    const post = await get(TOPPAGES, { method: 'POST' });
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    await assertError(post, 405, 'method_not_allowed');
  });

  it('returns the same bytes within a 3 s step and new data at the next', async () => {
    const start = freshMinute();
    clock.now = start + 10;
    const first = await (await get(TOPPAGES)).text();
    clock.now = start + STEP_MS - 1;
    const same = await get(TOPPAGES);
    assert.equal(same.headers.get('cache-control'), 'public, max-age=1');
    assert.equal(await same.text(), first);
    clock.now = start + STEP_MS;
    assert.notEqual(await (await get(TOPPAGES)).text(), first);
  });

  it('keeps the handler isomorphic: no node: imports outside the CLI', () => {
    for (const file of ['upstream.ts', 'rate-limit.ts', 'index.ts']) {
      const source = readFileSync(new URL(`../src/simulator/${file}`, import.meta.url), 'utf8');
      assert.doesNotMatch(source, /from ['"]node:/, file);
    }
  });
});
