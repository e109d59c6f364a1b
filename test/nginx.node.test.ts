/**
 * The nginx recipe (examples/nginx/pulse-cache.conf) for real: Debian's nginx on loopback in
 * front of the simulated upstream. The widgets' contract must hold through it: bodies valid,
 * the key never reaches the page, one upstream fill per key under a herd, hostile queries refused
 * before they cost an upstream call, stale data while the upstream is down.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { routes } from '../src/api/index.ts';
import { listen, type RunningServer } from '../src/runtime/node-http.ts';
import { createUpstreamHandler, DEMO_HOSTS } from '../src/simulator/index.ts';
import { NGINX_MISSING } from '../scripts/servers.mjs';
import { startNginx, type NginxProcess } from './helpers/nginx-process.node.ts';

const API_KEY = 'nginx-test-key-3f9c0d';
const HOST = DEMO_HOSTS[0]!;

describe('nginx micro-cache recipe', { skip: NGINX_MISSING }, () => {
  let upstream: RunningServer;
  let nginx: NginxProcess;
  let upstreamCalls: URL[] = [];
  let upstreamEncodings: (string | null)[] = [];
  let upstreamDown = false;

  before(async () => {
    const simulator = createUpstreamHandler({ apiKey: API_KEY, rateLimitPerMinute: 10_000 });
    // The service answers gzip to callers that ask for it (as behind any compressing proxy).
    upstream = await listen(async (incoming) => {
      upstreamCalls.push(new URL(incoming.url));
      upstreamEncodings.push(incoming.headers.get('accept-encoding'));
      if (upstreamDown) return new Response('upstream exploded', { status: 502 });
      const response = await simulator(incoming);
      if (response.status !== 200 || !incoming.headers.get('accept-encoding')?.includes('gzip'))
        return response;
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      headers.set('content-encoding', 'gzip');
      return new Response(gzipSync(Buffer.from(await response.arrayBuffer())), { status: 200, headers });
    });
    nginx = await startNginx({ upstream: upstream.url, apiKey: API_KEY, hosts: DEMO_HOSTS });
  });

  after(async () => {
    await nginx?.close();
    await upstream?.close();
  });

  /** Bytes as sent (fetch would unzip them) and every Cache-Control header line. */
  function rawGet(
    base: string,
    target: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; headers: Record<string, unknown>; cacheControl: string[]; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const { hostname, port } = new URL(base);
      request({ hostname, port, path: target, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const cacheControl: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            if (res.rawHeaders[i]!.toLowerCase() === 'cache-control')
              cacheControl.push(res.rawHeaders[i + 1]!);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            cacheControl,
            body: Buffer.concat(chunks),
          });
        });
      })
        .on('error', reject)
        .end();
    });
  }

  async function get(pathAndQuery: string, init?: RequestInit) {
    const response = await fetch(`${nginx.url}${pathAndQuery}`, init);
    const text = await response.text();
    assert.ok(!text.includes(API_KEY), 'the key must not appear in a body');
    for (const [name, value] of response.headers)
      assert.ok(!value.includes(API_KEY), `the key must not appear in ${name}`);
    return { response, text };
  }

  it('serves every live route with a body the contract accepts, and adds the key itself', async () => {
    const queries: [keyof typeof routes, string][] = [
      ['toppages', `host=${HOST}&limit=5&sort_by=engaged_time&loyalty=1&types=1`],
      ['summary', `host=${HOST}&keys=title,time_spent`],
      ['referrers', `host=${HOST}`],
      ['top_geo', `host=${HOST}`],
      ['quickstats', `host=${HOST}&all_platforms=1`],
    ];
    for (const [name, query] of queries) {
      const { response, text } = await get(`${routes[name].path}?${query}`);
      assert.equal(response.status, 200, `${name}: ${text}`);
      assert.ok(routes[name].response.safeParse(JSON.parse(text)).success, `${name} body must validate`);
    }
    assert.ok(upstreamCalls.length >= queries.length);
  });

  it('fills a cold key once under a herd of 40, then serves hits', async () => {
    upstreamCalls = [];
    const path = `/live/referrers/v3/?host=${HOST}&limit=7`;
    const herd = await Promise.all(Array.from({ length: 40 }, () => get(path)));
    assert.ok(herd.every(({ response }) => response.status === 200));
    assert.equal(new Set(herd.map(({ text }) => text)).size, 1, 'every viewer sees the same body');
    assert.equal(upstreamCalls.length, 1);
    const again = await get(path);
    assert.match(again.response.headers.get('cache-status') ?? '', /HIT/);
    assert.equal(upstreamCalls.length, 1);
  });

  it('caches the gzipped body: sent as stored to gzip clients, unzipped for the others, with one Cache-Control', async () => {
    upstreamCalls = [];
    upstreamEncodings = [];
    const path = `/live/top_geo/v1/?host=${HOST}&limit=4`;
    const gzipped = await rawGet(nginx.url, path, { 'accept-encoding': 'gzip' });
    const plain = await rawGet(nginx.url, path, {});
    assert.equal(gzipped.status, 200);
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(
      JSON.parse(gunzipSync(gzipped.body).toString()),
      JSON.parse(plain.body.toString()),
      'the same answer either way',
    );
    assert.deepEqual(upstreamEncodings, ['gzip'], 'one fill, asked for gzip');
    for (const reply of [gzipped, plain]) {
      assert.equal(
        reply.cacheControl.length,
        1,
        `one Cache-Control header, got ${JSON.stringify(reply.cacheControl)}`,
      );
      assert.equal(reply.cacheControl[0], 'public, max-age=1');
    }
  });

  it('refuses key, jsonp and callback parameters, other hosts, other paths and methods without an upstream call', async () => {
    upstreamCalls = [];
    const refusals: [string, number, RequestInit?][] = [
      [`/live/toppages/v3/?host=${HOST}&apikey=stolen`, 400],
      [`/live/toppages/v3/?host=${HOST}&jsonp=steal`, 400],
      [`/live/toppages/v3/?callback=steal&host=${HOST}`, 400],
      ['/live/toppages/v3/?host=evil.example', 403],
      [`/live/toppages/v2/?host=${HOST}`, 404],
      [`/../etc/passwd`, 404],
      [`/live/toppages/v3/?host=${HOST}`, 405, { method: 'POST', body: 'x' }],
    ];
    for (const [path, status, init] of refusals) {
      const { response, text } = await get(path, init);
      assert.equal(response.status, status, `${path}: ${text}`);
      assert.ok(JSON.parse(text).error.code, `${path} answers our JSON error shape`);
    }
    assert.equal(upstreamCalls.length, 0);
  });

  it('serves stale data while the upstream fails', async () => {
    const path = `/live/top_geo/v1/?host=${HOST}&limit=3`;
    const fresh = await get(path);
    assert.equal(fresh.response.status, 200);
    upstreamDown = true;
    try {
      await new Promise((resolve) => setTimeout(resolve, 4200)); // the recipe's 3 s validity, counted by nginx in whole seconds, must pass
      const stale = await get(path);
      assert.equal(stale.response.status, 200);
      assert.equal(stale.text, fresh.text);
      assert.match(stale.response.headers.get('cache-status') ?? '', /STALE|UPDATING/);
    } finally {
      upstreamDown = false;
    }
  });
});
