/**
 * The same-origin recipes for real: what `pulse-widgets proxy-config nginx|apache` prints (the
 * command itself runs in test/packed-package.node.test.ts), put in Debian's nginx and apache2 on loopback in front of `serve --prefix /pulse --trust-proxy
 * 127.0.0.1` (in demo mode, in this process). Through each:
 * every path the elements use answers, the site's own `/live/` page is not shadowed, `/metrics`
 * stays private, gzip bodies and ETags pass as the endpoint sent them, and the per-IP limit
 * counts readers, not the proxy: distinct readers through the proxy have a limit each, while a
 * reader's own X-Forwarded-For (through the proxy or straight to the endpoint) changes nothing.
 *
 * Readers are told apart by the loopback address they connect from (127.0.0.0/8 is all local).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { routes } from '../src/api/index.ts';
import { createLogger } from '../src/server/http/handler.ts';
import { proxyConfig, readProxyConfigArgs } from '../src/server/proxy-config.ts';
import { serve, type RunningEndpoint } from '../src/server/serve.ts';
import { readSettings } from '../src/server/config/settings.ts';
import { APACHE_MISSING, NGINX_MISSING } from '../scripts/servers.mjs';
import { startApache } from './helpers/apache-process.node.ts';
import { startNginx } from './helpers/nginx-process.node.ts';

const PREFIX = '/pulse';
const LIMIT = 4;
const HOST = 'example.com';
const OWN_LIVE_PAGE = "the newsroom's own Live page";

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET as sent and received on the wire (no decompression), from a chosen loopback address. */
function get(
  base: string,
  target: string,
  { from = '127.0.0.1', headers = {} }: { from?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    request({ hostname, port, path: target, headers, localAddress: from, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** Each proxy, with how to start it around the printed configuration; skipped with one line when missing. */
const PROXIES = [
  {
    name: 'nginx' as const,
    missing: NGINX_MISSING,
    start: (config: string, endpoint: string) =>
      startNginx({
        upstream: endpoint,
        apiKey: 'unused',
        hosts: [],
        site: `server {\n    listen __LISTEN__;\n    location / { default_type text/plain; return 200 "${OWN_LIVE_PAGE}\\n"; }\n${config}\n}\n`,
      }),
  },
  {
    name: 'apache' as const,
    missing: APACHE_MISSING,
    start: (config: string) => startApache(config, { 'live/index.html': `${OWN_LIVE_PAGE}\n` }),
  },
];

describe('proxy-config', () => {
  let endpoint: RunningEndpoint;
  /** A new reader address per check, so checks do not share a limit. */
  let nextReader = 10;
  const reader = () => `127.0.0.${(nextReader += 1)}`;

  before(async () => {
    const result = readSettings(
      [
        'serve',
        '--prefix',
        PREFIX,
        '--trust-proxy',
        '127.0.0.1',
        '--client-limit',
        String(LIMIT),
        '--port',
        '0',
        '--workers',
        '1',
      ],
      {},
    );
    assert.ok('settings' in result, JSON.stringify(result));
    endpoint = await serve(result.settings, createLogger('silent'));
  });

  after(() => endpoint?.close());

  test('refuses a missing server, an empty prefix and an upstream with a path, in one line', () => {
    for (const args of [
      ['proxy-config'],
      ['proxy-config', 'iis'],
      ['proxy-config', 'nginx', '--prefix', '/'],
      ['proxy-config', 'nginx', '--upstream', 'http://127.0.0.1:8080/pulse'],
      ['proxy-config', 'nginx', '--upstream', 'ftp://127.0.0.1'],
    ]) {
      const read = readProxyConfigArgs(args);
      assert.ok('error' in read && !read.error.includes('\n'), args.join(' '));
    }
    assert.deepEqual(readProxyConfigArgs(['proxy-config', 'nginx']), {
      server: 'nginx',
      options: { prefix: '/pulse', upstream: new URL('http://127.0.0.1:8080') },
    });
  });

  for (const proxy of PROXIES) {
    describe(`behind ${proxy.name}`, { skip: proxy.missing }, () => {
      let front: { url: string; close(): Promise<void> };

      before(async () => {
        front = await proxy.start(
          proxyConfig(proxy.name, { prefix: PREFIX, upstream: new URL(endpoint.url) }),
          endpoint.url,
        );
      });

      after(() => front?.close());

      test('every path the elements use answers through the prefix; the site keeps its own /live/', async () => {
        const today = new Date().toISOString().slice(0, 10);
        const targets = [
          `${routes.toppages.path}?host=${HOST}&limit=3`,
          `${routes.quickstats.path}?host=${HOST}`,
          `/history/v1/?host=${HOST}`,
          `${routes.raw_data.path}?host=${HOST}&start=${today}&end=${today}&tz=UTC`,
          '/healthz',
        ];
        for (const target of targets) {
          const reply = await get(front.url, `${PREFIX}${target}`, { from: reader() });
          assert.equal(reply.status, 200, `${target}: ${reply.body}`);
          assert.ok(JSON.parse(reply.body.toString()), target);
        }
        const own = await get(front.url, '/live/', { from: reader() });
        assert.equal(own.status, 200, "the site's /live/");
        assert.equal(own.body.toString(), `${OWN_LIVE_PAGE}\n`);
      });

      test('/metrics is not served through the proxy', async () => {
        const reply = await get(front.url, `${PREFIX}/metrics`, { from: reader() });
        assert.ok(reply.status === 403 || reply.status === 404, String(reply.status));
        assert.doesNotMatch(reply.body.toString(), /pulse_/);
      });

      test('gzip passes as the endpoint stored it: the same bytes, ETag and a 304 to If-None-Match', async () => {
        // Raw data, cold here (a limit of this proxy's own): its entry stays fresh a minute from this
        // first request, so all four see one entry. A live route's entry is refilled on the 3 s grid,
        // and a tick falling between the requests gave the revalidation a new ETag (200, not 304).
        const today = new Date().toISOString().slice(0, 10);
        const limit = 50 + PROXIES.indexOf(proxy);
        const target = `${PREFIX}${routes.raw_data.path}?host=${HOST}&start=${today}&end=${today}&tz=UTC&limit=${limit}`;
        const gzip = { 'accept-encoding': 'gzip' };
        const viaProxy = await get(front.url, target, { from: reader(), headers: gzip });
        const direct = await get(endpoint.url, target, { from: reader(), headers: gzip });
        assert.equal(viaProxy.headers['content-encoding'], 'gzip');
        assert.equal(viaProxy.headers.etag, direct.headers.etag);
        assert.deepEqual(
          JSON.parse(gunzipSync(viaProxy.body).toString()),
          JSON.parse(gunzipSync(direct.body).toString()),
        );
        const plain = await get(front.url, target, { from: reader() });
        assert.equal(plain.headers['content-encoding'], undefined);
        const revalidated = await get(front.url, target, {
          from: reader(),
          headers: { ...gzip, 'if-none-match': String(viaProxy.headers.etag) },
        });
        assert.equal(revalidated.status, 304);
      });

      test('readers behind the proxy are counted apart: each has its own limit', async () => {
        const target = `${PREFIX}${routes.top_geo.path}?host=${HOST}`;
        const [first, second] = [reader(), reader()];
        for (let i = 0; i < LIMIT; i += 1)
          assert.equal((await get(front.url, target, { from: first })).status, 200);
        assert.equal(
          (await get(front.url, target, { from: first })).status,
          429,
          'the first reader is past the limit',
        );
        for (let i = 0; i < LIMIT; i += 1)
          assert.equal(
            (await get(front.url, target, { from: second })).status,
            200,
            'the second reader is not',
          );
      });

      test("a reader's own X-Forwarded-For or Forwarded, through the proxy, changes nothing", async () => {
        const from = reader();
        const statuses: number[] = [];
        for (let i = 0; i <= LIMIT; i += 1) {
          const spoof: Record<string, string> =
            i % 2 === 0 ? { 'x-forwarded-for': `198.51.100.${i}` } : { forwarded: `for=198.51.100.${i}` };
          statuses.push(
            (await get(front.url, `${PREFIX}${routes.top_geo.path}?host=${HOST}`, { from, headers: spoof }))
              .status,
          );
        }
        assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(200), 429]);
      });

      test('X-Forwarded-For sent straight to the endpoint, not from the proxy, is ignored', async () => {
        const from = reader();
        const statuses: number[] = [];
        for (let i = 0; i <= LIMIT; i += 1) {
          statuses.push(
            (
              await get(endpoint.url, `${PREFIX}${routes.top_geo.path}?host=${HOST}`, {
                from,
                headers: { 'x-forwarded-for': `198.51.100.${i}` },
              })
            ).status,
          );
        }
        assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(200), 429]);
      });
    });
  }
});
