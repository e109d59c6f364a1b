/**
 * Render benchmark in headless Chromium (playwright-core driving /usr/bin/chromium):
 *   1. scripting time per poll tick of a 100-row <top-pages> whose data changed (target ≤ 2 ms median);
 *   2. the same with identical data (target: no render at all);
 *   3. heap growth over 1,200 fast ticks of changing data (target < 1 MB).
 * The page is built by Vite in production mode (no Lit dev mode) and served on 127.0.0.1:0.
 *
 * With `--baseline <git ref>`, the same page is also built from that commit's sources and both
 * are measured in alternating rounds in one browser, so a busy machine slows both alike and the
 * before/after comparison holds even when the absolute numbers drift.
 * Writes its table into BENCHMARKS.md between `<!-- render -->` and `<!-- /render -->`.
 *
 *   node bench/render.mjs [--baseline <git ref>]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { replaceSection } from './report.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = 10;
const CHANGED_TICKS = 30;
const SAME_TICKS = 100;
const HEAP_TICKS = 1200;
const WARMUP_TICKS = 50;

const baselineIndex = process.argv.indexOf('--baseline');
const baselineRef = baselineIndex === -1 ? undefined : process.argv[baselineIndex + 1];

/** The page script built from the sources under `root` (this tree, or a baseline's export). */
async function pageScript(root) {
  const [output] = [
    await build({
      configFile: false,
      logLevel: 'warn',
      build: {
        write: false,
        target: 'es2022',
        minify: true,
        modulePreload: false,
        rolldownOptions: {
          input: { page: `${root}bench/render-page.js` },
          output: { format: 'es', codeSplitting: false },
        },
      },
    }),
  ].flat();
  return output.output.find((chunk) => chunk.type === 'chunk' && chunk.isEntry).code;
}

/** The baseline's sources, exported under .tmp/ so that they resolve this tree's node_modules. */
function exportBaseline(ref) {
  const dir = `${ROOT}.tmp/render-baseline/`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', ref, 'tsconfig.json', 'src', 'bench', 'test/helpers'], {
    cwd: ROOT,
    maxBuffer: 64 << 20,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return dir;
}

const scripts = { current: await pageScript(ROOT) };
if (baselineRef) scripts.baseline = await pageScript(exportBaseline(baselineRef));

const server = createServer((request, response) => {
  const [, name, script] = /^\/(\w+)(\.js)?$/.exec(request.url) ?? [];
  if (!(name in scripts)) return response.writeHead(404).end();
  if (script) return response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(scripts[name]);
  response
    .writeHead(200, { 'Content-Type': 'text/html' })
    .end(
      `<!doctype html><html lang="en"><body><script type="module" src="/${name}.js"></script></body></html>`,
    );
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const ms = (value) => `${value.toFixed(2)} ms`;

/** One bench page; its ticks run in the page, timed there (all of a tick is JavaScript, nothing waits on I/O). */
async function openBench(name) {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.error(`${name}: ${error.message}`));
  await page.goto(`http://127.0.0.1:${server.address().port}/${name}`);
  await page.waitForFunction(() => 'bench' in window);
  const rows = await page.evaluate(() => window.bench.setup());
  const ticks = (count, changed) =>
    page.evaluate(
      async ([n, c]) => {
        const times = [];
        for (let i = 0; i < n; i++) times.push(await window.bench.tick(c));
        return times;
      },
      [count, changed],
    );
  const renders = () => page.evaluate(() => window.bench.renders());
  await ticks(WARMUP_TICKS, true);
  return { name, page, rows, ticks, renders, changed: [], same: [], sameRenders: 0 };
}

try {
  const benches = [await openBench('current')];
  if (baselineRef) benches.push(await openBench('baseline'));
  for (let round = 0; round < ROUNDS; round++) {
    for (const bench of benches) bench.changed.push(...(await bench.ticks(CHANGED_TICKS, true)));
  }
  for (const bench of benches) {
    const before = await bench.renders();
    bench.same = await bench.ticks(SAME_TICKS, false);
    bench.sameRenders = (await bench.renders()) - before;
  }

  const [current, baseline] = benches;
  const cdp = await current.page.context().newCDPSession(current.page);
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Runtime.getHeapUsage')).usedSize;
  };
  const heapBefore = await heap();
  await current.ticks(HEAP_TICKS, true);
  const heapAfter = await heap();
  const growth = heapAfter - heapBefore;

  const changedTicks = ROUNDS * CHANGED_TICKS;
  const lines = [
    `| Measure | Result | Target | |`,
    `|---|---|---|---|`,
    `| Tick with changed data, ${current.rows} rows: median (p90) of ${changedTicks} | ${ms(median(current.changed))} (${ms(percentile(current.changed, 0.9))}) | ≤ 2 ms | ${median(current.changed) <= 2 ? 'met' : 'missed'} |`,
    ...(baseline
      ? [
          `| The same at \`${baselineRef}\`, measured in alternating rounds | ${ms(median(baseline.changed))} (${ms(percentile(baseline.changed, 0.9))}) | | before |`,
        ]
      : []),
    `| Tick with identical data: median of ${SAME_TICKS}; renders | ${ms(median(current.same))}; ${current.sameRenders} renders | no render | ${current.sameRenders === 0 ? 'met' : 'missed'} |`,
    ...(baseline
      ? [
          `| The same at \`${baselineRef}\` | ${ms(median(baseline.same))}; ${baseline.sameRenders} renders | | before |`,
        ]
      : []),
    `| Identical vs changed tick time | ${(median(current.same) / median(current.changed)).toFixed(2)}× | | |`,
    `| Heap growth over ${HEAP_TICKS} ticks (after GC) | ${(growth / 1024).toFixed(1)} kB (${(heapBefore / 1048576).toFixed(2)} → ${(heapAfter / 1048576).toFixed(2)} MB) | < 1 MB | ${growth < 1048576 ? 'met' : 'missed'} |`,
  ];
  const machine = `Measured by \`npm run bench:render${baselineRef ? ` -- --baseline ${baselineRef}` : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, ${await browser.version()} headless, shared with other work (numbers vary by ±30 %).`;
  console.log([machine, '', ...lines].join('\n'));
  await replaceSection(
    'render',
    [
      machine,
      "A tick = the hub's timer firing, the fake fetch answering with a pre-serialised body, JSON parse, validation, structural sharing, Lit update of the element. The fake fetch answers with a response whose `json()` is `JSON.parse` of the stored text, so the whole tick runs as JavaScript tasks and microtasks without waiting on a stream; its `performance.now()` span in the page is therefore scripting time (style and layout come later, at the next frame, and are not counted).",
      '',
      ...lines,
    ].join('\n'),
  );
} finally {
  await browser.close();
  server.close();
}
