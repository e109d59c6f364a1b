/**
 * Render benchmark in headless Chromium (playwright-core driving /usr/bin/chromium):
 *   1. scripting time per poll tick of a 100-row <top-pages> whose data changed (target ≤ 2 ms median);
 *   2. the same with identical data (target: no render at all);
 *   3. heap growth over 1,200 fast ticks of changing data (target < 1 MB).
 * The page is built by Vite in production mode (no Lit dev mode) and served on 127.0.0.1:0.
 * Writes its table into BENCHMARKS.md between `<!-- render -->` and `<!-- /render -->`.
 *
 *   node bench/render.mjs
 */
import { createServer } from 'node:http';
import { cpus } from 'node:os';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { replaceSection } from './report.mjs';

const CHANGED_TICKS = 300;
const SAME_TICKS = 100;
const HEAP_TICKS = 1200;
const WARMUP_TICKS = 50;

const [output] = [await build({
  configFile: false,
  logLevel: 'warn',
  build: {
    write: false, target: 'es2022', minify: true, modulePreload: false,
    rolldownOptions: { input: { page: new URL('./render-page.js', import.meta.url).pathname }, output: { format: 'es', codeSplitting: false } },
  },
})].flat();
const script = output.output.find((chunk) => chunk.type === 'chunk' && chunk.isEntry).code;

const server = createServer((request, response) => {
  if (request.url === '/page.js') return response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
  response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><html lang="en"><body><script type="module" src="/page.js"></script></body></html>');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const ms = (value) => `${value.toFixed(2)} ms`;

try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => 'bench' in window);
  const rows = await page.evaluate(() => window.bench.setup());
  /** In-page time of each tick: all of it is JavaScript (timers, promises, Lit), nothing waits on I/O. */
  const ticks = (count, changed) => page.evaluate(async ([n, c]) => {
    const times = [];
    for (let i = 0; i < n; i++) times.push(await window.bench.tick(c));
    return times;
  }, [count, changed]);
  const fastTicks = ticks;

  await fastTicks(WARMUP_TICKS, true);
  const changed = await ticks(CHANGED_TICKS, true);
  const rendersBefore = await page.evaluate(() => window.bench.renders());
  const same = await ticks(SAME_TICKS, false);
  const sameRenders = (await page.evaluate(() => window.bench.renders())) - rendersBefore;

  const cdp = await page.context().newCDPSession(page);
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Runtime.getHeapUsage')).usedSize;
  };
  const heapBefore = await heap();
  await fastTicks(HEAP_TICKS, true);
  const heapAfter = await heap();
  const growth = heapAfter - heapBefore;

  const lines = [
    `| Measure | Result | Target | |`,
    `|---|---|---|---|`,
    `| Tick with changed data, ${rows} rows: median (p90) of ${CHANGED_TICKS} | ${ms(median(changed))} (${ms(percentile(changed, 0.9))}) | ≤ 2 ms | ${median(changed) <= 2 ? 'met' : 'missed'} |`,
    `| Tick with identical data: median of ${SAME_TICKS}; renders | ${ms(median(same))}; ${sameRenders} renders | no render | ${sameRenders === 0 ? 'met' : 'missed'} |`,
    `| Identical vs changed tick time | ${(median(same) / median(changed)).toFixed(2)}× | | |`,
    `| Heap growth over ${HEAP_TICKS} ticks (after GC) | ${(growth / 1024).toFixed(1)} kB (${(heapBefore / 1048576).toFixed(2)} → ${(heapAfter / 1048576).toFixed(2)} MB) | < 1 MB | ${growth < 1048576 ? 'met' : 'missed'} |`,
  ];
  const machine = `Measured by \`npm run bench:render\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, ${await browser.version()} headless, shared with other work (numbers vary by ±30 %).`;
  console.log([machine, '', ...lines].join('\n'));
  await replaceSection('render', [machine, 'A tick = the hub\'s timer firing, the fake fetch answering with a pre-serialised body, JSON parse, zod/mini validation, structural sharing, Lit update of the element. The fake fetch answers with a response whose `json()` is `JSON.parse` of the stored text, so the whole tick runs as JavaScript tasks and microtasks without waiting on a stream; its `performance.now()` span in the page is therefore scripting time (style and layout come later, at the next frame, and are not counted).', '', ...lines].join('\n'));
} finally {
  await browser.close();
  server.close();
}
