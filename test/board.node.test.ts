/**
 * The board page as `pulse-widgets serve` ships it (built into dist/board first), in real
 * Chromium: fills a 1920×1080 and a 1280×720 screen without scrollbars under its strict policy,
 * renders URL parameters as text only, writes its address from the builder form, and recovers by
 * itself when the cache comes back after a restart.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BOARD_CSP } from '../src/server/board-page.ts';
import { createLogger } from '../src/server/http/handler.ts';
import { serve, type RunningEndpoint } from '../src/server/serve.ts';
import { readSettings, type ServeSettings } from '../src/server/config/settings.ts';
import { launchChromium, violations, watchedPage as watched } from './helpers/watched-page.node.ts';

// Page globals used inside page.evaluate (this file is type-checked without the DOM library).
interface PageElement {
  matches(selector: string): boolean;
  shadowRoot: { textContent: string | null } | null;
  textContent: string | null;
}
declare const document: {
  querySelectorAll(selector: string): Iterable<PageElement> & ArrayLike<PageElement>;
  querySelector(selector: string): PageElement | null;
  documentElement: {
    scrollWidth: number;
    scrollHeight: number;
    clientWidth: number;
    clientHeight: number;
    lang: string;
  };
};
declare const innerWidth: number;
declare const innerHeight: number;

const TAGS = ['top-pages', 'live-counter', 'referrer-bars', 'geo-list', 'traffic-sources', 'platform-split'];
/**
 * A card's first data can take three retries when its cold fills time out upstream on a busy
 * machine (the cache answers 503 after 2 s; the hub retries 3, 6 and 12 s later, jittered).
 */
const READY_TIMEOUT_MS = 30_000;
/** Failures back off 3, 6, 12 s (jittered): a cache back within a few seconds is polled again well within this. */
const RECOVERY_TIMEOUT_MS = 45_000;
/** The rotation test's period: longer than loading the page and its first data may take together. */
const ROTATE_S = (4 * READY_TIMEOUT_MS) / 1000;

let browser: Browser;
let endpoint: RunningEndpoint;

/**
 * Every page here is a reader at 127.0.0.1: the per-address meter of new queries, which stops one
 * address starting upstream calls for queries nobody polls, would take these boards (each view's
 * cards are new queries, retried while a busy machine's cold fills time out) for one such client.
 */
function settings(port = 0): ServeSettings {
  const result = readSettings(['serve', '--port', String(port), '--new-query-limit', '0'], {});
  assert.ok('settings' in result, JSON.stringify(result));
  return result.settings;
}

before(async () => {
  const built = spawnSync(
    process.execPath,
    ['node_modules/vite/bin/vite.js', 'build', '-c', 'vite.board.config.ts', '--logLevel', 'warn'],
    { cwd: new URL('..', import.meta.url), encoding: 'utf8' },
  );
  assert.equal(built.status, 0, `board build failed:\n${built.stderr}`);
  endpoint = await serve(settings(), createLogger('silent'));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await endpoint?.close();
});

const watchedPage = (width: number, height: number) => watched(browser, { width, height });

/**
 * The console errors that are the page's fault. A 503 from the cache is not: it answers so when
 * the upstream is slow to a cold fill (on a busy machine the simulator can be), and the board
 * waits and polls again, which is what it must do.
 */
function pageErrors(consoleErrors: readonly string[]): string[] {
  return consoleErrors.filter(
    (text) => !text.startsWith('Failed to load resource: the server responded with a status of 503'),
  );
}

/** Every card of the board shows fresh data (ready, not stale, text rendered). */
async function boardReady(page: Page, timeout = READY_TIMEOUT_MS): Promise<void> {
  await page.waitForFunction(
    (tags) => {
      const cards = tags.flatMap((tag) => [...document.querySelectorAll(`main ${tag}`)]);
      return (
        cards.length > 0 &&
        cards.every(
          (el) =>
            el.matches(':state(ready)') &&
            !el.matches(':state(stale)') &&
            (el.shadowRoot?.textContent ?? '').trim() !== '',
        )
      );
    },
    TAGS,
    { timeout },
  );
}

async function overflow(
  page: Page,
): Promise<{ scrollWidth: number; scrollHeight: number; width: number; height: number }> {
  return page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    scrollHeight: document.documentElement.scrollHeight,
    width: innerWidth,
    height: innerHeight,
  }));
}

for (const [width, height] of [
  [1920, 1080],
  [1280, 720],
] as const) {
  for (const query of [
    '',
    `?sites=example.com,news.example.org&cards=pages,counter,referrers,geo&size=l&theme=light`,
    '?cards=counter,sources,platforms,geo&size=s',
  ]) {
    test(`/board/${query} fills ${width}×${height} with no scrollbar and no policy violation`, async () => {
      const { page, cspMessages, consoleErrors } = await watchedPage(width, height);
      const response = await page.goto(`${endpoint.url}/board/${query}`);
      assert.equal(response?.status(), 200);
      assert.equal(response?.headers()['content-security-policy'], BOARD_CSP);
      await boardReady(page);
      const size = await overflow(page);
      assert.ok(
        size.scrollWidth <= size.width && size.scrollHeight <= size.height,
        `no scrolling: ${JSON.stringify(size)}`,
      );
      // Each card shows the rows it has room for: none cut in half at its bottom edge.
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('main .card')].every((card) => {
            const base = (
              card as unknown as {
                shadowRoot: { querySelector(s: string): { scrollHeight: number; clientHeight: number } };
              }
            ).shadowRoot.querySelector('[part=base]');
            return base.scrollHeight <= base.clientHeight + 1;
          }),
        undefined,
        { timeout: 5000 },
      );
      assert.deepEqual(await violations(page), []);
      assert.deepEqual(cspMessages, []);
      assert.deepEqual(pageErrors(consoleErrors), []);
      assert.equal(await page.evaluate(() => document.querySelector('#notice')!.textContent), '');
      await page.close();
    });
  }
}

test('the board and its builder pass axe (WCAG 2.2 AA and best practice), network view and notice included', async () => {
  // Evaluated through the DevTools protocol, which the page's policy does not apply to (a script tag would be refused).
  const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const { page } = await watchedPage(1280, 720);
  for (const path of [
    '/board/?sites=example.com,news.example.org&theme=light&rotate=1',
    '/board/builder.html',
  ]) {
    await page.goto(`${endpoint.url}${path}`);
    if (path.startsWith('/board/?')) await boardReady(page);
    else await page.waitForSelector('input[name=sites]');
    await page.evaluate(axeSource);
    const violations = await page.evaluate(() =>
      (
        globalThis as unknown as {
          axe: { run(options: object): Promise<{ violations: { id: string; nodes: unknown[] }[] }> };
        }
      ).axe
        .run({
          runOnly: {
            type: 'tag',
            values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'],
          },
        })
        .then((result) =>
          result.violations.map((violation) => `${violation.id} (${violation.nodes.length})`),
        ),
    );
    assert.deepEqual(violations, [], path);
  }
  await page.close();
});

test('/board/ with no parameters shows the first served host, and several sites merge into one ranking', async () => {
  const { page } = await watchedPage(1280, 720);
  await page.goto(`${endpoint.url}/board/`);
  await boardReady(page);
  const sources = await page.evaluate(() =>
    [...document.querySelectorAll('main [src]')].map((el) =>
      (el as unknown as { getAttribute(name: string): string }).getAttribute('src'),
    ),
  );
  assert.ok(
    sources.length === 4 && sources.every((src) => src.includes('host=example.com') && !src.includes(' ')),
    sources.join(' | '),
  );
  await page.goto(`${endpoint.url}/board/?sites=example.com,news.example.org`);
  await boardReady(page);
  // One list asks both sites, and every row names its own. (Which site's pages lead depends on
  // the hour: each simulated site's audience follows its own time zone's day.)
  const lists = await page.evaluate(() =>
    [...document.querySelectorAll('main top-pages')].map((el) => {
      const root = (
        el as unknown as {
          shadowRoot: {
            querySelectorAll(
              s: string,
            ): ArrayLike<{ querySelector(s: string): { textContent: string } | null }>;
          };
        }
      ).shadowRoot;
      return {
        src: (el as unknown as { getAttribute(name: string): string }).getAttribute('src'),
        sites: Array.from(
          root.querySelectorAll('[part=row]'),
          (row) => row.querySelector('[part=site]')?.textContent ?? '',
        ),
      };
    }),
  );
  assert.equal(lists.length, 1);
  const [{ src, sites }] = lists as [{ src: string; sites: string[] }];
  assert.deepEqual(
    src.split(' ').map((url) => new URL(url, endpoint.url).searchParams.get('host')),
    ['example.com', 'news.example.org'],
  );
  assert.ok(
    sites.length > 0 && sites.every((site) => /(^|: )(example\.com|news\.example\.org)$/.test(site)),
    `rows name their sites: ${sites.join(', ')}`,
  );
  await page.close();
});

test('URL parameters are checked and shown as text only: unknown values named, hosts not served left out', async () => {
  const { page, cspMessages, consoleErrors } = await watchedPage(1280, 720);
  const hostile = encodeURIComponent('<img src=x onerror=alert(1)>');
  await page.goto(
    `${endpoint.url}/board/?title=${hostile}&sites=evil.example,example.com&theme=${hostile}&rotate=2&${hostile}=1`,
  );
  await boardReady(page);
  const seen = await page.evaluate(() => ({
    title: document.querySelector('#title')!.textContent,
    notice: document.querySelector('#notice')!.textContent,
    images: document.querySelectorAll('img').length,
    lang: document.documentElement.lang,
  }));
  assert.equal(seen.title, '<img src=x onerror=alert(1)>');
  assert.equal(seen.images, 0);
  assert.match(seen.notice ?? '', /Site “evil\.example” is not served here/);
  assert.match(seen.notice ?? '', /is not a value of theme/);
  assert.match(seen.notice ?? '', /rotate must be a number of seconds from 10 to 3600/);
  assert.match(seen.notice ?? '', /Unknown setting “<img src=x onerror=alert\(1\)>” ignored/);
  assert.deepEqual(await violations(page), []);
  assert.deepEqual(cspMessages, []);
  assert.deepEqual(pageErrors(consoleErrors), []);
  await page.close();
});

test('the builder form writes the board address', async () => {
  const { page, cspMessages, consoleErrors } = await watchedPage(1280, 720);
  const response = await page.goto(`${endpoint.url}/board/builder.html?sites=news.example.org&numbers=hide`);
  assert.equal(response?.headers()['content-security-policy'], BOARD_CSP);
  await page.waitForSelector('input[name=sites][value="example.com"]');
  assert.equal(await page.isChecked('input[name=sites][value="news.example.org"]'), true);
  assert.equal(await page.isChecked('input[name=numbers]'), true);
  await page.check('input[name=sites][value="example.com"]');
  await page.uncheck('input[name=numbers]');
  await page.check('input[name=cards][value="counter"]');
  await page.selectOption('select[name=size]', 'l');
  await page.fill('input[name=rotate]', '30');
  await Promise.all([page.waitForURL(/\/board\/\?/), page.click('button[type=submit]')]);
  const params = new URL(page.url()).searchParams;
  assert.deepEqual(params.getAll('sites'), ['example.com', 'news.example.org']);
  assert.deepEqual(params.getAll('cards'), ['pages', 'counter']);
  assert.equal(params.get('size'), 'l');
  assert.equal(params.get('rotate'), '30');
  await boardReady(page);
  assert.deepEqual(await violations(page), []);
  assert.deepEqual(cspMessages, []);
  assert.deepEqual(pageErrors(consoleErrors), []);
  await page.close();
});

test('rotates between the network and each site, each view already live when it turns, and keeps the screen awake', async () => {
  const { page } = await watchedPage(1280, 720);
  // A script as text: tsx would name the stub's function with a helper the page does not have.
  await page.addInitScript({
    content: `const asked = []; Object.defineProperty(globalThis, 'wakeLocksAsked', { value: asked });
      Object.defineProperty(navigator, 'wakeLock', { value: { request(type) { asked.push(type); return Promise.resolve({ released: false }); } } });`,
  });
  // The page's clock is ours: the rotation's period passes in one step. It runs in real time too
  // until then (the hub's polls need it), so the period is longer than the board may take to be
  // ready on a busy machine: a turn seen must be the clock's doing, not the wait's.
  await page.clock.install();
  await page.goto(`${endpoint.url}/board/?sites=example.com,news.example.org&rotate=${ROTATE_S}`);
  const shown = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('main .view')]
        .filter((view) => !(view as unknown as { hidden: boolean }).hidden)
        .map((view) => (view as unknown as { dataset: { sites: string } }).dataset.sites),
    );
  await boardReady(page);
  assert.deepEqual(await shown(), ['example.com news.example.org']);
  assert.deepEqual(
    await page.evaluate(() => (globalThis as unknown as { wakeLocksAsked: string[] }).wakeLocksAsked),
    ['screen'],
  );
  await page.clock.fastForward(ROTATE_S * 1000);
  // Well under the rotation's period: the turn comes from the clock moved, not from waiting.
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('main .view')].findIndex(
        (view) => !(view as unknown as { hidden: boolean }).hidden,
      ) === 1,
    undefined,
    { timeout: 5_000 },
  );
  assert.deepEqual(await shown(), ['example.com']);
  assert.equal(await page.evaluate(() => document.querySelector('#scope')!.textContent), 'example.com');
  const turnedTo = await page.evaluate(
    () =>
      [...document.querySelectorAll('main .view:not([hidden]) *')].filter((el) => el.matches(':state(ready)'))
        .length,
  );
  assert.ok(turnedTo >= 4, `the view turned to shows data at once: ${turnedTo} cards ready`);
  await page.close();
});

test('recovers by itself when the cache comes back after a restart', async () => {
  const first = await serve(settings(), createLogger('silent'));
  const port = Number(new URL(first.url).port);
  const { page } = await watchedPage(1280, 720);
  // The page's clock is ours: the polls that fail and the backoff's retry come when it is moved.
  await page.clock.install();
  await page.goto(`${first.url}/board/`);
  await boardReady(page);
  await first.close();
  await page.clock.fastForward(3_000);
  await page.waitForFunction(
    () => [...document.querySelectorAll('main live-counter')].every((el) => el.matches(':state(stale)')),
    undefined,
    { timeout: RECOVERY_TIMEOUT_MS },
  );
  const second = await serve(settings(port), createLogger('silent'));
  try {
    // Past the longest backoff: the next poll finds the cache back.
    await page.clock.fastForward(60_000);
    await boardReady(page, RECOVERY_TIMEOUT_MS);
  } finally {
    await page.close();
    await second.close();
  }
});
