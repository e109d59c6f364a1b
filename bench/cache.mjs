/**
 * The cache endpoint against the nginx recipe, side by side in one run, on loopback only and
 * bounded in time. Ours runs as `pulse-widgets serve` in a child process (so it never shares an
 * event loop with the load generator); nginx is Debian's, one worker, with
 * examples/nginx/pulse-cache.conf; the upstream is the seeded simulator, one per target, so each
 * target's upstream calls are counted apart.
 *
 *   hit        cache-hit throughput and p50/p99 latency (autocannon), same toppages URL, gzip
 *   herd       upstream calls per key per 3 s: 1,000 clients polling on the 3 s grid, 1.5 s upstream
 *   budget     most upstream calls in any sliding minute: 15 keys of one site, real clock, 70 s
 *   freshness  median age of the data clients get polling on the 3 s grid, 200 ms upstream
 *   soak       ours alone, 1,000 clients for --minutes (10): errors and the RSS of our process
 *   all        hit, herd, budget, freshness (about 2.5 minutes)
 *
 * Each command writes its table into BENCHMARKS.md between `<!-- cache-<command> -->` markers
 * (`--no-write` only prints it).
 *
 *   node --import tsx bench/cache.mjs <command> [--minutes N] [--no-write]
 */
import { fork, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { DEMO_HOSTS } from '../src/simulator/index.ts';
import { maxInSlidingWindow } from '../test/helpers/cache-harness.node.ts';
import { NGINX_BINARY, startNginx } from '../test/helpers/nginx-process.node.ts';
import { replaceSection } from './report.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const API_KEY = 'bench-key-7d2a91c4';
const HOST = DEMO_HOSTS[0];
const GRID_MS = 3000;
const LIVE_PATHS = ['quickstats/v4', 'toppages/v3', 'referrers/v3', 'top_geo/v1'].map((route) => `/live/${route}/?host=${HOST}`);

const args = process.argv.slice(2);
const command = args.find((arg) => !arg.startsWith('--')) ?? 'all';
const flag = (name) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const write = !args.includes('--no-write');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const nextTick = (after = Date.now()) => Math.ceil((after + 1) / GRID_MS) * GRID_MS;
const median = (values) => percentile(values, 50);
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const ratio = (a, b) => (b === 0 ? '∞' : `${(a / b).toFixed(2)}×`);

/** Machine notes, taken when the run starts (the load average is the one the run met). */
function machine() {
  // nginx -v prints its version on stderr.
  const nginxVersion = NGINX_BINARY ? /nginx\/[\d.]+/.exec(spawnSync(NGINX_BINARY, ['-v'], { encoding: 'utf8' }).stderr)?.[0] : 'no nginx';
  const autocannonVersion = JSON.parse(readFileSync(new URL('../node_modules/autocannon/package.json', import.meta.url), 'utf8')).version;
  return `${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadavg().map((n) => n.toFixed(2)).join(' / ')} when the run started (shared with other work), Node ${process.version}, ${nginxVersion}, autocannon ${autocannonVersion}`;
}

const startedOn = machine();

async function report(name, text) {
  console.log(`\n${text}\n`);
  if (write) await replaceSection(`cache-${name}`, text);
}

/**
 * `count` simulated upstreams in a child process (bench/upstream-process.mjs); `report()` stops
 * them and resolves with each one's calls `{ at, key, status }`.
 */
async function startUpstreams(count, { latencyMs = 0, stamp = false, rateLimitPerMinute } = {}) {
  const child = fork(fileURLToPath(new URL('upstream-process.mjs', import.meta.url)), [JSON.stringify({ apiKey: API_KEY, count, latencyMs, stamp, rateLimitPerMinute })], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const reply = () => new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the upstream process exited (${code})`)));
  });
  const { urls } = await reply();
  return {
    urls,
    report: async () => {
      const answer = reply();
      child.send('report');
      return (await answer).calls;
    },
  };
}

/** `pulse-widgets serve` in its own process; resolves with its URL, its PID and a close(). */
async function startOurs(upstream) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PULSE_') && name !== 'PORT' && name !== 'HOST'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', 'serve'], {
    cwd: ROOT,
    env: { ...clean, PULSE_UPSTREAM: upstream, PULSE_API_KEY: API_KEY, PULSE_HOSTS: HOST, PORT: '0', PULSE_CLIENT_LIMIT: '0', PULSE_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const found = /listening on (http:\/\/[\d.:]+)/.exec(output);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`pulse-widgets serve exited (${code}): ${output}`)));
  });
  return {
    url,
    pid: child.pid,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Both targets, each in front of its own upstream; `close()` stops everything and resolves with each target's upstream calls. */
async function startTargets(upstreamOptions) {
  const upstreams = await startUpstreams(2, upstreamOptions);
  const ours = await startOurs(upstreams.urls[0]);
  const nginx = await startNginx({ upstream: upstreams.urls[1], apiKey: API_KEY, hosts: [HOST] });
  return {
    targets: { ours, nginx },
    close: async () => {
      await ours.close();
      await nginx.close();
      const [oursCalls, nginxCalls] = await upstreams.report();
      return { ours: oursCalls, nginx: nginxCalls };
    },
  };
}

/** Our upstream calls by outcome (HTTP status or failure reason), from /metrics. */
async function upstreamOutcomes(ours) {
  const text = await (await fetch(`${ours.url}/metrics`)).text();
  const outcomes = new Map();
  for (const [, status, count] of text.matchAll(/^pulse_upstream_calls_total\{[^}]*status="([^"]+)"[^}]*\} (\d+)/gm)) {
    outcomes.set(status, (outcomes.get(status) ?? 0) + Number(count));
  }
  return [...outcomes].map(([status, count]) => `${count} × ${status}`).join(', ');
}

const clientAgent = new Agent({ connections: 256, keepAliveTimeout: 60_000 });

async function get(url, headers = {}) {
  try {
    const response = await request(url, { dispatcher: clientAgent, headers });
    const text = await response.body.text();
    return { status: response.statusCode, text, receivedAt: Date.now() };
  } catch (error) {
    return { status: 0, text: String(error), receivedAt: Date.now() };
  }
}

/**
 * `clients` pollers per target, client i on `paths[i % paths.length]`, all on the same 3 s wall-clock
 * ticks like the widgets' hub. `onReply(target, reply, tick)` sees every answer.
 */
async function pollOnGrid({ targets, clients, paths, ticks, headers, onReply }) {
  const tickTimes = [];
  let tick = nextTick();
  for (let t = 0; t < ticks; t += 1, tick += GRID_MS) {
    await sleep(tick - Date.now());
    tickTimes.push(tick);
    const at = tick;
    await Promise.all(Object.entries(targets).flatMap(([name, target]) =>
      Array.from({ length: clients }, async (_, i) => onReply(name, await get(`${target.url}${paths[i % paths.length]}`, headers), at))));
  }
  return tickTimes;
}

async function hitBench() {
  const { targets, close } = await startTargets({ rateLimitPerMinute: 100_000 });
  const path = `/live/toppages/v3/?host=${HOST}&limit=25`;
  const headers = { 'accept-encoding': 'gzip' };
  const sizes = {};
  for (const [name, target] of Object.entries(targets)) {
    const response = await request(`${target.url}${path}`, { headers });
    sizes[name] = `${(await response.body.arrayBuffer()).byteLength} B ${response.headers['content-encoding'] ?? 'identity'}`;
  }
  const results = { ours: [], nginx: [] };
  const measure = (name, duration) => autocannon({ url: `${targets[name].url}${path}`, connections: 64, duration, headers });
  for (const name of ['ours', 'nginx']) await measure(name, 2); // warm-up
  // ABBA, so a load change on the shared machine hits both alike.
  for (const name of ['ours', 'nginx', 'nginx', 'ours']) results[name].push(await measure(name, 8));
  await close();

  const row = (name) => {
    const runs = results[name];
    const mean = (pick) => runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
    return {
      rps: mean((run) => run.requests.average),
      p50: mean((run) => run.latency.p50),
      p99: mean((run) => run.latency.p99),
      errors: runs.reduce((sum, run) => sum + run.errors + run.timeouts + run.non2xx, 0),
      total: runs.reduce((sum, run) => sum + run.requests.total, 0),
    };
  };
  const [o, n] = [row('ours'), row('nginx')];
  await report('hit', `Measured by \`node --import tsx bench/cache.mjs hit\` on ${startedOn}.
autocannon in the bench process, 64 connections, \`Accept-Encoding: gzip\`, GET \`${path}\` (a fresh or refreshing entry all along), 2 × 8 s per target in the order ours, nginx, nginx, ours. Ours: \`pulse-widgets serve\` in its own process (one event loop), per-IP limit off; nginx: one worker.

| Target | Requests/s | p50 | p99 | Errors / non-2xx | Body |
|---|---|---|---|---|---|
| ours | ${Math.round(o.rps)} | ${o.p50.toFixed(1)} ms | ${o.p99.toFixed(1)} ms | ${o.errors} of ${o.total} | ${sizes.ours} |
| nginx | ${Math.round(n.rps)} | ${n.p50.toFixed(1)} ms | ${n.p99.toFixed(1)} ms | ${n.errors} of ${n.total} | ${sizes.nginx} |
| ours / nginx | ${ratio(o.rps, n.rps)} | ${ratio(o.p50, n.p50)} | ${ratio(o.p99, n.p99)} | | |`);
}

/** Upstream calls per key per 3 s over the measured ticks, counting each call in the tick interval around it. */
function callsPerKeyPerTick(calls, tickTimes, keys) {
  const from = tickTimes[0] - GRID_MS / 2;
  const to = tickTimes.at(-1) + GRID_MS / 2;
  return calls.filter((call) => call.at >= from && call.at < to).length / keys / tickTimes.length;
}

async function herdBench() {
  const clients = 1000;
  const { targets, close } = await startTargets({ latencyMs: 1500 });
  const statuses = { ours: new Map(), nginx: new Map() };
  const onReply = (name, reply) => statuses[name].set(reply.status, (statuses[name].get(reply.status) ?? 0) + 1);
  const headers = { 'accept-encoding': 'gzip' };
  await pollOnGrid({ targets, clients, paths: LIVE_PATHS, ticks: 2, headers, onReply: () => {} });
  const measured = await pollOnGrid({ targets, clients, paths: LIVE_PATHS, ticks: 8, headers, onReply });
  await sleep(GRID_MS);
  const outcomes = await upstreamOutcomes(targets.ours);
  const calls = await close();
  const per = (name) => callsPerKeyPerTick(calls[name], measured, LIVE_PATHS.length);
  const answers = (name) => [...statuses[name]].map(([status, n]) => `${n} × ${status || 'error'}`).join(', ');
  await report('herd', `Measured by \`node --import tsx bench/cache.mjs herd\` on ${startedOn}.
${clients} clients per target, client i polling URL i mod 4 (quickstats, toppages, referrers, top_geo of one site) on the same 3 s wall-clock ticks, gzip; the upstream answers every call in 1.5 s. 2 warm-up ticks, then ${measured.length} measured; a call counts for the tick interval (±1.5 s) it starts in.

| Target | Upstream calls per key per 3 s | Answers |
|---|---|---|
| ours | ${per('ours').toFixed(2)} | ${answers('ours')} |
| nginx | ${per('nginx').toFixed(2)} | ${answers('nginx')} |
| ours / nginx | ${ratio(per('ours'), per('nginx'))} | |

Our upstream calls by outcome, whole run: ${outcomes}.`);
}

async function budgetBench() {
  const keys = Array.from({ length: 15 }, (_, i) => `/live/toppages/v3/?host=${HOST}&limit=${i + 1}`);
  const clientsPerKey = 10;
  const seconds = Number(flag('seconds') ?? 70);
  // The simulator's real limit: 200 calls per sliding minute per site, then 429.
  const { targets, close } = await startTargets({});
  const statuses = { ours: new Map(), nginx: new Map() };
  const onReply = (name, reply) => statuses[name].set(reply.status, (statuses[name].get(reply.status) ?? 0) + 1);
  await pollOnGrid({ targets, clients: keys.length * clientsPerKey, paths: keys, ticks: Math.ceil((seconds * 1000) / GRID_MS), headers: { 'accept-encoding': 'gzip' }, onReply });
  const allCalls = await close();
  const row = (name) => {
    const calls = allCalls[name];
    const most = maxInSlidingWindow(calls.map((call) => call.at), 60_000);
    const refused = calls.filter((call) => call.status === 429).length;
    const answers = [...statuses[name]].map(([status, n]) => `${n} × ${status || 'error'}`).join(', ');
    return { most, total: calls.length, refused, answers };
  };
  const [o, n] = [row('ours'), row('nginx')];
  await report('budget', `Measured by \`node --import tsx bench/cache.mjs budget\` on ${startedOn}.
15 keys of one site (toppages, limit=1…15), ${clientsPerKey} clients per key per target polling on the 3 s grid for ${seconds} s of real time (no scaled clock); each target has its own simulated upstream with the service's limit of 200 calls per sliding minute per site (429 above it).

| Target | Most upstream calls in any sliding minute | Calls in ${seconds} s | Refused by the upstream (429) | Answers to clients |
|---|---|---|---|---|
| ours | ${o.most} (target ≤ 183) | ${o.total} | ${o.refused} | ${o.answers} |
| nginx | ${n.most} | ${n.total} | ${n.refused} | ${n.answers} |
| ours / nginx | ${ratio(o.most, n.most)} | | | |`);
}

async function freshnessBench() {
  const clients = 50;
  const { targets, close } = await startTargets({ latencyMs: 200, stamp: true });
  const ages = { ours: [], nginx: [] };
  const statuses = { ours: 0, nginx: 0 };
  const path = [`/live/quickstats/v4/?host=${HOST}`];
  await pollOnGrid({ targets, clients, paths: path, ticks: 3, onReply: () => {} });
  const measured = await pollOnGrid({
    targets, clients, paths: path, ticks: 10,
    onReply: (name, reply, tick) => {
      if (reply.status !== 200) return;
      statuses[name] += 1;
      ages[name].push(tick - JSON.parse(reply.text).bench_served_at);
    },
  });
  await close();
  const row = (name) => ({ median: median(ages[name]), p90: percentile(ages[name], 90), answers: statuses[name] });
  const [o, n] = [row('ours'), row('nginx')];
  await report('freshness', `Measured by \`node --import tsx bench/cache.mjs freshness\` on ${startedOn}.
${clients} clients per target poll quickstats exactly on the 3 s wall-clock ticks (as the widgets' hub does), 3 warm-up ticks then ${measured.length} measured; the upstream answers in 200 ms and stamps each body with the moment it answered. Age = tick − that stamp: how old the data is when the client asks.

| Target | Median age | p90 age | 200 answers |
|---|---|---|---|
| ours (refresh-ahead) | ${o.median} ms | ${o.p90} ms | ${o.answers} |
| nginx (use_stale updating, background update) | ${n.median} ms | ${n.p90} ms | ${n.answers} |
| ours / nginx | ${ratio(o.median, n.median)} | | |`);
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

async function soakBench() {
  const minutes = Number(flag('minutes') ?? 10);
  const clients = 1000;
  const upstreams = await startUpstreams(1);
  const ours = await startOurs(upstreams.urls[0]);
  const ticks = Math.ceil((minutes * 60_000) / GRID_MS);
  let errors = 0;
  let answers = 0;
  const slowest = [];
  const rss = [];
  const perMinute = 60_000 / GRID_MS;
  let tick = nextTick();
  for (let t = 0; t < ticks; t += 1, tick += GRID_MS) {
    await sleep(tick - Date.now());
    const replies = await Promise.all(Array.from({ length: clients }, (_, i) => get(`${ours.url}${LIVE_PATHS[i % LIVE_PATHS.length]}`, { 'accept-encoding': 'gzip' })));
    answers += replies.length;
    errors += replies.filter((reply) => reply.status !== 200).length;
    slowest.push(Math.max(...replies.map((reply) => reply.receivedAt)) - tick);
    if ((t + 1) % perMinute === 0) {
      rss.push(rssMb(ours.pid));
      console.log(`soak: minute ${rss.length}: RSS ${rss.at(-1).toFixed(1)} MB, ${errors} errors so far`);
    }
  }
  await ours.close();
  const [calls] = await upstreams.report();
  const growth = rss.length > 1 ? rss.at(-1) - rss[0] : 0;
  await report('soak', `Measured by \`node --import tsx bench/cache.mjs soak --minutes ${minutes}\` on ${startedOn}.
${clients} clients polling our endpoint (\`pulse-widgets serve\`, own process) on the 3 s grid, client i on URL i mod 4, gzip, for ${minutes} min (${ticks} ticks, ${answers} requests); simulated upstream at loopback speed.

| Measure | Result | Target |
|---|---|---|
| Errors (non-200 or failed requests) | ${errors} of ${answers} | 0 |
| RSS of our process, end of each minute | ${rss.map((mb) => mb.toFixed(1)).join(', ')} MB | flat |
| RSS growth, end of minute 1 → end | ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB | |
| Time for all ${clients} answers of a tick: median (max) | ${median(slowest)} ms (${Math.max(...slowest)} ms) | |
| Upstream calls | ${calls.length} (${(calls.length / minutes).toFixed(0)} a minute for 4 keys) | |`);
}

const commands = { hit: hitBench, herd: herdBench, budget: budgetBench, freshness: freshnessBench, soak: soakBench };
if (command === 'all') {
  for (const name of ['hit', 'herd', 'budget', 'freshness']) await commands[name]();
} else if (commands[command]) {
  await commands[command]();
} else {
  console.error(`unknown command ${command}: one of ${Object.keys(commands).join(', ')}, all`);
  process.exitCode = 2;
}
await clientAgent.close();
