/**
 * Makes docs/images/theming.png: examples/cms/theming.html (light, dark, tokens and parts) in
 * headless Chromium, once every widget shows data. Part of `npm run docs`; builds the CDN files
 * first because the page loads them.
 */
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from './browsers.mjs';
import { startCmsExample } from './serve-cms-example.ts';

// The page function below runs in Chromium; this file is type-checked without the DOM library.
declare const document: {
  querySelectorAll(selector: string): Iterable<{ matches(selector: string): boolean }>;
};

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUTPUT = `${ROOT}docs/images/theming.png`;

const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-cdn.mjs'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(1);
const executablePath = findChromium();
if (!executablePath) throw new Error('No Chromium found: set CHROME_PATH');

const server = await startCmsExample();
const browser = await chromium.launch({
  executablePath,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage({
    viewport: { width: 1000, height: 600 },
    deviceScaleFactor: 1,
    reducedMotion: 'reduce',
  });
  await page.goto(`${server.url}/theming.html`);
  await page.waitForFunction(
    () => {
      const widgets = [...document.querySelectorAll('live-counter, referrer-bars')];
      return widgets.length > 0 && widgets.every((widget) => widget.matches(':state(ready)'));
    },
    undefined,
    { timeout: 10_000 },
  );
  await mkdir(`${ROOT}docs/images`, { recursive: true });
  await page.locator('main').screenshot({ path: OUTPUT });
  console.log(`wrote ${OUTPUT}`);
} finally {
  await browser.close();
  await server.close();
}
