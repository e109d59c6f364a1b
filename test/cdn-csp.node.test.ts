/**
 * The CDN modules on a page with no build step under a strict Content-Security-Policy
 * (examples/cms/), in real Chromium: every element renders live data and the browser reports no
 * policy violation. Builds dist/cdn first, so it tests what would be published.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { parseSync } from 'vite';
import { findChromium } from '../scripts/chromium.mjs';
import { startCmsExample, STRICT_CSP } from '../scripts/serve-cms-example.ts';
import type { RunningServer } from '../src/server/node-http.ts';

// The functions given to page.evaluate run in Chromium; this file is type-checked without the DOM
// library, so the few page globals they use are declared here, for this module only.
interface PageElement {
  matches(selector: string): boolean;
  shadowRoot: { textContent: string | null } | null;
}
interface ViolationEvent {
  effectiveDirective: string;
  blockedURI: string;
  sourceFile: string;
  lineNumber: number;
}
declare const document: {
  addEventListener(type: 'securitypolicyviolation', listener: (event: ViolationEvent) => void, options?: { once: boolean }): void;
  querySelectorAll(selector: string): Iterable<PageElement> & ArrayLike<PageElement>;
  body: { setAttribute(name: string, value: string): void };
};
declare const customElements: { get(name: string): unknown };

const CDN_DIR = new URL('../dist/cdn/', import.meta.url);
const RENDER_TIMEOUT_MS = 10_000;

let server: RunningServer;
let browser: Browser;

before(async () => {
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-cdn.mjs'], { cwd: new URL('..', import.meta.url), encoding: 'utf8' });
  assert.equal(built.status, 0, `CDN build failed:\n${built.stderr}`);
  server = await startCmsExample();
  const executablePath = findChromium();
  assert.ok(executablePath, 'no Chromium found: set CHROME_PATH');
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

interface Watched {
  page: Page;
  /** CSP messages on the console (the page's own reports are read with `violations()`). */
  cspMessages: string[];
  consoleErrors: string[];
}

/** A page that records every policy violation from before its first script runs. */
async function watchedPage(): Promise<Watched> {
  const page = await browser.newPage();
  const watched: Watched = { page, cspMessages: [], consoleErrors: [] };
  await page.addInitScript(() => {
    const seen: string[] = [];
    Object.defineProperty(globalThis, 'cspViolations', { value: seen });
    document.addEventListener('securitypolicyviolation', (event) => {
      seen.push(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber}`);
    });
  });
  page.on('console', (message) => {
    if (/content security policy/i.test(message.text())) watched.cspMessages.push(message.text());
    else if (message.type() === 'error') watched.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => watched.consoleErrors.push(error.message));
  return watched;
}

/** The violations the page reported through `securitypolicyviolation` events. */
function violations(page: Page): Promise<string[]> {
  return page.evaluate(() => [...(globalThis as unknown as { cspViolations: string[] }).cspViolations]);
}

/** Waits until every pulse-widgets element on the page shows data. */
async function everyElementReady(page: Page, tags: readonly string[]): Promise<void> {
  await page.waitForFunction((names) => {
    const elements = names.flatMap((name) => [...document.querySelectorAll(name)]);
    return elements.length > 0 && elements.every((el) => el.matches(':state(ready)') && (el.shadowRoot?.textContent ?? '').trim() !== '');
  }, tags, { timeout: RENDER_TIMEOUT_MS });
}

const ALL_TAGS = ['live-counter', 'top-pages', 'geo-list', 'referrer-bars'];

for (const [path, tags] of [['/', ALL_TAGS], ['/theming.html', ['live-counter', 'referrer-bars']]] as const) {
  test(`${path} of the CMS example renders its elements under a strict CSP with no violation`, async () => {
    const { page, cspMessages, consoleErrors } = await watchedPage();
    const response = await page.goto(`${server.url}${path}`);
    assert.equal(response?.headers()['content-security-policy'], STRICT_CSP);
    await everyElementReady(page, tags);
    const counts = await page.evaluate((names) => names.map((name) => document.querySelectorAll(name).length), tags);
    assert.ok(counts.every((count) => count > 0), `every element is on the page: ${counts}`);
    assert.deepEqual(await violations(page), []);
    assert.deepEqual(cspMessages, []);
    assert.deepEqual(consoleErrors, []);
    await page.close();
  });
}

test('one element\'s CDN file registers that element only', async () => {
  const { page, cspMessages, consoleErrors } = await watchedPage();
  await page.goto(`${server.url}/one-element.html`);
  await everyElementReady(page, ['live-counter']);
  const defined = await page.evaluate((names) => names.filter((name) => customElements.get(name)), ALL_TAGS);
  assert.deepEqual(defined, ['live-counter']);
  assert.deepEqual(await violations(page), []);
  assert.deepEqual(cspMessages, []);
  assert.deepEqual(consoleErrors, []);
  await page.close();
});

test('a language file beside the all-in-one file: the elements speak it, right to left, under the strict CSP', async () => {
  const { page, cspMessages, consoleErrors } = await watchedPage();
  await page.goto(`${server.url}/arabic.html`);
  await everyElementReady(page, ['live-counter', 'top-pages', 'referrer-bars']);
  type Node = { getAttribute(name: string): string | null; textContent: string | null; querySelector(selector: string): Node };
  const seen = await page.evaluate(() => [...document.querySelectorAll('live-counter, top-pages')].map((el) => {
    const card = (el.shadowRoot as unknown as Node).querySelector('[part=base]');
    return [card.getAttribute('dir'), card.querySelector('[part=label]').textContent];
  }));
  assert.deepEqual(seen, [['rtl', 'الموجودون على الموقع الآن'], ['rtl', 'الصفحات الأكثر قراءة الآن']]);
  assert.deepEqual(await violations(page), []);
  assert.deepEqual(cspMessages, []);
  assert.deepEqual(consoleErrors, []);
  await page.close();
});

test('the harness sees a violation when there is one (so the tests above can fail)', async () => {
  const { page } = await watchedPage();
  await page.goto(`${server.url}/`);
  await page.evaluate(() => new Promise((resolve) => {
    document.addEventListener('securitypolicyviolation', resolve, { once: true });
    document.body.setAttribute('style', 'outline: 1px solid red');
  }));
  const seen = await violations(page);
  assert.ok(seen.some((text) => text.startsWith('style-src-attr')), `a style-attribute violation is reported: ${seen.join('; ')}`);
  await page.close();
});

test('every CDN file is self-contained: no import of any other module', async () => {
  const files = (await readdir(CDN_DIR)).filter((name) => name.endsWith('.js'));
  assert.ok(files.includes('pulse-widgets.js'), `dist/cdn holds pulse-widgets.js: ${files}`);
  for (const file of files) {
    const { module, errors } = parseSync(file, await readFile(new URL(file, CDN_DIR), 'utf8'));
    assert.deepEqual(errors, [], `${file} parses`);
    const imported = [
      ...module.staticImports.map((entry) => entry.moduleRequest.value),
      ...module.staticExports.flatMap((entry) => entry.entries.flatMap((one) => (one.moduleRequest ? [one.moduleRequest.value] : []))),
    ];
    assert.deepEqual(imported, [], `${file} imports other modules`);
    assert.equal(module.dynamicImports.length, 0, `${file} imports modules on demand`);
  }
});
