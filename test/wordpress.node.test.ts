/**
 * The WordPress plugin on a real WordPress: Debian's 6.1 (PHP 8.2, Apache with mod_php, MariaDB),
 * with `pulse-widgets serve --prefix /pulse` (demo mode) behind Apache's `ProxyPass /pulse/`: the
 * lines of docs/cms/wordpress.md. The plugin zip is built as `npm run build` builds it (the CDN
 * modules into a folder of this run's own), unpacked and activated with WordPress's own functions
 * on a site in German (the plugin's words too), and then, in Chromium: the shortcode and a block show live data on public
 * pages with each element's own module and the German file; the dashboard widget, the block's
 * preview in the editor and the settings page's check show live data with the full bundle; an
 * Author's tags are deleted on save until the Author role is ticked on the settings page, and
 * kept after.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../scripts/browsers.mjs';
import { wordPressMissing } from '../scripts/wordpress.mjs';
import { freePort } from './helpers/free-port.node.ts';
import {
  cleanEnv,
  serveCommand,
  startListening,
  type ListeningProcess,
} from './helpers/serve-process.node.ts';
import { startWordPressSite, type WordPressSite } from './helpers/wordpress-site.node.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = findChromium();
const SKIP = wordPressMissing() ?? (CHROMIUM ? undefined : 'no Chromium (set CHROME_PATH)');
const HOST = 'example.com';
const PREFIX = '/pulse';
const ADMIN = { user: 'editor-in-chief', password: 'admin-password-7c1e' };
const AUTHOR = { user: 'staff-writer', password: 'author-password-93ab' };
const RENDER_TIMEOUT_MS = 15_000;
const PLUGIN_ASSETS = '/wp-content/plugins/pulse-widgets/assets/';
/** What an Author writes in the code editor or a Custom HTML block. */
const AUTHOR_TAG = `<top-pages src="${PREFIX}/live/toppages/v3/?host=${HOST}&amp;limit=3" theme="light" label="Most read"></top-pages>`;

/** The Apache lines of docs/cms/wordpress.md, which pass /pulse/ on to the endpoint at 127.0.0.1:8080. */
const DOCUMENTED_PROXY = /```apache\n([\s\S]*?)```/.exec(
  readFileSync(join(ROOT, 'docs/cms/wordpress.md'), 'utf8'),
)![1]!;

/** In the page: `selector` matches one element or more, each showing figures. */
const ready = (selector: string) => `(() => {
  const elements = [...document.querySelectorAll(${JSON.stringify(selector)})];
  return elements.length > 0 && elements.every((el) => el.matches(':state(ready)') && /\\d/.test(el.shadowRoot.textContent));
})()`;

/** In the page: the text of the first element `selector` matches. */
const shadowText = (selector: string) =>
  `document.querySelector(${JSON.stringify(selector)}).shadowRoot.textContent`;

/** In the page: the plugin's stylesheets in its head, as files under assets/. */
const PLUGIN_HEAD_STYLES = `[...document.head.querySelectorAll('link[rel="stylesheet"][href*="${PLUGIN_ASSETS}"]')]
  .map((link) => new URL(link.href).pathname.slice(${PLUGIN_ASSETS.length}))`;
/** In the page: the plugin's scripts, as "<type> <file under assets/>". */
const PLUGIN_SCRIPTS = `[...document.querySelectorAll('script[src*="${PLUGIN_ASSETS}"]')]
  .map((script) => script.getAttribute('type') + ' ' + new URL(script.src).pathname.slice(${PLUGIN_ASSETS.length}))`;

function node(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')} failed (${code}):\n${stderr}`)),
    );
  });
}

describe("the WordPress plugin on Debian's WordPress", { skip: SKIP ?? false }, () => {
  let work: string;
  let endpoint: ListeningProcess;
  let site: WordPressSite;
  let browser: Browser;
  let admin: BrowserContext;
  let dashboard: Page;
  let posts: { shortcode: string; block: string; blockId: number };

  /** A page with its uncaught errors and failed responses collected. */
  async function open(context: BrowserContext, path: string): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400 && new URL(response.url()).pathname !== '/favicon.ico')
        problems.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(new URL(path, site.url).href);
    return { page, problems };
  }

  /** Logs in; WordPress then shows the dashboard, which is returned. */
  async function logIn(user: {
    user: string;
    password: string;
  }): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.url}/wp-login.php`);
    await page.fill('#user_login', user.user);
    await page.fill('#user_pass', user.password);
    await Promise.all([page.waitForURL(/\/wp-admin\/$/), page.click('#wp-submit')]);
    return { context, page };
  }

  /** Logs in over HTTP only (the author's part needs no page): the context then holds the login cookies. */
  async function logInOverHttp(user: { user: string; password: string }): Promise<BrowserContext> {
    const context = await browser.newContext();
    const response = await context.request.post(`${site.url}/wp-login.php`, {
      form: { log: user.user, pwd: user.password },
      maxRedirects: 0,
    });
    assert.equal(response.status(), 302, `login as ${user.user}`);
    return context;
  }

  /** Saves a post as the context's user through the REST API, as the block editor does; returns its content as stored, and its address. */
  async function savePost(context: BrowserContext, content: string): Promise<{ raw: string; link: string }> {
    const nonce = await (
      await context.request.get(`${site.url}/wp-admin/admin-ajax.php?action=rest-nonce`)
    ).text();
    const response = await context.request.post(`${site.url}/?rest_route=/wp/v2/posts`, {
      headers: { 'X-WP-Nonce': nonce },
      data: { title: 'Tags in a post', content, status: 'publish' },
    });
    assert.equal(response.status(), 201, await response.text());
    const post = (await response.json()) as { content: { raw: string }; link: string };
    return { raw: post.content.raw, link: post.link };
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'pulse-wp-plugin-'));
    const zip = join(work, 'pulse-widgets.zip');
    // The endpoint, the site and the zip start together: each takes seconds of its own. All settle
    // before a failure is thrown, so that after() stops whatever did start.
    const endpointPort = await freePort();
    const started = await Promise.allSettled([
      startListening(
        ...serveCommand([
          '--prefix',
          PREFIX,
          '--port',
          String(endpointPort),
          '--trust-proxy',
          'loopback',
          '--log-level',
          'warn',
        ]),
        { cwd: ROOT, env: cleanEnv() },
      ).then((started) => (endpoint = started)),
      startWordPressSite({
        title: 'Pulse Daily',
        admin: ADMIN,
        proxy: DOCUMENTED_PROXY.replaceAll('127.0.0.1:8080', `127.0.0.1:${endpointPort}`),
      }).then((started) => (site = started)),
      (async () => {
        // The files these pages load (the packed-package test checks that the real zip has them all).
        await node([
          '--import',
          'tsx',
          'scripts/build-cdn.mjs',
          join(work, 'cdn'),
          'pulse-widgets,top-pages,live-counter,locales/de',
        ]);
        await node(['scripts/build-wordpress.mjs', '--cdn', join(work, 'cdn'), '--out', zip]);
      })(),
    ]);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    const launching = chromium
      .launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
      .then((launched) => (browser = launched));
    const results = await site.setup([
      { do: 'plugin', zip, file: 'pulse-widgets/pulse-widgets.php' },
      { do: 'user', login: AUTHOR.user, password: AUTHOR.password, role: 'author' },
      {
        do: 'option',
        name: 'pulse_widgets',
        value: { endpoint: PREFIX, host: HOST, theme: 'light', kses_roles: [] },
      },
      { do: 'option', name: 'WPLANG', value: 'de_DE' },
      // The front page of Twenty Twenty-Three as a site would make it in the Site Editor: the header and the pattern.
      {
        do: 'template',
        theme: 'twentytwentythree',
        slug: 'home',
        content:
          '<!-- wp:template-part {"slug":"header","theme":"twentytwentythree","tagName":"header"} /-->\n<!-- wp:pattern {"slug":"pulse-widgets/most-read"} /-->',
      },
      {
        do: 'post',
        author: ADMIN.user,
        title: 'Shortcode',
        content: '<p>Read next:</p>\n[pulse top-pages limit="5" hide-numbers articles-only]',
      },
      {
        do: 'post',
        author: ADMIN.user,
        title: 'Block',
        content: '<!-- wp:pulse-widgets/live-counter {"label":"Reading now"} /-->',
      },
    ]);
    const [shortcode, block] = results.slice(-2) as { id: number; link: string }[];
    posts = { shortcode: shortcode!.link, block: block!.link, blockId: block!.id };
    await launching;
    ({ context: admin, page: dashboard } = await logIn(ADMIN));
  });

  after(async () => {
    await browser?.close();
    await site?.close();
    await endpoint?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the plugin's decisions, as a table: endpoint addresses, languages, shortcode words, module tags, escaped elements", async () => {
    const settings = { endpoint: PREFIX, host: HOST, theme: 'light', kses_roles: [] };
    const cases: [string, unknown[], unknown][] = [
      ['checked_endpoint', ['/pulse'], '/pulse'],
      ['checked_endpoint', ['/pulse/'], '/pulse'],
      ['checked_endpoint', [''], ''],
      ['checked_endpoint', ['https://pulse.example.net/pulse'], 'https://pulse.example.net/pulse'],
      ['checked_endpoint', ['http://127.0.0.1:8080'], 'http://127.0.0.1:8080'],
      ['checked_endpoint', ['pulse'], null],
      ['checked_endpoint', ['//evil.example/pulse'], null],
      ['checked_endpoint', ['javascript:alert(1)'], null],
      ['checked_endpoint', ['ftp://files.example/pulse'], null],
      ['checked_endpoint', ['https://pulse.example.net/pulse?host=x'], null],
      ['checked_endpoint', ['/pulse" onmouseover="alert(1)'], null],
      ['language_for', ['de_DE', ['de', 'fr']], 'de'],
      ['language_for', ['de_DE_formal', ['de']], 'de'],
      ['language_for', ['pt_BR', ['pt']], 'pt'],
      ['language_for', ['ja', ['ja']], 'ja'],
      ['language_for', ['en_US', ['de']], ''],
      ['language_for', ['sv_SE', ['de']], ''],
      [
        'shortcode_attributes',
        [{ 0: 'top-pages', 1: 'hide-numbers', limit: '5' }],
        ['top-pages', { 'hide-numbers': true, limit: '5' }],
      ],
      [
        'shortcode_attributes',
        [{ element: 'geo-list', 0: 'top-pages' }],
        ['geo-list', { element: 'geo-list' }],
      ],
      ['shortcode_attributes', [{ 0: 'grouped' }], ['', { grouped: true }]],
      [
        'module_tag',
        ["<script src='/a.js' id='a-js'></script>\n"],
        `<script type="module" src='/a.js' id='a-js'></script>\n`,
      ],
      [
        'module_tag',
        ["<script type='text/javascript' src='/a.js' id='a-js'></script>\n"],
        `<script type="module" src='/a.js' id='a-js'></script>\n`,
      ],
      [
        'element_html',
        ['top-pages', { limit: '3', section: 'Politik & Wirtschaft', 'articles-only': true }, settings],
        `<top-pages src="${PREFIX}/live/toppages/v3/?host=${HOST}&#038;limit=3&#038;section=Politik%20%26%20Wirtschaft" theme="light" articles-only></top-pages>`,
      ],
      [
        'element_html',
        [
          'top-pages',
          {
            label: 'Top "10" <b>now</b>',
            limit: '5; DROP',
            max: '-1',
            theme: 'purple',
            'hide-numbers': 'no',
            'link-base': 'javascript:alert(1)',
          },
          settings,
        ],
        `<top-pages src="${PREFIX}/live/toppages/v3/?host=${HOST}" theme="light" label="Top &quot;10&quot; now"></top-pages>`,
      ],
      [
        'element_html',
        [
          'top-pages',
          { 'link-base': 'https://staging.example.com', theme: 'dark', host: 'News.Example.org' },
          settings,
        ],
        `<top-pages src="${PREFIX}/live/toppages/v3/?host=news.example.org" theme="dark" link-base="https://staging.example.com"></top-pages>`,
      ],
      [
        'element_html',
        ['live-counter', {}, { ...settings, endpoint: 'https://pulse.example.net/pulse' }],
        `<live-counter src="https://pulse.example.net/pulse/live/quickstats/v4/?host=${HOST}" theme="light"></live-counter>`,
      ],
      [
        'element_html',
        ['live-counter', { 'no-heading': true }, { ...settings, theme: 'auto' }],
        `<live-counter src="${PREFIX}/live/quickstats/v4/?host=${HOST}" no-heading></live-counter>`,
      ],
      ['element_html', ['top-pages', { host: 'evil" onload="x' }, settings], ''],
      ['element_html', ['top-pages', {}, { ...settings, host: '' }], ''],
      ['element_html', ['marquee', {}, settings], ''],
    ];
    const results = await site.setup(
      cases.map(([name, args]) => ({ do: 'call', function: `PulseWidgets\\${name}`, args })),
    );
    assert.deepEqual(
      results.map((result, index) => [cases[index]![0], cases[index]![1], result]),
      cases,
    );
  });

  test('the documented proxy lines put the endpoint on the site: /pulse/healthz answers through Apache', async () => {
    const response = await fetch(`${site.url}${PREFIX}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
  });

  test('the classic widget and the block theme pattern write the "most read" list, titled in the site\'s language', async () => {
    const [widget, pattern] = await site.setup([
      {
        do: 'output',
        function: 'the_widget',
        args: [
          'PulseWidgets\\Most_Read_Widget',
          { limit: 3 },
          { before_widget: '<section class="widget">', after_widget: '</section>' },
        ],
      },
      { do: 'pattern', name: 'pulse-widgets/most-read' },
    ]);
    const list = (limit: number) =>
      `<top-pages src="${PREFIX}/live/toppages/v3/?host=${HOST}&#038;limit=${limit}" theme="light" label="Jetzt meistgelesen" articles-only hide-numbers></top-pages>`;
    assert.equal(widget, `<section class="widget">${list(3)}</section>`);
    assert.equal(pattern, `<div class="wp-block-pulse-widgets-top-pages">${list(5)}</div>`);
  });

  test("the shortcode shows live data on a public page, with the element's own module and the site's language", async () => {
    const context = await browser.newContext();
    const { page, problems } = await open(context, posts.shortcode);
    await page.waitForFunction(ready('top-pages'), undefined, { timeout: RENDER_TIMEOUT_MS });
    assert.deepEqual(await page.evaluate(PLUGIN_SCRIPTS), ['module top-pages.js', 'module locales/de.js']);
    const element = await page.evaluate<{
      src: string;
      hideNumbers: boolean;
      theme: string;
      text: string;
      lang: string;
    }>(`(() => {
      const el = document.querySelector('top-pages');
      return { src: el.getAttribute('src'), hideNumbers: el.hasAttribute('hide-numbers'), theme: el.getAttribute('theme'), text: el.shadowRoot.textContent, lang: document.documentElement.lang };
    })()`);
    assert.deepEqual(
      { ...element, text: undefined },
      {
        src: `${PREFIX}/live/toppages/v3/?host=${HOST}&limit=5`,
        hideNumbers: true,
        theme: 'light',
        text: undefined,
        lang: 'de-DE',
      },
    );
    assert.match(element.text, /Meistgelesene Artikel jetzt/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a block shows live data on a public page', async () => {
    const context = await browser.newContext();
    const { page, problems } = await open(context, posts.block);
    await page.waitForFunction(ready('.wp-block-pulse-widgets-live-counter live-counter'), undefined, {
      timeout: RENDER_TIMEOUT_MS,
    });
    assert.deepEqual(await page.evaluate(PLUGIN_SCRIPTS), ['module live-counter.js', 'module locales/de.js']);
    assert.match(await page.evaluate<string>(shadowText('live-counter')), /Reading now/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a block theme's template with the pattern shows the most read list live on the front page", async () => {
    const context = await browser.newContext();
    const { page, problems } = await open(context, '/');
    await page.waitForFunction(
      ready('.wp-block-pulse-widgets-top-pages top-pages[hide-numbers]'),
      undefined,
      { timeout: RENDER_TIMEOUT_MS },
    );
    assert.deepEqual(await page.evaluate(PLUGIN_SCRIPTS), ['module top-pages.js', 'module locales/de.js']);
    // In the head, so the list's box is there before the page's text is laid out around it.
    assert.deepEqual(await page.evaluate(PLUGIN_HEAD_STYLES), ['pulse-widgets.css']);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the Site Editor's frame shows the template's list live, with the full bundle", async () => {
    const { page } = await open(admin, '/wp-admin/site-editor.php');
    const canvas = await page.waitForSelector('iframe[name="editor-canvas"]', { timeout: RENDER_TIMEOUT_MS });
    const frame = (await canvas.contentFrame())!;
    await frame.waitForFunction(ready('.wp-block-pulse-widgets-top-pages top-pages'), undefined, {
      timeout: RENDER_TIMEOUT_MS,
    });
    // The frame's copy of the blocks' script (classic: WordPress 6.1 drops type="module" there) imports the modules.
    const loaded = await frame.evaluate<string[]>(
      `performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname).filter((path) => path.includes('/plugins/pulse-widgets/'))`,
    );
    assert.deepEqual(loaded.sort(), [
      '/wp-content/plugins/pulse-widgets/assets/locales/de.js',
      '/wp-content/plugins/pulse-widgets/assets/pulse-widgets.js',
      '/wp-content/plugins/pulse-widgets/blocks/frame.js',
    ]);
    await page.close();
  });

  test('the dashboard widget shows live data in wp-admin, with the full bundle', async () => {
    await dashboard.waitForFunction(
      ready('#pulse_widgets_dashboard :is(live-counter, top-pages, referrer-bars)'),
      undefined,
      { timeout: RENDER_TIMEOUT_MS },
    );
    assert.equal(
      await dashboard.evaluate(
        'document.querySelectorAll("#pulse_widgets_dashboard :is(live-counter, top-pages, referrer-bars)").length',
      ),
      3,
    );
    assert.deepEqual(await dashboard.evaluate(PLUGIN_SCRIPTS), [
      'module pulse-widgets.js',
      'module locales/de.js',
    ]);
    assert.equal(await dashboard.textContent('#pulse_widgets_dashboard .hndle'), 'Publikum live');
  });

  test("the block's preview in the editor shows live data", async () => {
    const { page } = await open(admin, `/wp-admin/post.php?post=${posts.blockId}&action=edit`);
    await page.waitForFunction(ready('.wp-block-pulse-widgets-live-counter live-counter'), undefined, {
      timeout: RENDER_TIMEOUT_MS,
    });
    assert.match(
      await page.evaluate<string>(shadowText('.wp-block-pulse-widgets-live-counter live-counter')),
      /Reading now/,
    );
    await page.close();
  });

  test("an Author's tags are deleted on save until the settings page lets Authors keep them", async () => {
    const author = await logInOverHttp(AUTHOR);
    const stripped = await savePost(author, AUTHOR_TAG);
    assert.doesNotMatch(stripped.raw, /top-pages/, 'WordPress deletes the tag for an Author by default');

    const { page: settings, problems } = await open(
      admin,
      '/wp-admin/options-general.php?page=pulse-widgets',
    );
    const explanation = (await settings.textContent('.wrap')) ?? '';
    assert.match(
      explanation,
      /WordPress löscht Tags, die es nicht kennt, etwa <top-pages>.*„unfiltered_html“/,
      "the page explains the silent deletion, in the site's language",
    );
    await settings.waitForFunction(ready('.wrap live-counter'), undefined, { timeout: RENDER_TIMEOUT_MS });
    await settings.check('input[name="pulse_widgets[kses_roles][]"][value="author"]');
    await Promise.all([settings.waitForURL(/settings-updated=true/), settings.click('#submit')]);
    assert.ok(
      await settings.isChecked('input[name="pulse_widgets[kses_roles][]"][value="author"]'),
      'the role stays ticked',
    );
    assert.deepEqual(problems, []);

    const kept = await savePost(author, AUTHOR_TAG);
    assert.equal(kept.raw, AUTHOR_TAG);
    const reader = await browser.newContext();
    const { page } = await open(reader, kept.link);
    await page.waitForFunction(ready('top-pages'), undefined, { timeout: RENDER_TIMEOUT_MS });
    await Promise.all([reader.close(), author.close()]);
  });
});
