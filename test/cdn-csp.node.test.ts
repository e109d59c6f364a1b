/**
 * The CDN modules on a page with no build step under a strict Content-Security-Policy
 * (examples/cms/), in Chromium, Firefox and WebKit: every element renders live data and the
 * browser reports no policy violation. Violations are counted where every engine sends them: to
 * the policy's report-uri. Builds dist/cdn first, so it tests what would be published.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, it, test } from 'node:test';
import { parseSync } from 'vite';
import { startCmsExample, STRICT_CSP } from '../scripts/serve-cms-example.ts';
import type { RunningServer } from '../src/runtime/node-http.ts';
import { assertNoConsoleErrors, describeEachEngine, type EnginePage } from './helpers/engines.node.ts';

const CDN_DIR = new URL('../dist/cdn/', import.meta.url);
const RENDER_TIMEOUT_MS = 15_000;
const REPORT_TIMEOUT_MS = 10_000;
/** A fetch the policy blocks (connect-src falls back to 'self'), from an origin nothing else uses. */
const SENTINEL_ORIGIN = 'http://127.0.0.1:9';

interface CspReport {
  'document-uri': string;
  'blocked-uri'?: string;
  'effective-directive'?: string;
  'violated-directive'?: string;
  'source-file'?: string;
  'line-number'?: number;
}

let server: RunningServer;
let reportUri: string;
let reportCollector: Server;
const reports: CspReport[] = [];

/** Receives the reports on a port of its own: the example's server answers GET only. */
async function collectReports(): Promise<string> {
  reportCollector = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      reports.push((JSON.parse(body) as { 'csp-report': CspReport })['csp-report']);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => reportCollector.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(reportCollector.address() as AddressInfo).port}/csp-report`;
}

before(async () => {
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-cdn.mjs'], {
    cwd: new URL('..', import.meta.url),
    encoding: 'utf8',
  });
  assert.equal(built.status, 0, `CDN build failed:\n${built.stderr}`);
  reportUri = await collectReports();
  server = await startCmsExample(0, { reportUri });
});

after(async () => {
  await server?.close();
  reportCollector?.close();
});

function describeReport(report: CspReport): string {
  return `${report['effective-directive'] ?? report['violated-directive']} blocked ${report['blocked-uri'] || 'inline'} at ${report['source-file'] ?? '?'}:${report['line-number'] ?? '?'}`;
}

async function waitForReport(matches: (report: CspReport) => boolean): Promise<void> {
  const deadline = Date.now() + REPORT_TIMEOUT_MS;
  while (!reports.some(matches)) {
    if (Date.now() > deadline)
      throw new Error(
        `no such CSP report within ${REPORT_TIMEOUT_MS} ms; got: ${reports.map(describeReport).join('; ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The violations `url` reported. The page first makes one violation of its own, a blocked fetch
 * to the sentinel origin, and the answer waits for its report: a barrier behind the reports of
 * everything the page did before. (It logs a console error: check the console before.)
 */
async function violationsOf(page: EnginePage, url: string): Promise<string[]> {
  await page.evaluate(
    `fetch(${JSON.stringify(`${SENTINEL_ORIGIN}/sentinel`)}).then(() => 'fetched', () => 'blocked')`,
  );
  const fromPage = (report: CspReport) => report['document-uri'] === url;
  const isSentinel = (report: CspReport) =>
    (report['blocked-uri'] ?? '').startsWith(SENTINEL_ORIGIN) &&
    !/^\d/.test((report['blocked-uri'] ?? '').slice(SENTINEL_ORIGIN.length));
  await waitForReport((report) => fromPage(report) && isSentinel(report));
  return reports.filter((report) => fromPage(report) && !isSentinel(report)).map(describeReport);
}

/** In the page: whether every pulse-widgets element of `tags` is on the page and shows data. */
function everyElementReady(tags: readonly string[]): string {
  return `(() => {
    const elements = ${JSON.stringify(tags)}.flatMap((name) => [...document.querySelectorAll(name)]);
    const present = ${JSON.stringify(tags)}.every((name) => document.querySelector(name));
    return present && elements.every((el) => el.matches(':state(ready)') && (el.shadowRoot?.textContent ?? '').trim() !== '');
  })()`;
}

const ALL_TAGS = ['live-counter', 'top-pages', 'geo-list', 'referrer-bars'];

test('the example pages are served with the strict policy (and a report-uri for these tests)', async () => {
  const response = await fetch(`${server.url}/`);
  assert.equal(response.headers.get('content-security-policy'), `${STRICT_CSP}; report-uri ${reportUri}`);
});

describeEachEngine('CDN files on the CMS example under a strict CSP', (_engine, browser) => {
  /** Opens `path` under an address of its own, so the reports of this visit are told apart. */
  async function visit(path: string): Promise<{ page: EnginePage; url: string }> {
    const page = await browser().newPage();
    const url = `${server.url}${path}?visit=${randomUUID()}`;
    await page.goto(url);
    return { page, url };
  }

  for (const [path, tags] of [
    ['/', ALL_TAGS],
    ['/theming.html', ['live-counter', 'referrer-bars']],
  ] as const) {
    it(`${path} renders its elements with no violation`, async (t) => {
      const { page, url } = await visit(path);
      await page.waitFor(everyElementReady(tags), RENDER_TIMEOUT_MS);
      await assertNoConsoleErrors(t, page);
      assert.deepEqual(await violationsOf(page, url), []);
      await page.close();
    });
  }

  it("one element's CDN file registers that element only", async (t) => {
    const { page, url } = await visit('/one-element.html');
    await page.waitFor(everyElementReady(['live-counter']), RENDER_TIMEOUT_MS);
    const defined = await page.evaluate<string[]>(
      `${JSON.stringify(ALL_TAGS)}.filter((name) => customElements.get(name))`,
    );
    assert.deepEqual(defined, ['live-counter']);
    await assertNoConsoleErrors(t, page);
    assert.deepEqual(await violationsOf(page, url), []);
    await page.close();
  });

  it('the article page: the counter by the headline at once, the lazy "most read" in the footer only once the reader comes near', async (t) => {
    const { page, url } = await visit('/article.html');
    await page.waitFor(everyElementReady(['live-counter']), RENDER_TIMEOUT_MS);
    const toppagesRequests = `performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/live/toppages/')).length`;
    assert.equal(
      await page.evaluate<number>(toppagesRequests),
      0,
      "no request from the footer's list before the reader scrolls",
    );
    const tools = `[...document.querySelector('top-pages').shadowRoot.querySelectorAll('[part=freeze], [part=expand]')].length`;
    await page.evaluate(`document.querySelector('top-pages').scrollIntoView()`);
    await page.waitFor(everyElementReady(['live-counter', 'top-pages']), RENDER_TIMEOUT_MS);
    assert.ok((await page.evaluate<number>(toppagesRequests)) >= 1);
    assert.equal(await page.evaluate<number>(tools), 0, "no editors' tools on a public page");
    const defined = await page.evaluate<string[]>(
      `${JSON.stringify(ALL_TAGS)}.filter((name) => customElements.get(name))`,
    );
    assert.deepEqual(defined, ['live-counter', 'top-pages']);
    await assertNoConsoleErrors(t, page);
    assert.deepEqual(await violationsOf(page, url), []);
    await page.close();
  });

  it('a language file beside the all-in-one file: the elements speak it, right to left, with no violation', async (t) => {
    const { page, url } = await visit('/arabic.html');
    await page.waitFor(everyElementReady(['live-counter', 'top-pages', 'referrer-bars']), RENDER_TIMEOUT_MS);
    const seen = await page.evaluate<
      string[][]
    >(`[...document.querySelectorAll('live-counter, top-pages')].map((el) => {
      const card = el.shadowRoot.querySelector('[part=base]');
      return [card.getAttribute('dir'), card.querySelector('[part=label]').textContent];
    })`);
    assert.deepEqual(seen, [
      ['rtl', 'الموجودون على الموقع الآن'],
      ['rtl', 'الصفحات الأكثر قراءة الآن'],
    ]);
    await assertNoConsoleErrors(t, page);
    assert.deepEqual(await violationsOf(page, url), []);
    await page.close();
  });

  it('the harness sees a violation when there is one (so the tests above can fail)', async () => {
    const { page, url } = await visit('/');
    await page.evaluate(`document.body.setAttribute('style', 'outline: 1px solid red')`);
    const seen = await violationsOf(page, url);
    assert.ok(
      seen.some((text) => text.startsWith('style-src')),
      `a style-attribute violation is reported: ${seen.join('; ')}`,
    );
    await page.close();
  });
});

test('every CDN file is self-contained: no import of any other module', async () => {
  const files = (await readdir(CDN_DIR)).filter((name) => name.endsWith('.js'));
  assert.ok(files.includes('pulse-widgets.js'), `dist/cdn holds pulse-widgets.js: ${files}`);
  for (const file of files) {
    const { module, errors } = parseSync(file, await readFile(new URL(file, CDN_DIR), 'utf8'));
    assert.deepEqual(errors, [], `${file} parses`);
    const imported = [
      ...module.staticImports.map((entry) => entry.moduleRequest.value),
      ...module.staticExports.flatMap((entry) =>
        entry.entries.flatMap((one) => (one.moduleRequest ? [one.moduleRequest.value] : [])),
      ),
    ];
    assert.deepEqual(imported, [], `${file} imports other modules`);
    assert.equal(module.dynamicImports.length, 0, `${file} imports modules on demand`);
  }
});
