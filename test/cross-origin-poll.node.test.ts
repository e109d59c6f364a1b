/**
 * A page and its cache endpoint on two origins (two loopback ports), as on a CMS whose widgets
 * poll a cache elsewhere, in Chromium, Firefox and WebKit. Counted at the cache: each poll is one
 * GET, never preceded by a CORS preflight, and while the data does not change each GET is the
 * browser cache's own revalidation (If-None-Match) answered 304 (not in WebKit's automation
 * browser, which has no HTTP cache). The three engines poll at the same time (the test mostly
 * waits for the 3 s ticks), each a site of its own, so the cache tells their requests apart.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { build, type Rolldown } from 'vite';
import { ENGINES } from '../scripts/browsers.mjs';
import { LIVE_TTL_MS } from '../src/api/index.ts';
import { createCacheHandler, createLogger, type CacheHandler } from '../src/server/http/handler.ts';
import { listen, type RunningServer } from '../src/runtime/node-http.ts';
import { API_KEY } from './helpers/cache-harness.node.ts';
import { describeEachEngine, type Engine } from './helpers/engines.node.ts';
import {
  jsonResponse,
  startFakeUpstream,
  validBody,
  type FakeUpstream,
} from './helpers/fake-upstream.node.ts';

const ROOT = new URL('..', import.meta.url).pathname;
/** Each engine's page polls a site of its own. */
const hostOf = (engine: Engine) => `${engine}.example.com`;
const pathOf = (engine: Engine) => `/live/quickstats/v4/?host=${hostOf(engine)}`;
/** The first GET, then three ticks of the 3 s clock. */
const POLLS = 4;
const POLLS_TIMEOUT_MS = 20_000;
/** Checked by hand: even `cache: 'force-cache'` of a max-age=60 answer goes to the network. */
const WEBKIT_NO_HTTP_CACHE =
  'MiniBrowser runs WebDriver sessions in an ephemeral data store, which has no HTTP cache: every poll is a plain GET';

interface Seen {
  method: string;
  url: string;
  origin: string | null;
  ifNoneMatch: string | null;
  status: number;
  at: number;
}

let upstream: FakeUpstream;
let cache: CacheHandler;
let cacheServer: RunningServer;
let pageServer: RunningServer;
const seen: Seen[] = [];

/** live-counter and everything it imports in one module, the way a page gets it from a CDN. */
async function bundleLiveCounter(): Promise<string> {
  const output = await build({
    configFile: false,
    root: ROOT,
    logLevel: 'silent',
    build: {
      write: false,
      minify: false,
      lib: {
        entry: `${ROOT}src/elements/live-counter/live-counter.ts`,
        formats: ['es'],
        fileName: 'live-counter',
      },
    },
  });
  const [{ output: chunks }] = output as [Rolldown.RolldownOutput];
  return chunks[0].code;
}

before(async () => {
  const script = await bundleLiveCounter();
  upstream = await startFakeUpstream();
  // The data never changes, so every poll after the first can be answered 304.
  const body = validBody('quickstats', 1, 0);
  upstream.respond = () => jsonResponse(body);
  let cacheUrl = '';
  pageServer = await listen(async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/live-counter.js')
      return new Response(script, { headers: { 'content-type': 'text/javascript' } });
    const engine = ENGINES.find((name) => pathname === `/${name}`);
    if (!engine) return new Response(null, { status: 404 });
    const html = `<!doctype html><html lang="en"><title>Cross-origin poll</title><script type="module" src="/live-counter.js"></script>
      <main><live-counter src="${cacheUrl}${pathOf(engine)}"></live-counter></main>`;
    return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  });
  cache = createCacheHandler({
    upstream: upstream.url,
    apiKey: API_KEY,
    hosts: ENGINES.map(hostOf),
    allowedOrigins: [pageServer.url],
    logger: createLogger('silent'),
  });
  cacheServer = await listen(async (request) => {
    const response = await cache.handle(request);
    seen.push({
      method: request.method,
      url: request.url,
      origin: request.headers.get('origin'),
      ifNoneMatch: request.headers.get('if-none-match'),
      status: response.status,
      at: Date.now(),
    });
    return response;
  });
  cacheUrl = cacheServer.url;
  assert.notEqual(new URL(cacheServer.url).origin, new URL(pageServer.url).origin);
});

after(async () => {
  await pageServer?.close();
  await cacheServer?.close();
  await cache?.close();
  await upstream?.close();
});

/** What the cache saw of `engine`'s site. */
const seenOf = (engine: Engine) => seen.filter(({ url }) => url.endsWith(pathOf(engine)));

async function gets(engine: Engine, count: number): Promise<Seen[]> {
  const deadline = Date.now() + POLLS_TIMEOUT_MS;
  const got = () => seenOf(engine).filter(({ method }) => method === 'GET');
  while (got().length < count) {
    if (Date.now() > deadline)
      throw new Error(
        `fewer than ${count} GETs within ${POLLS_TIMEOUT_MS} ms: ${JSON.stringify(seenOf(engine))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return got();
}

describeEachEngine(
  'a cross-origin poll',
  (engine, browser) => {
    it('is one GET, no preflight, revalidated by the browser cache and answered 304', async (t) => {
      const page = await browser().newPage();
      await page.goto(`${pageServer.url}/${engine}`);
      await page.waitFor(`document.querySelector('live-counter').matches(':state(ready)')`, POLLS_TIMEOUT_MS);
      const polls = await gets(engine, POLLS);

      assert.deepEqual(
        seenOf(engine).filter(({ method }) => method !== 'GET'),
        [],
        'no preflight (OPTIONS) nor any other method',
      );
      assert.ok(
        polls.every(
          ({ origin, url }) => origin === pageServer.url && url === `${cacheServer.url}${pathOf(engine)}`,
        ),
        'every GET is the cross-origin poll',
      );
      // One request per poll. The polls after the first follow the 3 s grid of the cache's fills
      // (the second may come at once: the first answer can be late on a busy machine), so the GETs
      // span at least POLLS - 2 ticks, 6 s; two requests a poll would fit in one tick, 3 s. Load
      // only makes polls later, never earlier.
      const gaps = polls.slice(1).map((poll, index) => poll.at - polls[index]!.at);
      assert.ok(
        polls.at(-1)!.at - polls[0]!.at >= (POLLS - 2.5) * LIVE_TTL_MS,
        `one request per poll: ms between GETs ${gaps}`,
      );
      assert.equal(polls[0]!.status, 200);
      await t.test(
        "each poll after the first is the browser cache's revalidation, answered 304",
        { skip: engine === 'webkit' ? WEBKIT_NO_HTTP_CACHE : false },
        () => {
          for (const [index, poll] of polls.entries()) {
            if (index === 0) continue;
            assert.ok(
              poll.ifNoneMatch,
              `the browser made poll ${index + 1} conditional: ${JSON.stringify(poll)}`,
            );
            assert.equal(poll.status, 304, `poll ${index + 1} was answered 304`);
          }
        },
      );
      const state = await page.evaluate<string>(`(() => {
      const el = document.querySelector('live-counter');
      return ['ready', 'stale', 'error'].filter((name) => el.matches(':state(' + name + ')')).join() + ' ' + el.shadowRoot.textContent.replace(/\\s+/g, ' ');
    })()`);
      assert.match(state, /^ready .*1/, `the counter still shows the data: ${state}`);
      await page.close();
    });
  },
  { concurrently: true },
);
