/**
 * What the demo page's cards say, as a reader sees them: `npm start`'s page (the demo build,
 * `pulse-widgets serve` on the embedded simulator, one worker per core) in Chromium, every card's
 * "Updated … ago" line read 0.7 s after each 3 s tick, when the tick's polls have been answered
 * and rendered. Issue 13's target: every live card reads 1–3 s.
 *
 *   node --import tsx bench/demo-ages.mjs [--ticks 25] [--no-write]
 *
 * Bounded: 30 s of warm-up, then --ticks ticks (75 s by default). Writes BENCHMARKS.md between
 * `<!-- demo-ages -->` markers unless --no-write.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { CHROMIUM_ARGS, findChromium } from '../scripts/browsers.mjs';
import { replaceSection } from './report.mjs';
import { cleanEnv, serveCommand, startListening } from '../test/helpers/serve-process.node.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const ticks = args.includes('--ticks') ? Number(args[args.indexOf('--ticks') + 1]) : 25;
const write = !args.includes('--no-write');
const GRID_MS = 3000;
const READ_AFTER_TICK_MS = 700;
const WARM_MS = 30_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const executablePath = findChromium();
if (!executablePath) throw new Error('Chromium not found (Debian: apt-get install chromium)');
const built = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
if (built.status !== 0) throw new Error('the demo build failed');

const server = await startListening(...serveCommand(['--static', 'dist/demo']), {
  cwd: ROOT,
  env: { ...cleanEnv(), PORT: '0' },
});
const url = `${server.url}/`;
const browser = await puppeteer.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
/** Per card (its element and the start of its text), the seconds each reading said. */
const readings = new Map();
const minuteCards = new Set();
try {
  const page = await browser.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await sleep(WARM_MS);
  for (let tick = 0; tick < ticks; tick += 1) {
    await sleep(GRID_MS - ((Date.now() - READ_AFTER_TICK_MS) % GRID_MS));
    const cards = await page.evaluate(() => {
      const found = [];
      const walk = (root) => {
        for (const element of root.querySelectorAll('*')) {
          if (!element.shadowRoot) continue;
          const text = element.shadowRoot.textContent.replace(/\s+/g, ' ').trim();
          const updated = /Updated (\d+) (sec|min)\. ago/.exec(text);
          // A card is its element and its label, the words before the first number.
          if (updated)
            found.push({
              card: `${element.localName} "${text.split(/\d/)[0].trim().slice(0, 40)}"`,
              value: Number(updated[1]),
              unit: updated[2],
            });
          walk(element.shadowRoot);
        }
      };
      walk(document);
      return found;
    });
    for (const { card, value, unit } of cards) {
      if (unit === 'min' || value >= 20) minuteCards.add(card);
      else readings.set(card, [...(readings.get(card) ?? []), value]);
    }
  }
} finally {
  await browser.close();
  await server.close();
}

const all = [...readings.values()].flat();
const bySeconds = new Map();
for (const value of all) bySeconds.set(value, (bySeconds.get(value) ?? 0) + 1);
const older = [...readings].filter(([, values]) => values.some((value) => value > 3));
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, load average ${loadavg()
  .map((load) => load.toFixed(2))
  .join(' / ')} (shared with other work)`;
const text = `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`node --import tsx bench/demo-ages.mjs\`: ${machine}, Node ${process.version}; \`pulse-widgets serve --static dist/demo\` on the embedded simulator, ${availableParallelism()} workers; Chromium; ${WARM_MS / 1000} s of warm-up, then every card's "Updated … ago" read ${READ_AFTER_TICK_MS} ms after each of ${ticks} ticks.

| Reads | Readings |
|---|---|
${[...bySeconds]
  .sort((a, b) => a[0] - b[0])
  .map(([value, count]) => `| ${value} s | ${count} |`)
  .join('\n')}

${readings.size} live cards, ${all.length} readings; ${older.length === 0 ? 'none read more than 3 s' : `read more than 3 s: ${older.map(([card, values]) => `${card} (${values.filter((value) => value > 3).join(', ')} s)`).join('; ')}`}. Cards that count in minutes (the day's chart, updated each minute, and the headline tests, raw data kept 60 s), not counted: ${minuteCards.size}.`;
console.log(text);
if (write) await replaceSection('demo-ages', text);
