/**
 * End to end, as a visitor sees it: the real CLI in demo mode serving the built demo page, the
 * elements in headless Chromium. Counted at the network level: one request per distinct URL per
 * tick however many cards share it, and the key appears in nothing the browser received.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { findChromium } from '../scripts/chromium.mjs';

const API_KEY = 'e2e-demo-key-7c1d94b0a2';
const ROOT = new URL('..', import.meta.url).pathname;
const CHROMIUM = findChromium();
/** In the page: every custom element of the demo's main area (evaluated there, hence a string). */
const CARDS = "[...document.querySelectorAll('main *')].filter((el) => el.localName.includes('-'))";

describe('demo page through the real CLI in Chromium', { skip: CHROMIUM ? false : 'no Chromium' }, () => {
  let outDir: string;
  let cli: ChildProcess;
  let output = '';
  let baseUrl: string;
  let browser: Browser;

  before(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'pulse-demo-'));
    const build = spawnSync('npx', ['vite', 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
    // In demo mode a PULSE_API_KEY becomes the simulator's key: a known value we can look for.
    cli = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', 'serve', '--static', outDir], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PULSE_API_KEY: API_KEY, PULSE_UPSTREAM: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cli.stdout!.on('data', (chunk) => (output += chunk));
    cli.stderr!.on('data', (chunk) => (output += chunk));
    baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`CLI did not start: ${output}`)), 20_000);
      const look = () => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      cli.stdout!.on('data', look);
      cli.once('exit', () => reject(new Error(`CLI exited: ${output}`)));
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  });

  after(async () => {
    await browser?.close();
    if (cli && cli.exitCode === null) {
      const exited = new Promise((resolve) => cli.once('exit', resolve));
      cli.kill('SIGTERM');
      await exited;
    }
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('shows every card live, one request per URL per tick, and never the key', async () => {
    const page = await browser.newPage();
    const dataRequests: { url: string; at: number }[] = [];
    const received: Promise<string>[] = [];
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith('/live/') || url.pathname.startsWith('/mab/')) dataRequests.push({ url: url.href, at: Date.now() });
      received.push(response.body().then((body) => JSON.stringify(response.headers()) + body.toString('latin1'), () => ''));
    });

    await page.goto(`${baseUrl}/`);
    const cards = await page.evaluate<number>(`${CARDS}.length`);
    assert.ok(cards >= 12, `the demo shows at least 12 cards (${cards})`);
    await page.waitForFunction(`${CARDS}.every((el) => el.matches(':state(ready), :state(empty)'))`, undefined, { timeout: 15_000 });

    // Watch two full 3 s ticks after the first data arrived.
    const watchFrom = Date.now();
    await page.waitForTimeout(6_500);
    const watched = dataRequests.filter(({ at }) => at >= watchFrom);
    const distinct = new Set(dataRequests.map(({ url }) => url));
    const perUrl = new Map<string, number>();
    for (const { url } of watched) perUrl.set(url, (perUrl.get(url) ?? 0) + 1);
    assert.ok(distinct.size < cards, `cards share URLs: ${distinct.size} URLs for ${cards} cards`);
    for (const [url, count] of perUrl) assert.ok(count <= 3, `${url} was requested ${count} times in two ticks`);
    assert.ok(watched.length >= distinct.size, 'the page kept polling');

    const everything = await Promise.all(received);
    assert.ok(everything.length > 0);
    for (const text of everything) assert.ok(!text.includes(API_KEY), 'the key reached the browser');
    assert.ok(!output.includes(API_KEY), 'the key reached the CLI output');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('shows a full day against its typical band on first load (history backfilled from the simulator)', async () => {
    const history = await (await fetch(`${baseUrl}/history/v1/?host=example.com&metric=people&range=today`)).json() as {
      values: (number | null)[]; typical: { weeks: number; median: (number | null)[]; low: (number | null)[] };
    };
    assert.equal(history.typical.weeks, 4);
    assert.ok(history.typical.median.every((value) => value !== null), 'a band for every minute of the day');
    // The minute that turned since the start may not be recorded yet; every minute before it is there.
    assert.ok(history.values.slice(0, -1).every((value) => value !== null), 'every minute since local midnight');

    const page = await browser.newPage();
    await page.goto(`${baseUrl}/`);
    const chart = "document.querySelector('traffic-chart').shadowRoot";
    await page.waitForFunction(`${chart}.querySelector('[part~=chart]')`, undefined, { timeout: 15_000 });
    const drawn = await page.evaluate<{ band: string; line: string; summary: string }>(`({
      band: ${chart}.querySelector('[part~=band]').getAttribute('d'),
      line: ${chart}.querySelector('[part~=line]').getAttribute('d'),
      summary: ${chart}.querySelector('[part=summary]').textContent,
    })`);
    assert.match(drawn.band, /^M.*Z$/);
    assert.ok(drawn.line.split('L').length >= history.values.length - 1, 'today\'s line runs through every minute so far');
    assert.match(drawn.summary, /people now, (about the same as|\d+% (above|below)) a typical \w+day at /);
    await page.close();
  });
});
