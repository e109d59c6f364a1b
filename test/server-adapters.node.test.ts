/**
 * The endpoint inside other servers (node:http/Express-style middleware, Vite plugin), what the
 * standalone server puts at `/` (a built static directory, or the list of routes), and how
 * `listen()` closes.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createServer as createViteServer } from 'vite';
import { createCacheMiddleware, pulseWidgetsVitePlugin } from '../src/server/adapters.ts';
import { createCacheHandler, createLogger } from '../src/server/http/handler.ts';
import { createIndexPage } from '../src/server/index-page.ts';
import { listen } from '../src/runtime/node-http.ts';
import { createStaticHandler } from '../src/server/static-files.ts';
import { API_KEY, HOSTS, rawRequest } from './helpers/cache-harness.node.ts';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.node.ts';
import { VirtualClock } from './helpers/virtual-clock.node.ts';

let upstream: FakeUpstream;
before(async () => {
  upstream = await startFakeUpstream();
});
after(() => upstream.close());

const cacheOptions = () => ({
  upstream: upstream.url,
  apiKey: API_KEY,
  hosts: HOSTS,
  prefix: '/pulse',
  logger: createLogger('silent'),
});

describe('middleware', () => {
  test('serves its routes under the prefix and passes everything else to next()', async () => {
    const cache = createCacheHandler(cacheOptions());
    after(() => cache.close());
    const middleware = createCacheMiddleware(cache);
    const server = createServer((req, res) =>
      middleware(req, res, () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('the app');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const data = await rawRequest(base, '/pulse/live/top_geo/v1/?host=example.com');
    assert.equal(data.status, 200);
    assert.match(String(data.headers['cache-status']), /^pulse-widgets; fwd=miss/);
    assert.equal((await rawRequest(base, '/pulse/healthz')).status, 200);
    assert.equal((await rawRequest(base, '/')).body, 'the app');
    assert.equal((await rawRequest(base, '/live/top_geo/v1/?host=example.com')).body, 'the app');
  });
});

describe('Vite plugin', () => {
  test('mounts the endpoint on the dev server under the prefix', async () => {
    const root = await mkdtemp(join(tmpdir(), 'pulse-vite-'));
    after(() => rm(root, { recursive: true, force: true }));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>app</title>');
    const vite = await createViteServer({
      root,
      configFile: false,
      logLevel: 'silent',
      server: { middlewareMode: true, hmr: false, watch: null },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [pulseWidgetsVitePlugin(cacheOptions())],
    });
    const server = createServer(vite.middlewares);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await vite.close();
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const data = await rawRequest(base, '/pulse/live/referrers/v3/?host=example.com');
    assert.equal(data.status, 200);
    assert.deepEqual(Object.keys(JSON.parse(data.body)), ['referrers']);
    assert.equal((await rawRequest(base, '/pulse/live/referrers/v3/?host=evil.example')).status, 403);
  });
});

describe('static directory', () => {
  let parent: string;
  let base: string;
  let close: () => Promise<void>;
  before(async () => {
    parent = await mkdtemp(join(tmpdir(), 'pulse-static-'));
    const root = join(parent, 'site');
    await mkdir(join(root, 'assets'), { recursive: true });
    await mkdir(join(root, 'empty'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>demo</title>');
    await writeFile(join(root, 'assets', 'app-3f9a1c2b.js'), 'console.log(1)');
    await writeFile(join(root, 'style.css'), 'body{}');
    await writeFile(join(root, '.env'), 'PULSE_API_KEY=nope');
    await writeFile(join(parent, 'secret.txt'), 'outside');
    await symlink(join(parent, 'secret.txt'), join(root, 'link.txt'));
    const server = await listen(await createStaticHandler(root));
    base = server.url;
    close = server.close;
  });
  after(async () => {
    await close();
    await rm(parent, { recursive: true, force: true });
  });

  test('files with their content type and caching', async () => {
    const index = await rawRequest(base, '/');
    assert.equal(index.status, 200);
    assert.equal(index.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(index.headers['cache-control'], 'no-cache');
    const asset = await rawRequest(base, '/assets/app-3f9a1c2b.js');
    assert.equal(asset.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(asset.headers['x-content-type-options'], 'nosniff');
    const css = await rawRequest(base, '/style.css');
    assert.equal(css.headers['cache-control'], 'public, max-age=300');
    const again = await rawRequest(base, '/style.css', {
      headers: { 'if-none-match': String(css.headers.etag) },
    });
    assert.equal(again.status, 304);
  });

  for (const target of [
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/assets/..%2F..%2Fsecret.txt',
    '/link.txt',
    '/.env',
    '/empty/',
    '/assets/',
    '/nope.js',
    '/%00',
    '/%E0%A4%A',
  ]) {
    test(`no way out, no listing, no dotfiles: ${target} → 404`, async () => {
      const reply = await rawRequest(base, target);
      assert.equal(reply.status, 404);
      assert.doesNotMatch(reply.body, /outside|PULSE_API_KEY|app-3f9a1c2b/);
    });
  }
});

test('without a static directory, / lists every route with an example URL', async () => {
  const server = await listen(
    createIndexPage({ prefix: '/pulse', hosts: ['example.com'], mode: 'Demo mode' }),
  );
  after(() => server.close());
  const page = await rawRequest(server.url, '/');
  assert.equal(page.status, 200);
  for (const path of [
    '/live/toppages/v3/',
    '/live/summary/v3/',
    '/live/referrers/v3/',
    '/live/top_geo/v1/',
    '/live/quickstats/v4/',
    '/mab/htapi/v1/experiments/raw_data/',
    '/history/v1/',
  ]) {
    assert.match(page.body, new RegExp(`href="/pulse${path.replaceAll('/', '\\/')}\\?host=example\\.com`));
  }
  assert.equal((await rawRequest(server.url, '/other')).status, 404);
});

describe('listen(): closing', () => {
  /** A server whose every answer waits for `release()`; `started` settles when the first request is in. */
  async function heldServer(clock: VirtualClock) {
    let release!: () => void;
    let started!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const arrived = new Promise<void>((resolve) => (started = resolve));
    const server = await listen(
      async () => {
        started();
        await held;
        return new Response('the answer');
      },
      0,
      '127.0.0.1',
      undefined,
      { drainMs: 5000, clock },
    );
    return { server, release, arrived };
  }
  const failureOf = (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message;

  test('an answer in progress is sent before the server closes; new connections are refused', async () => {
    const { server, release, arrived } = await heldServer(new VirtualClock(0));
    const answer = fetch(`${server.url}/a`);
    await arrived;
    const closing = server.close();
    const refused = await fetch(`${server.url}/b`).then(
      (response) => `answered ${response.status}`,
      failureOf,
    );
    assert.equal(refused, 'ECONNREFUSED');
    release();
    const response = await answer;
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('connection'), 'close');
    assert.equal(await response.text(), 'the answer');
    await closing;
  });

  test('an answer still in progress when the drain time is up is cut, and the server closes', async () => {
    const clock = new VirtualClock(0);
    const { server, release, arrived } = await heldServer(clock);
    after(release);
    const answer = fetch(`${server.url}/a`).then((response) => response.text(), failureOf);
    await arrived;
    const closing = server.close();
    await clock.advance(5000);
    assert.equal(await answer, 'UND_ERR_SOCKET');
    await closing;
  });
});
