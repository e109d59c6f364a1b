/**
 * History costs, in CPU time on this process: the demo backfill (35 days of every metric for the
 * demo hosts, from the model's daily curve), one `/history/v1/` answer per range over 35 full
 * days, and opening a file log of 35 days for two hosts (what a restart pays). Median of 5 runs
 * each, first run (cold: the site curves, JIT) reported apart.
 * Writes its table into BENCHMARKS.md between `<!-- history -->` and `<!-- /history -->`.
 *
 *   node --import tsx bench/history.mjs
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HISTORY_METRICS } from '../src/api/index.ts';
import { FileStore } from '../src/history/file-store.ts';
import { DAY_MS, KEEP_DAYS, MINUTE_MS, METRIC_COUNT } from '../src/history/samples.ts';
import { buildHistory } from '../src/history/series.ts';
import { MemoryStore, withBaseline } from '../src/history/store.ts';
import { createSimulator, DEMO_HOSTS } from '../src/simulator/index.ts';
import { replaceSection } from './report.mjs';

const NOW = Date.UTC(2026, 10, 23, 14, 5);
const DEMO = DEMO_HOSTS.flatMap((host) => [host, `video@${host}`]);

async function timed(runs, work) {
  const times = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  const [cold, ...warm] = times;
  warm.sort((a, b) => a - b);
  return { cold, median: warm[Math.floor(warm.length / 2)] ?? cold };
}

const ms = (value) => `${value.toFixed(1)} ms`;
const rows = [];

let simulator = createSimulator();
const backfill = await timed(5, () => {
  simulator = createSimulator();
  for (const host of DEMO)
    for (const metric of HISTORY_METRICS)
      simulator.history(host, metric, NOW - KEEP_DAYS * DAY_MS, KEEP_DAYS * 1440);
});
rows.push(
  `| Demo backfill: 35 days × 1440 minutes × ${HISTORY_METRICS.length} metrics × ${DEMO.length} hosts (${((KEEP_DAYS * 1440 * HISTORY_METRICS.length * DEMO.length) / 1e6).toFixed(1)} M values) | ${ms(backfill.cold)} | ${ms(backfill.median)} |`,
);

const demo = withBaseline(
  new MemoryStore(),
  (host, metric, from, minutes) => simulator.history(host, HISTORY_METRICS[metric], from, minutes),
  NOW,
);
for (const range of ['today', '24h', '7d']) {
  const answer = await timed(5, () =>
    buildHistory(demo, { host: 'example.com', metric: 'people', range }, 'Europe/Paris', NOW),
  );
  rows.push(
    `| \`/history/v1/\` answer, \`range=${range}\`, band over 4 weeks (demo backfill) | ${ms(answer.cold)} | ${ms(answer.median)} |`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'pulse-history-bench-'));
try {
  const { store } = await FileStore.open(dir, NOW);
  const values = Array.from({ length: METRIC_COUNT }, (_, index) => 100 + index);
  for (const host of ['example.com', 'news.example.org']) {
    for (let t = NOW - KEEP_DAYS * DAY_MS; t < NOW; t += MINUTE_MS) await store.record(host, t, values);
  }
  await store.close();
  const open = await timed(5, async () => (await FileStore.open(dir, NOW)).store.close());
  rows.push(
    `| Restart: open a file log of 35 days × 2 hosts (${((2 * KEEP_DAYS * 1440) / 1000).toFixed(0)} k lines, fsync per line when written) | ${ms(open.cold)} | ${ms(open.median)} |`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const table = `Measured ${new Date().toISOString().slice(0, 10)} with \`node --import tsx bench/history.mjs\`, Node ${process.version}, on the shared 2-core machine while other developers ran tests (1-minute load average ${loadavg()[0].toFixed(1)} at the end: numbers are upper bounds).

| Work | First run | Median of the next 4 |
| --- | --- | --- |
${rows.join('\n')}`;
console.log(table);
await replaceSection('history', table);
