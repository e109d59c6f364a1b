/**
 * The story smoke test: builds Storybook statically, serves it on loopback, opens every story of
 * storybook-static/index.json in headless Chromium and fails when a story
 *   - shows Storybook's error display, logs a console error or throws,
 *   - renders no element of ours, or one whose shadow root holds no text,
 *   - never reaches the state its `state:<name>` tag promises (untagged stories: never leaves
 *     `:state(loading)`),
 *   - has an axe violation.
 * Then the language toolbar: a story opened with `globals=locale:de` must read German.
 *
 *   node --import tsx scripts/smoke-storybook.mjs [--no-build]
 *
 * Prints one line per story and `N passed, N failed` alone on the last line.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createStaticHandler, listen } from '../src/server/index.ts';
import { findChromium } from './browsers.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = `${ROOT}storybook-static`;
const PARALLEL_PAGES = 2;
const STORY_TIMEOUT_MS = 10_000;
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/** The story canvas is a fragment of a page: page-level landmark and heading rules do not apply. */
const AXE_OPTIONS = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
  rules: {
    region: { enabled: false },
    'landmark-one-main': { enabled: false },
    'page-has-heading-one': { enabled: false },
  },
};

const started = performance.now();
if (!process.argv.includes('--no-build')) {
  build();
  console.log(`storybook build: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
const stories = await readStories();
const executablePath = findChromium();
if (!executablePath) {
  console.error('No Chromium found: install one (Debian: `apt-get install chromium`) or set CHROME_PATH.');
  process.exit(1);
}
const site = await createStaticHandler(OUT);
// The browser asks for /favicon.ico on its own; Storybook ships only an SVG one.
const server = await listen((request) =>
  new URL(request.url).pathname === '/favicon.ico'
    ? Promise.resolve(new Response(null, { status: 204 }))
    : site(request),
);
const browser = await chromium.launch({
  executablePath,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const axeSource = await readFile(AXE_SOURCE, 'utf8');

let passed = 0;
let failed = 0;
try {
  const queue = [...stories];
  await Promise.all(
    Array.from({ length: PARALLEL_PAGES }, async () => {
      const page = await browser.newPage({ reducedMotion: 'reduce' });
      for (let story = queue.shift(); story; story = queue.shift()) {
        const storyStarted = performance.now();
        const problems = await check(page, story);
        const ms = Math.round(performance.now() - storyStarted);
        if (problems.length === 0) {
          passed += 1;
          console.log(`ok    ${story.id} (${ms} ms)`);
        } else {
          failed += 1;
          console.log(
            `FAIL  ${story.id} (${ms} ms)\n${problems.map((problem) => `        ${problem}`).join('\n')}`,
          );
          // A fresh page for the next story, so nothing this one left behind is blamed on it.
          await page.goto('about:blank');
        }
      }
      await page.close();
    }),
  );
  const language = await checkLanguageToolbar(
    stories.find((story) => story.id.startsWith('elements-live-counter--'))?.id,
  );
  if (language === true) passed += 1;
  else failed += 1;
  console.log(
    language === true
      ? 'ok    language toolbar (locale:de)'
      : `FAIL  language toolbar (locale:de)\n        ${language}`,
  );
} finally {
  await browser.close();
  await server.close();
}
console.log(
  `smoke test: ${stories.length} stories in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && stories.length > 0 ? 0 : 1);

/** The toolbar's language (a global) sets lang on the story root and loads the language: true, or what is wrong. */
async function checkLanguageToolbar(id) {
  if (!id) return 'no <live-counter> story';
  const page = await browser.newPage({ reducedMotion: 'reduce' });
  try {
    await page.goto(
      `${server.url}/iframe.html?id=${encodeURIComponent(id)}&viewMode=story&globals=a11y.manual:!true;locale:de`,
    );
    const label = () =>
      document.querySelector('#storybook-root live-counter')?.shadowRoot?.querySelector('[part=label]')
        ?.textContent;
    return await page
      .waitForFunction(label, undefined, { timeout: STORY_TIMEOUT_MS, polling: 50 })
      .then(() =>
        page.waitForFunction(
          (expected) =>
            document.querySelector('#storybook-root live-counter')?.shadowRoot?.querySelector('[part=label]')
              ?.textContent === expected,
          'Jetzt auf der Website',
          { timeout: STORY_TIMEOUT_MS, polling: 50 },
        ),
      )
      .then(() => true)
      .catch(async () => `the label reads "${await page.evaluate(label)}", not German`);
  } finally {
    await page.close();
  }
}

function build() {
  const result = spawnSync(`${ROOT}node_modules/.bin/storybook`, ['build', '--quiet', '-o', OUT], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, STORYBOOK_DISABLE_TELEMETRY: '1' },
  });
  if (result.status !== 0) {
    console.error('storybook build failed');
    process.exit(1);
  }
}

async function readStories() {
  const index = JSON.parse(await readFile(`${OUT}/index.json`, 'utf8'));
  return Object.values(index.entries)
    .filter((entry) => entry.type === 'story')
    .map((entry) => ({
      id: entry.id,
      state: entry.tags?.find((tag) => tag.startsWith('state:'))?.slice('state:'.length),
    }));
}

/**
 * Shows one story and returns what is wrong with it (nothing: it passed). The first story of a
 * page loads Storybook's iframe; later ones are switched to through Storybook's channel, as its
 * own test runner does, which saves reloading the preview bundle for every story.
 */
async function check(page, story) {
  const problems = [];
  const onConsole = (message) => {
    if (message.type() === 'error')
      problems.push(`console error: ${message.text().split('\n')[0]} (${message.location().url})`);
  };
  const onPageError = (error) => problems.push(`page error: ${error.message}`);
  page.on('console', onConsole);
  page.on('pageerror', onPageError);
  try {
    const shown = await show(page, story.id);
    if (shown !== true) {
      problems.push(shown);
      return problems;
    }
    const outcome = await page
      .waitForFunction(settled, story.state, { timeout: STORY_TIMEOUT_MS, polling: 50 })
      .then((handle) => handle.jsonValue())
      .catch(() =>
        page
          .evaluate(describeElements)
          .then((found) => `not ${story.state ?? 'rendered'} within ${STORY_TIMEOUT_MS} ms: ${found}`),
      );
    if (outcome !== true) problems.push(String(outcome));
    else problems.push(...(await axeViolations(page)));
  } catch (error) {
    problems.push(`could not open: ${error.message.split('\n')[0]}`);
  } finally {
    page.off('console', onConsole);
    page.off('pageerror', onPageError);
  }
  return problems;
}

/** Renders story `id` in the page: true, or why it could not be rendered. */
async function show(page, id) {
  if (!page.url().includes('/iframe.html')) {
    // a11y.manual: the a11y addon's own axe run would collide with ours.
    await page.goto(
      `${server.url}/iframe.html?id=${encodeURIComponent(id)}&viewMode=story&globals=a11y.manual:!true`,
    );
    return true;
  }
  const rendered = page.evaluate(
    (storyId) =>
      new Promise((resolve) => {
        const channel = globalThis.__STORYBOOK_ADDONS_CHANNEL__;
        const failures = [
          'storyErrored',
          'storyThrewException',
          'playFunctionThrewException',
          'storyMissing',
        ];
        const listeners = new Map();
        const finish = (result) => {
          for (const [event, listener] of listeners) channel.off(event, listener);
          resolve(result);
        };
        listeners.set('storyRendered', (renderedId) => renderedId === storyId && finish(true));
        for (const event of failures)
          listeners.set(event, (detail) =>
            finish(`${event}: ${detail?.message ?? detail?.title ?? JSON.stringify(detail)}`),
          );
        for (const [event, listener] of listeners) channel.on(event, listener);
        channel.emit('setCurrentStory', { storyId, viewMode: 'story' });
      }),
    id,
  );
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve(`not rendered within ${STORY_TIMEOUT_MS} ms`), STORY_TIMEOUT_MS);
  });
  return Promise.race([rendered, timeout]).finally(() => clearTimeout(timer));
}

/**
 * In the page: true once the story rendered and every element of ours holds text in its shadow
 * root and is in the expected state; a sentence saying what is wrong when Storybook shows an
 * error; false while still waiting.
 */
function settled(expectedState) {
  if (document.body.classList.contains('sb-show-errordisplay')) {
    return `story error: ${document.querySelector('#error-message')?.textContent ?? 'unknown'}`;
  }
  const root = document.querySelector('#storybook-root');
  const elements = [...(root?.querySelectorAll('*') ?? [])].filter((el) => el.localName.includes('-'));
  if (elements.length === 0) return false;
  for (const el of elements) {
    if (!customElements.get(el.localName) || !el.shadowRoot) return false;
    if ((el.shadowRoot.textContent ?? '').trim() === '') return false;
    if (expectedState ? !el.matches(`:state(${expectedState})`) : el.matches(':state(loading)')) return false;
  }
  return true;
}

/** In the page: what the story's elements look like, for a failure message. */
function describeElements() {
  const elements = [...(document.querySelector('#storybook-root')?.querySelectorAll('*') ?? [])].filter(
    (el) => el.localName.includes('-'),
  );
  if (elements.length === 0) return 'no custom element in #storybook-root';
  const states = ['loading', 'ready', 'empty', 'error', 'stale', 'paused'];
  return elements
    .map((el) => {
      const shown = states.filter((state) => el.shadowRoot && el.matches(`:state(${state})`));
      const text = (el.shadowRoot?.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 60);
      return `<${el.localName}> states [${shown.join(' ')}] text "${text}"`;
    })
    .join('; ');
}

async function axeViolations(page) {
  // Stories after the first reuse the page, and with it our copy of axe.
  if (!(await page.evaluate(() => globalThis.smokeAxe === true))) {
    await page.addScriptTag({ content: `${axeSource};globalThis.smokeAxe = true;` });
  }
  const violations = await page.evaluate(
    (options) =>
      globalThis.axe.run('#storybook-root', options).then((result) =>
        result.violations.map((violation) => ({
          id: violation.id,
          help: violation.help,
          targets: violation.nodes.slice(0, 3).map((node) => JSON.stringify(node.target)),
        })),
      ),
    AXE_OPTIONS,
  );
  return violations.map(
    (violation) => `axe ${violation.id}: ${violation.help} at ${violation.targets.join(', ')}`,
  );
}
