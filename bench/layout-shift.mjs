/**
 * Cumulative Layout Shift of a public article page with our elements, as issue 25 measured it:
 * bench/article/index.html (a 680 px text column, `<live-counter>` after the first paragraph and
 * `<top-pages … limit=5 articles-only>` further down, the full CDN module) served by
 * `pulse-widgets serve` in demo mode, in Chromium at 412×900, every `layout-shift` entry observed
 * from the first byte for 12 s. Nothing else on the page moves, so the page's CLS is our
 * elements'. Once unthrottled, once with Slow 4G and 4× CPU throttling. Target: ≤ 0.01.
 *
 *   node --import tsx bench/layout-shift.mjs [--no-write]    (npm run bench:layout-shift)
 *
 * Bounded: two page loads of 12 s. Writes BENCHMARKS.md between `<!-- layout-shift -->` markers
 * unless --no-write.
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import puppeteer, { PredefinedNetworkConditions } from 'puppeteer-core';
import { CHROMIUM_ARGS, findChromium } from '../scripts/browsers.mjs';
import { replaceSection } from './report.mjs';
import { cleanEnv, serveCommand, startListening } from '../test/helpers/serve-process.node.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGE_DIR = `${ROOT}.tmp/article`;
const WATCH_MS = 12_000;
const TARGET = 0.01;
const write = !process.argv.includes('--no-write');

const executablePath = findChromium();
if (!executablePath) throw new Error('Chromium not found (Debian: apt-get install chromium)');
const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-cdn.mjs'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (built.status !== 0) throw new Error('the CDN build failed');
await mkdir(PAGE_DIR, { recursive: true });
await copyFile(`${ROOT}bench/article/index.html`, `${PAGE_DIR}/index.html`);
await copyFile(`${ROOT}dist/cdn/pulse-widgets.js`, `${PAGE_DIR}/pulse-widgets.js`);

/** In the page, from its first script: every layout shift not caused by input, and what moved. */
function observeShifts() {
  globalThis.shifts = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      const moved = entry.sources.map((source) => source.node?.nodeName?.toLowerCase() ?? '?').join(' ');
      globalThis.shifts.push({ at: Math.round(entry.startTime), value: entry.value, moved });
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

const CONDITIONS = [
  { name: 'unthrottled', network: undefined, cpu: 1 },
  { name: 'Slow 4G, 4× CPU', network: PredefinedNetworkConditions['Slow 4G'], cpu: 4 },
];

const server = await startListening(...serveCommand(['--static', PAGE_DIR]), {
  cwd: ROOT,
  env: { ...cleanEnv(), PORT: '0' },
});
const browser = await puppeteer.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
const results = [];
try {
  for (const condition of CONDITIONS) {
    const page = await browser.newPage();
    await page.setViewport({ width: 412, height: 900, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
    await page.emulateNetworkConditions(condition.network ?? null);
    await page.emulateCPUThrottling(condition.cpu);
    await page.evaluateOnNewDocument(observeShifts);
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
    const { shifts, ready } = await page.evaluate(() => ({
      shifts: globalThis.shifts,
      ready: [...document.querySelectorAll('live-counter, top-pages')].every((el) =>
        el.matches(':state(ready)'),
      ),
    }));
    if (!ready)
      throw new Error(`${condition.name}: the elements did not show data within ${WATCH_MS / 1000} s`);
    results.push({ condition, shifts, cls: shifts.reduce((sum, shift) => sum + shift.value, 0) });
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}

const describe = (shifts) =>
  shifts.length === 0
    ? 'none'
    : shifts
        .map((shift) => `${shift.value.toFixed(3)} at ${(shift.at / 1000).toFixed(1)} s (${shift.moved})`)
        .join('; ');
const text = `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:layout-shift\` (Node ${process.version}, Debian's Chromium, headless): bench/article/index.html with the full CDN module, \`pulse-widgets serve\` in demo mode, viewport 412×900, \`layout-shift\` entries for ${WATCH_MS / 1000} s from the first byte. Target: CLS ≤ ${TARGET}.

| Condition | CLS | | Shifts |
|---|---|---|---|
${results.map(({ condition, shifts, cls }) => `| ${condition.name} | ${cls.toFixed(4)} | ${cls <= TARGET ? 'met' : 'missed'} | ${describe(shifts)} |`).join('\n')}`;
console.log(text);
if (write) await replaceSection('layout-shift', text);
