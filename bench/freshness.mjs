/**
 * Freshness within the upstream's budget: N distinct realistic queries of one site
 * (test/helpers/dashboard-queries.node.ts), each polled by one client aligned on the 3 s grid
 * (wall-clock multiples of 3 s + 30 ms) for 60 s, against a fresh server each time. Side by side
 * in one run, each in front of its own simulator (200 calls a minute per site, 429 past it):
 *
 *   before   `pulse-widgets serve` of main at 1b9e843 (one fill per URL, refresh-ahead aimed at
 *            the tick), unpacked with `git archive` into /tmp
 *   fold-off this branch with PULSE_FOLD=off: the spread refresh plan alone
 *   after    this branch: folding and the refresh plan
 *   nginx    examples/nginx/pulse-cache.conf (one worker): one upstream call per URL
 *
 * Data age = Date − Last-Modified (whole seconds, as a client computes it). nginx does not send
 * Last-Modified (the simulator does not either), so its age is the same difference taken from
 * the upstream's log: the poll's second minus the second of the last 200 answer for that URL
 * that arrived before the poll. Then the cold dashboard: 20 of the queries at once on a fresh
 * server, the slowest answer and the statuses.
 *
 *   node --import tsx bench/freshness.mjs [--quick] [--cold] [--counts 8,20] [--no-write]
 *
 * --quick: 8 and 20 queries, 18 s each (numbers only indicative); --cold: the cold dashboard only
 * (neither writes BENCHMARKS.md). Results go into BENCHMARKS.md
 * between `<!-- freshness -->` markers unless --no-write.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { maxInSlidingWindow } from '../test/helpers/cache-harness.node.ts';
import { DASHBOARD_QUERIES } from '../test/helpers/dashboard-queries.node.ts';
import { NGINX_BINARY } from '../scripts/servers.mjs';
import { startNginx } from '../test/helpers/nginx-process.node.ts';
import { replaceSection } from './report.mjs';
import { cleanEnv, serveCommand, startListening } from '../test/helpers/serve-process.node.ts';
import { startUpstreams } from './upstreams.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BEFORE_COMMIT = '1b9e843';
const BEFORE_DIR = `/tmp/pulse-widgets-${BEFORE_COMMIT}`;
const API_KEY = 'bench-key-freshness-41c7';
const HOST = 'example.com';
/** The simulator's other demo site: warms a fresh upstream process without spending HOST's budget. */
const WARM_HOST = 'news.example.org';
const GRID_MS = 3000;
const PHASE_MS = 30;

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const write = !args.includes('--no-write');
const coldOnly = args.includes('--cold');
const countsFlag = args.includes('--counts')
  ? args[args.indexOf('--counts') + 1].split(',').map(Number)
  : undefined;
const COUNTS = coldOnly ? [] : (countsFlag ?? (quick ? [8, 20] : [4, 8, 12, 20, 30]));
const RUN_MS = quick ? 18_000 : 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });

/** main at the "before" commit, unpacked once, sharing this tree's node_modules. */
function beforeTree() {
  if (!existsSync(`${BEFORE_DIR}/package.json`)) {
    mkdirSync(BEFORE_DIR, { recursive: true });
    const archive = spawnSync(
      'sh',
      ['-c', `git -C '${ROOT}' archive ${BEFORE_COMMIT} | tar -x -C '${BEFORE_DIR}'`],
      { stdio: 'inherit' },
    );
    if (archive.status !== 0) throw new Error(`could not unpack ${BEFORE_COMMIT}`);
  }
  if (!existsSync(`${BEFORE_DIR}/node_modules`))
    symlinkSync(`${ROOT}node_modules`, `${BEFORE_DIR}/node_modules`);
  return BEFORE_DIR;
}

/** `pulse-widgets serve` from a source tree, in its own process. */
function startServer(cwd, upstream, env = {}) {
  return startListening(...serveCommand(), {
    cwd,
    env: {
      ...cleanEnv(),
      PULSE_UPSTREAM: upstream,
      PULSE_API_KEY: API_KEY,
      PULSE_HOSTS: HOST,
      PORT: '0',
      PULSE_CLIENT_LIMIT: '0',
      PULSE_LOG_LEVEL: 'error',
      ...env,
    },
  });
}

const TARGETS = ['before', 'fold-off', 'after', ...(NGINX_BINARY ? ['nginx'] : [])];

/**
 * Every target in front of its own upstream. Each simulator first answers every query once for
 * its other site (the first answers of a fresh process are slow on a busy machine: without this,
 * every target's first tick met upstream timeouts), which spends nothing of the measured site's
 * 200 a minute; calls counted start after that, at `startedAt`.
 */
async function startTargets() {
  const upstreams = await startUpstreams(TARGETS.length, { apiKey: API_KEY });
  for (const url of upstreams.urls) {
    for (const path of DASHBOARD_QUERIES) {
      await (
        await request(`${url}${path.replace(`host=${HOST}`, `host=${WARM_HOST}`)}`, {
          dispatcher: agent,
          headers: { 'x-svc-ak': API_KEY },
        })
      ).body.dump();
    }
  }
  const startedAt = Date.now();
  const servers = {};
  for (const [index, name] of TARGETS.entries()) {
    const upstream = upstreams.urls[index];
    if (name === 'before') servers[name] = await startServer(beforeTree(), upstream);
    else if (name === 'fold-off') servers[name] = await startServer(ROOT, upstream, { PULSE_FOLD: 'off' });
    else if (name === 'after') servers[name] = await startServer(ROOT, upstream);
    else servers[name] = await startNginx({ upstream, apiKey: API_KEY, hosts: [HOST] });
  }
  return {
    servers,
    close: async () => {
      for (const server of Object.values(servers)) await server.close();
      const calls = await upstreams.report();
      return Object.fromEntries(
        TARGETS.map((name, index) => [name, calls[index].filter((call) => call.at >= startedAt)]),
      );
    },
  };
}

async function get(url) {
  const sentAt = Date.now();
  try {
    const response = await request(url, { dispatcher: agent, headers: { 'accept-encoding': 'gzip' } });
    await response.body.dump();
    const header = (name) => response.headers[name];
    return {
      sentAt,
      ms: Date.now() - sentAt,
      status: response.statusCode,
      date: header('date'),
      lastModified: header('last-modified'),
      cacheStatus: header('cache-status') ?? '',
    };
  } catch (error) {
    return { sentAt, ms: Date.now() - sentAt, status: 0, error: String(error) };
  }
}

const seconds = (httpDate) => Date.parse(httpDate) / 1000;

/** One run: every query polled on the grid by one client, every target at once. */
async function steadyRun(count) {
  const paths = DASHBOARD_QUERIES.slice(0, count);
  const { servers, close } = await startTargets();
  const polls = Object.fromEntries(TARGETS.map((name) => [name, []]));
  const first = Math.ceil((Date.now() + 500) / GRID_MS) * GRID_MS;
  const ticks = Math.floor(RUN_MS / GRID_MS);
  for (let tick = 0; tick < ticks; tick += 1) {
    await sleep(first + tick * GRID_MS + PHASE_MS - Date.now());
    await Promise.all(
      TARGETS.flatMap((name) =>
        paths.map(async (path) =>
          polls[name].push({ path, tick, ...(await get(`${servers[name].url}${path}`)) }),
        ),
      ),
    );
  }
  const calls = await close();
  return Object.fromEntries(TARGETS.map((name) => [name, summarize(name, polls[name], calls[name])]));
}

function summarize(name, polls, calls) {
  const answered = polls.filter((poll) => poll.status === 200);
  const ages =
    name === 'nginx'
      ? nginxAges(answered, calls)
      : answered.map((poll) => seconds(poll.date) - seconds(poll.lastModified));
  const minutes = RUN_MS / 60_000;
  return {
    median: percentile(ages, 50),
    p90: percentile(ages, 90),
    budgetStale:
      name === 'nginx'
        ? undefined
        : polls.filter((poll) => /detail=budget/.test(poll.cacheStatus)).length / polls.length,
    callsPerMinute: Math.round(calls.length / minutes),
    mostInMinute: maxInSlidingWindow(
      calls.map((call) => call.at),
      60_000,
    ),
    refused: calls.filter((call) => call.status === 429).length,
    statuses: tally(polls) + firstTick(polls),
  };
}

/** nginx's data age: from the upstream's log, the last 200 for the URL that arrived before the poll. */
function nginxAges(polls, calls) {
  const byKey = new Map();
  for (const call of calls)
    if (call.status === 200) (byKey.get(call.key) ?? byKey.set(call.key, []).get(call.key)).push(call.at);
  return polls
    .map((poll) => {
      const key = new URL(poll.path, 'http://x').pathname + new URL(poll.path, 'http://x').search;
      const times = byKey.get(key) ?? [];
      let last;
      for (const at of times) if (at < poll.sentAt) last = at;
      return last === undefined ? NaN : Math.floor(poll.sentAt / 1000) - Math.floor(last / 1000);
    })
    .filter(Number.isFinite);
}

/** A dashboard of 20 queries opening at once on a fresh server. */
async function coldRun() {
  const paths = DASHBOARD_QUERIES.slice(0, 20);
  const { servers, close } = await startTargets();
  // Start mid-second, as a page would: the budget's windows are aligned on the second.
  await sleep(1000 - (Date.now() % 1000) + 300);
  const results = {};
  for (const name of TARGETS) {
    const replies = await Promise.all(paths.map((path) => get(`${servers[name].url}${path}`)));
    results[name] = {
      slowest: Math.max(...replies.map((reply) => reply.ms)),
      ok: replies.filter((reply) => reply.status === 200).length,
      statuses: tally(replies),
    };
  }
  const calls = await close();
  for (const name of TARGETS) results[name].calls = calls[name].length;
  return results;
}

/** Statuses as `200 × 18, 503 × 2` (0: the request itself failed). */
const tally = (replies) =>
  [
    ...replies.reduce(
      (counts, reply) => counts.set(reply.status, (counts.get(reply.status) ?? 0) + 1),
      new Map(),
    ),
  ]
    .sort((a, b) => a[0] - b[0])
    .map(([status, count]) => `${status} × ${count}`)
    .join(', ');

/** How many of the answers that were not 200 came on the first tick, the cold one. */
const firstTick = (polls) => {
  const failed = polls.filter((poll) => poll.status !== 200);
  return failed.length === 0
    ? ''
    : ` (${failed.filter((poll) => poll.tick === 0).length} on the cold first tick)`;
};

const pct = (share) => (share === undefined ? '—' : `${(share * 100).toFixed(1)} %`);

const machine = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadavg()
  .map((n) => n.toFixed(2))
  .join(
    ' / ',
  )} when the run started (the machine is shared with other developers' builds and tests), Node ${process.version}`;

const rows = [];
for (const count of COUNTS) {
  console.log(`${count} queries, ${RUN_MS / 1000} s …`);
  const result = await steadyRun(count);
  for (const name of TARGETS) {
    const r = result[name];
    rows.push(
      `| ${count} | ${name} | ${r.median} / ${r.p90} s | ${pct(r.budgetStale)} | ${r.callsPerMinute} | ${r.mostInMinute} | ${r.refused} | ${r.statuses} |`,
    );
    console.log(rows.at(-1));
  }
}
console.log('cold dashboard of 20 …');
const cold = await coldRun();
const coldRows = TARGETS.map(
  (name) =>
    `| ${name} | ${cold[name].ok} of 20 | ${cold[name].statuses} | ${cold[name].slowest} ms | ${cold[name].calls} |`,
);
console.log(coldRows.join('\n'));

const text = coldOnly
  ? coldRows.join('\n')
  : `Measured ${machine}. ${quick ? '**--quick run: 18 s per configuration, indicative only.** ' : ''}Command: \`npm run bench:freshness\` (${RUN_MS / 1000} s per configuration, all targets side by side, each in front of its own simulator with the service's 200 calls a minute per site).

Targets: **before** = \`pulse-widgets serve\` of main at ${BEFORE_COMMIT} (one fill per URL, refresh-ahead aimed at the tick); **fold-off** = this version with \`PULSE_FOLD=off\` (the spread refresh plan alone); **after** = this version (folding and the plan), run as \`pulse-widgets serve\` is by default, one worker per core (${availableParallelism()} here); **nginx** = [examples/nginx/pulse-cache.conf](examples/nginx/pulse-cache.conf), one worker, \`proxy_cache_valid 200 3s\`, \`proxy_cache_lock on\`, \`proxy_cache_use_stale updating error timeout http_429 http_500…\`, \`proxy_cache_background_update on\`: one upstream call per URL. Clients: one per query, polling at wall-clock multiples of 3 s + ${PHASE_MS} ms. Age = \`Date − Last-Modified\` (nginx: the same difference from the upstream's log, as nginx sends no Last-Modified). "Stale for budget" = answers with \`Cache-Status: …; detail=budget\`.

| queries | target | median / p90 age | stale for budget | upstream calls / min | most in any sliding minute | upstream 429s | answers |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

A cold dashboard: 20 of the queries at once on a fresh server, 300 ms into a second.

| target | answered 200 | statuses | slowest answer | upstream calls |
|---|---|---|---|---|
${coldRows.join('\n')}`;

console.log(`\n${text}\n`);
if (write && !quick && !coldOnly && !countsFlag) await replaceSection('freshness', text);
await agent.close();
