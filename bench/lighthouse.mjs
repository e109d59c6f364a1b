/**
 * Lighthouse (the npm package, Debian's Chromium, its default mobile settings: a mid-range phone,
 * simulated slow 4G and 4× CPU) on the CMS example (examples/cms/index.html, every element from
 * the full CDN file) and the public article page (examples/cms/article.html, per-element CDN
 * files, a lazy "most read" list), both served under the strict policy by
 * scripts/serve-cms-example.ts with the cache endpoint in demo mode. Records Performance,
 * Accessibility, Best Practices, Total Blocking Time and the JavaScript bytes transferred, and
 * lists every audit of the last two categories that did not pass.
 *
 *   node --import tsx bench/lighthouse.mjs [--no-write]    (npm run bench:lighthouse)
 *
 * Bounded: one Lighthouse run per page. Writes BENCHMARKS.md between `<!-- lighthouse -->`
 * markers unless --no-write. Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { findChromium } from '../scripts/browsers.mjs';
import { startCmsExample } from '../scripts/serve-cms-example.ts';
import { replaceSection } from './report.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const write = !process.argv.includes('--no-write');
const PAGES = [
  {
    path: '/',
    name: 'CMS example (examples/cms/index.html, full CDN file and pulse-widgets.css, 7 elements)',
  },
  {
    path: '/article.html',
    name: 'Article page (examples/cms/article.html, per-element CDN files, lazy list)',
  },
];
const CATEGORIES = ['performance', 'accessibility', 'best-practices'];

const chromePath = findChromium();
if (!chromePath) throw new Error('Chromium not found (Debian: apt-get install chromium)');
const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-cdn.mjs'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (built.status !== 0) throw new Error('the CDN build failed');

const server = await startCmsExample(0);
const chrome = await chromeLauncher.launch({
  chromePath,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const results = [];
try {
  for (const page of PAGES) {
    const { lhr } = await lighthouse(`${server.url}${page.path}`, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: CATEGORIES,
    });
    const scripts = lhr.audits['network-requests'].details.items.filter(
      (item) => item.resourceType === 'Script',
    );
    const failing = CATEGORIES.slice(1).flatMap((category) =>
      lhr.categories[category].auditRefs
        .filter((ref) => ref.weight > 0 && lhr.audits[ref.id].score !== null && lhr.audits[ref.id].score < 1)
        .map((ref) => `${category}: ${lhr.audits[ref.id].title}`),
    );
    results.push({
      page,
      scores: Object.fromEntries(
        CATEGORIES.map((category) => [category, Math.round(lhr.categories[category].score * 100)]),
      ),
      tbt: lhr.audits['total-blocking-time'].numericValue,
      cls: lhr.audits['cumulative-layout-shift'].numericValue,
      lcp: lhr.audits['largest-contentful-paint'].numericValue,
      scriptBytes: scripts.reduce((sum, item) => sum + item.transferSize, 0),
      scriptFiles: scripts.length,
      failing,
      version: lhr.lighthouseVersion,
      agent: lhr.environment.hostUserAgent.match(/Chrome\/[\d.]+/)?.[0] ?? '',
    });
  }
} finally {
  await chrome.kill();
  await server.close();
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const text = `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:lighthouse\`: Lighthouse ${results[0].version}, ${results[0].agent} (Debian's), default mobile settings (simulated slow 4G, 4× CPU), pages served under the strict policy with the cache endpoint in demo mode.

| Page | Performance | Accessibility | Best Practices | TBT | CLS | LCP | JavaScript (transferred) |
|---|---|---|---|---|---|---|---|
${results.map((r) => `| ${r.page.name} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores['best-practices']} | ${Math.round(r.tbt)} ms | ${r.cls.toFixed(3)} | ${(r.lcp / 1000).toFixed(1)} s | ${kB(r.scriptBytes)} in ${r.scriptFiles} file${r.scriptFiles === 1 ? '' : 's'} |`).join('\n')}

${results.map((r) => `- ${r.page.path}: ${r.failing.length === 0 ? 'every Accessibility and Best Practices audit passes' : `not passing: ${r.failing.join('; ')}`}.`).join('\n')}`;
console.log(text);
if (write) await replaceSection('lighthouse', text);
