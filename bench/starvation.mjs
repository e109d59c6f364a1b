/**
 * Issue 27: one reader with a script cannot freeze a newsroom's dashboard. `pulse-widgets serve`
 * in demo mode (the embedded simulator; 1 worker, and the default's 2), in its own process; this
 * process is the load: a dashboard of 6 queries of example.com polled on the 3 s grid (wall-clock
 * multiples of 3 s + 30 ms), alone, and from 10 s on with one client asking a new `toppages?author=…` every
 * 200 ms, and with ten such clients. Each client has its own address (X-Forwarded-For from
 * loopback, PULSE_TRUST_PROXY=loopback), as readers behind a proxy do.
 *
 * Data age = the dashboard's answers' `Age`, after a warm-up; calls a minute = the upstream calls
 * counted by /metrics over the measured span; the busiest sliding minute of example.com's calls
 * and the service's 429s from the server's log lines of upstream calls; answers by status and the
 * dashboard's answer times. Bounded: (warm-up + measure) × 3 scenarios × the worker counts, a
 * fresh server each.
 *
 * Every client has a connection pool of its own, as separate browsers and scripts do: the
 * dashboard 6 connections (a browser's per origin), each sprayer as many as it needs to send on
 * time, the /metrics reads one of their own. Sharing one pool of 128, the meter-off sprayers'
 * requests (each held up to maxWaitMs, 5 s, waiting for a budget slot) filled it, and the
 * dashboard's polls and the /metrics reads queued behind them for tens of seconds: the dashboard
 * polled every 20–40 s instead of every 3 s (so the cache rightly no longer counted it as
 * established), and calls were counted over a longer span than the one divided by.
 *
 *   node --import tsx bench/starvation.mjs [--warm 20] [--measure 40] [--workers 1,2] [--sprayers 0,1,10] [--meter-off] [--no-write]
 *
 * --meter-off: PULSE_NEW_QUERY_LIMIT=0, what the planning rule alone does (sprayers unmetered).
 * Results go into BENCHMARKS.md between `<!-- starvation -->` markers (`<!-- starvation-meter-off -->`)
 * unless --no-write.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { maxInSlidingWindow } from '../test/helpers/cache-harness.node.ts';
import { DASHBOARD_QUERIES } from '../test/helpers/dashboard-queries.node.ts';
import { cleanEnv, serveCommand, startListening } from '../test/helpers/serve-process.node.ts';
import { replaceSection } from './report.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) =>
  args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback;
const WARM_MS = Number(option('warm', '20')) * 1000;
const MEASURE_MS = Number(option('measure', '40')) * 1000;
const WORKERS = option('workers', '1,2').split(',').map(Number);
const write = !args.includes('--no-write');
const meterOff = args.includes('--meter-off');
const GRID_MS = 3000;
const PHASE_MS = 30;
const SPRAY_EVERY_MS = 200;
const SPRAY_AFTER_MS = 10_000;
const DASHBOARD = DASHBOARD_QUERIES.slice(0, 6);
const SCENARIOS = option('sprayers', '0,1,10').split(',').map(Number);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);

async function get(url, address, agent) {
  const sent = Date.now();
  try {
    const response = await request(url, {
      dispatcher: agent,
      headers: { 'x-forwarded-for': address },
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    await response.body.dump();
    return { status: response.statusCode, age: Number(response.headers.age), ms: Date.now() - sent };
  } catch {
    return { status: 0, ms: Date.now() - sent };
  }
}

/** Every upstream call so far (all sites, any answer), and when /metrics said so. */
async function upstreamCalls(base, agent) {
  const response = await request(`${base}/metrics`, { dispatcher: agent });
  const text = await response.body.text();
  let total = 0;
  for (const match of text.matchAll(/^pulse_upstream_calls_total\{[^}]*\} (\d+(?:\.\d+)?)$/gm))
    total += Number(match[1]);
  return { total, at: Date.now() };
}

/** The server's log lines of upstream calls (JSON lines on its stdout, at log level info). */
function upstreamLog() {
  const calls = [];
  let partial = '';
  const read = (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      if (!line.includes('"upstream call')) continue;
      const entry = JSON.parse(line);
      if (entry.msg !== 'upstream call' && entry.msg !== 'upstream call failed') continue;
      calls.push({
        site: new URLSearchParams(entry.query).get('host').replace(/^video@/, ''),
        sentAt: entry.sentAt,
        status: entry.status,
      });
    }
  };
  return { calls, read };
}

async function run(workers, sprayers) {
  const log = upstreamLog();
  const server = await startListening(
    ...serveCommand(),
    {
      cwd: ROOT,
      env: {
        ...cleanEnv(),
        PORT: '0',
        PULSE_WORKERS: String(workers),
        PULSE_TRUST_PROXY: 'loopback',
        PULSE_LOG_LEVEL: 'info',
        ...(meterOff ? { PULSE_NEW_QUERY_LIMIT: '0' } : {}),
      },
    },
    log.read,
  );
  // One pool per client (see the top of this file).
  const metricsAgent = new Agent({ connections: 1 });
  const dashboardAgent = new Agent({ connections: DASHBOARD.length, keepAliveTimeout: 10_000 });
  const sprayerAgents = Array.from({ length: sprayers }, () => new Agent({ keepAliveTimeout: 10_000 }));
  const result = {
    workers,
    sprayers,
    ages: [],
    answerMs: [],
    dashboard: new Map(),
    sprays: new Map(),
    callsPerMinute: NaN,
    mostInAMinute: 0,
    refused: 0,
  };
  try {
    const start = Math.ceil(Date.now() / GRID_MS) * GRID_MS + PHASE_MS;
    const measureFrom = start + WARM_MS;
    const stopAt = measureFrom + MEASURE_MS;
    // Read when the measured span begins and ends (not when the last answer came), divided by the time between the reads.
    const callsOverSpan = (async () => {
      await sleep(measureFrom - Date.now());
      const first = await upstreamCalls(server.url, metricsAgent);
      await sleep(stopAt - Date.now());
      const last = await upstreamCalls(server.url, metricsAgent);
      return Math.round(((last.total - first.total) * 60_000) / (last.at - first.at));
    })();
    const dashboard = (async () => {
      for (let tick = start; tick < stopAt; tick += GRID_MS) {
        await sleep(tick - Date.now());
        const replies = await Promise.all(
          DASHBOARD.map((path) => get(`${server.url}${path}`, '192.0.2.1', dashboardAgent)),
        );
        for (const reply of replies) {
          count(result.dashboard, reply.status);
          if (tick < measureFrom) continue;
          result.answerMs.push(reply.ms);
          if (reply.status === 200) result.ages.push(reply.age);
        }
      }
    })();
    const spray = async (client) => {
      const asked = [];
      // The dashboard is established first (polled for 10 s): the attack is on a running newsroom.
      for (
        let n = 0, next = start + SPRAY_AFTER_MS + client * 17;
        next < stopAt;
        n += 1, next += SPRAY_EVERY_MS
      ) {
        await sleep(next - Date.now());
        asked.push(
          get(
            `${server.url}/live/toppages/v3/?host=example.com&author=s${client}x${n}`,
            `198.51.100.${client + 1}`,
            sprayerAgents[client],
          ).then((reply) => count(result.sprays, reply.status)),
        );
      }
      await Promise.all(asked);
    };
    await Promise.all([dashboard, ...Array.from({ length: sprayers }, (_, client) => spray(client))]);
    result.callsPerMinute = await callsOverSpan;
    const site = log.calls.filter((call) => call.site === 'example.com');
    result.mostInAMinute = maxInSlidingWindow(
      site.map((call) => call.sentAt),
      60_000,
    );
    result.refused = log.calls.filter((call) => call.status === 429).length;
  } finally {
    await server.close();
    await Promise.all([metricsAgent, dashboardAgent, ...sprayerAgents].map((agent) => agent.close()));
  }
  return result;
}

const statuses = (map) =>
  [...map]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${n} × ${status}`)
    .join(', ') || '—';
const rows = [];
for (const workers of WORKERS) {
  for (const sprayers of SCENARIOS) {
    const result = await run(workers, sprayers);
    const row = `| ${workers} | ${sprayers === 0 ? 'none' : sprayers === 1 ? 'one' : sprayers} | ${percentile(result.ages, 50)} / ${percentile(result.ages, 90)} / ${Math.max(...result.ages)} s | ${percentile(result.answerMs, 90)} / ${Math.max(...result.answerMs)} ms | ${result.callsPerMinute} | ${result.mostInAMinute} | ${result.refused} | ${statuses(result.dashboard)} | ${statuses(result.sprays)} |`;
    console.log(row);
    rows.push(row);
  }
}

const report = `## Starvation: one client's new queries against a dashboard (issue 27)${meterOff ? ', meter off' : ''}

\`npm run bench:starvation${meterOff ? ' -- --meter-off' : ''}\` (bench/starvation.mjs): \`pulse-widgets serve\` in demo mode (embedded
simulator) with \`PULSE_WORKERS\` as below and \`PULSE_TRUST_PROXY=loopback\`, defaults otherwise
(${meterOff ? '**PULSE_NEW_QUERY_LIMIT=0**: no meter, the planning rule alone' : 'new-query meter 6 a minute after a burst of 30 per address'}, no pinned queries). A dashboard of
the first 6 queries of test/helpers/dashboard-queries.node.ts polled at every 3 s tick + 30 ms
from one address over its own 6 connections; from 10 s on, each sprayer asks a new
\`toppages?host=example.com&author=…\` every 200 ms from its own address, over connections of
its own, without waiting for answers. ${WARM_MS / 1000} s of warm-up, then ${MEASURE_MS / 1000} s measured: data age from \`Age\` of the
dashboard's 200 answers and its answer times (p90 / max) in the measured span; upstream calls a minute (all
sites, any answer) from /metrics read as the measured span begins and ends; the most calls for
example.com in any sliding minute (by \`sentAt\`, whole run; the budget is 183, the service's
limit 200) and the service's 429s from the server's log lines of upstream calls; answers by
status over the whole run. ${cpus().length} × ${cpus()[0]?.model.trim()}, ${availableParallelism()} cores, load ${loadavg()[0].toFixed(1)} at the end, ${new Date().toISOString().slice(0, 10)}.

| workers | sprayers | dashboard age median / p90 / max | dashboard answer time p90 / max | upstream calls a minute | example.com's busiest minute | upstream 429s | dashboard answers | sprayer answers |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Targets (issue 27): one sprayer, median ≤ 1 s and p90 ≤ 2 s; ten, p90 ≤ 3 s. Before this change
the issue measured 4 / 17 / 24 s (1 worker) and 49 / 76 / 85 s (2 workers) with one sprayer.`;
if (write) await replaceSection(meterOff ? 'starvation-meter-off' : 'starvation', report);
console.log(report);
