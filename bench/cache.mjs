/**
 * The cache endpoint against nginx, side by side in one run, on loopback only and bounded in
 * time. Ours runs as `pulse-widgets serve` in a child process (so it never shares an event loop
 * with the load generator); nginx is Debian's, one worker; the upstream is the seeded simulator
 * in its own process.
 *
 *   hit        cache-hit throughput and p50/p99 latency, measured by wrk in its own process, one
 *              core per server: ours, nginx caching the gzipped body (bench/nginx/gzip-cache.conf),
 *              the examples/nginx recipe and bare node:http (its own headers, and ours); with connections opened during the
 *              run and open first (bench/wrk/open-connections.lua); rounds alternated (--rounds, --seconds)
 *   folded     ours alone: hits on a folded query against hits on its group's wide query (wrk)
 *   memory     bytes per cached entry (in this process)
 *   herd       upstream calls per key per 3 s: 1,000 clients polling on the 3 s grid, 1.5 s upstream
 *   budget     most upstream calls in any sliding minute: 15 keys of one site, real clock, 70 s
 *   freshness  median age of the data clients get polling on the 3 s grid, 200 ms upstream
 *   soak       ours alone, 1,000 clients for --minutes (10): errors and the RSS of our process
 *   all        hit, memory, herd, budget, freshness (about 13 minutes)
 *
 * Each command writes its table into BENCHMARKS.md between `<!-- cache-<command> -->` markers
 * (`--no-write` only prints it).
 *
 *   node --import tsx bench/cache.mjs <command> [--minutes N] [--no-write]
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createCacheHandler, createLogger } from '../src/server/http/handler.ts';
import { DEMO_HOSTS } from '../src/simulator/index.ts';
import { maxInSlidingWindow } from '../test/helpers/cache-harness.node.ts';
import { NGINX_BINARY } from '../scripts/servers.mjs';
import { startNginx } from '../test/helpers/nginx-process.node.ts';
import { replaceSection } from './report.mjs';
import { cleanEnv, serveCommand, startListening } from '../test/helpers/serve-process.node.ts';
import { startUpstreams } from './upstreams.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const API_KEY = 'bench-key-7d2a91c4';
const HOST = DEMO_HOSTS[0];
const GRID_MS = 3000;
const LIVE_PATHS = ['quickstats/v4', 'toppages/v3', 'referrers/v3', 'top_geo/v1'].map(
  (route) => `/live/${route}/?host=${HOST}`,
);

const args = process.argv.slice(2);
const command = args.find((arg) => !arg.startsWith('--')) ?? 'all';
const flag = (name) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const write = !args.includes('--no-write');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const nextTick = (after = Date.now()) => Math.ceil((after + 1) / GRID_MS) * GRID_MS;
const median = (values) => percentile(values, 50);
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const ratio = (a, b) => (b === 0 ? '∞' : `${(a / b).toFixed(2)}×`);

/** Machine notes, taken when the run starts (the load average is the one the run met). */
function machine() {
  // nginx -v prints its version on stderr.
  const nginxVersion = NGINX_BINARY
    ? /nginx\/[\d.]+/.exec(spawnSync(NGINX_BINARY, ['-v'], { encoding: 'utf8' }).stderr)?.[0]
    : 'no nginx';
  return `${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ')} when the run started (shared with other work), Node ${process.version}, ${nginxVersion}`;
}

const startedOn = machine();

async function report(name, text) {
  console.log(`\n${text}\n`);
  if (write) await replaceSection(`cache-${name}`, text);
}

/** `pulse-widgets serve`, one process (`--workers 1`, as nginx runs one worker), pinned to `cpu` if given; resolves with its URL, its PID and a close(). */
function startOurs(upstream, cpu, env = {}) {
  const command = serveCommand();
  return startListening(...(cpu === undefined ? command : onCpu(cpu, ...command)), {
    cwd: ROOT,
    env: {
      ...cleanEnv(),
      PULSE_UPSTREAM: upstream,
      PULSE_API_KEY: API_KEY,
      PULSE_HOSTS: HOST,
      PORT: '0',
      PULSE_CLIENT_LIMIT: '0',
      PULSE_NEW_QUERY_LIMIT: '0',
      PULSE_LOG_LEVEL: 'error',
      PULSE_WORKERS: '1',
      ...env,
    },
  });
}

/** Both targets, each in front of its own upstream; `close()` stops everything and resolves with each target's upstream calls. */
async function startTargets(upstreamOptions, oursEnv) {
  const upstreams = await startUpstreams(2, { apiKey: API_KEY, ...upstreamOptions });
  const ours = await startOurs(upstreams.urls[0], undefined, oursEnv);
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
  for (const [, status, count] of text.matchAll(
    /^pulse_upstream_calls_total\{[^}]*status="([^"]+)"[^}]*\} (\d+)/gm,
  )) {
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
    await Promise.all(
      Object.entries(targets).flatMap(([name, target]) =>
        Array.from({ length: clients }, async (_, i) =>
          onReply(name, await get(`${target.url}${paths[i % paths.length]}`, headers), at),
        ),
      ),
    );
  }
  return tickTimes;
}

const CPU = { load: 0, server: 1 };
const pinned = cpus().length >= 2;
/** `command` pinned to one CPU with taskset when the machine has two or more. */
const onCpu = (cpu, command, commandArgs) =>
  pinned ? ['taskset', ['-c', String(cpu), command, ...commandArgs]] : [command, commandArgs];

/**
 * How wrk's connections meet a target. `opened during the run`: plain wrk, all connections opened
 * as the clock starts, as a burst of new readers arrives. `open first`: bench/wrk/open-connections.lua
 * holds each connection's first request 1 s, so the clock starts on connections already accepted,
 * as polling widgets keep theirs; that 1 s is added to -d and left out of Requests/s.
 */
const OPEN_FIRST = 'open first';
const CONNECTIONS = ['opened during the run', OPEN_FIRST];
const idleSeconds = (mode) => (mode === OPEN_FIRST ? 1 : 0);

/** wrk's arguments for `mode` (the same ones the report prints). */
function wrkArgs(mode, connections, seconds, url) {
  const open = mode === OPEN_FIRST;
  return [
    '-t1',
    `-c${connections}`,
    `-d${seconds + idleSeconds(mode)}s`,
    '--timeout',
    '2s',
    '--latency',
    '-H',
    'Accept-Encoding: gzip',
    ...(open ? ['-s', 'bench/wrk/open-connections.lua', url, '--', String(connections)] : [url]),
  ];
}

/** One wrk run in its own process; its numbers parsed from the text it prints. */
function wrk(url, connections, seconds, mode = CONNECTIONS[0]) {
  const [command, commandArgs] = onCpu(CPU.load, 'wrk', wrkArgs(mode, connections, seconds, url));
  const run = spawnSync(command, commandArgs, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: (seconds + 30) * 1000,
  });
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
  const text = run.stdout;
  if (process.env.BENCH_VERBOSE) console.log(text);
  const ms = (value, unit) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? NaN);
  const latency = (p) => {
    const found = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(text);
    return found ? ms(found[1], found[2]) : NaN;
  };
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  // wrk's Requests/sec counts the whole run; its runtime, recovered exactly from it, less the idle start.
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? NaN);
  const runtime = requests / Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
  return {
    rps: requests / (runtime - idleSeconds(mode)),
    p50: latency(50),
    p99: latency(99),
    timeouts: errors ? Number(errors[4]) : 0,
    socketErrors: errors ? Number(errors[1]) + Number(errors[2]) + Number(errors[3]) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
  };
}

const WRK_VERSION =
  (spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout ?? '').split('\n')[0]?.trim() ||
  'wrk (version unknown)';

async function hitBench() {
  const seconds = Number(flag('seconds') ?? 10);
  const rounds = Number(flag('rounds') ?? 3);
  const concurrencies = [50, 200];
  const path = `/live/toppages/v3/?host=${HOST}&limit=25`;
  const upstreams = await startUpstreams(1, { apiKey: API_KEY, rateLimitPerMinute: 1_000_000, gzip: true });
  const upstream = upstreams.urls[0];
  const strongest = readFileSync(new URL('nginx/gzip-cache.conf', import.meta.url), 'utf8');
  const gzipped = await request(`${upstream}${path}`, {
    headers: { 'x-svc-ak': API_KEY, 'accept-encoding': 'gzip' },
  });
  const bodyFile = join(await mkdtemp(join(tmpdir(), 'pulse-bench-')), 'toppages.json.gz');
  await writeFile(bodyFile, Buffer.from(await gzipped.body.arrayBuffer()));

  const bare = 'bare node:http, one gzip Buffer';
  const bareOurs = "bare node:http, our hit's headers";
  const ours = await startOurs(upstream, CPU.server);
  // Our hit as sent, its body and its header lines (Date and the connection's own left to
  // node:http), for a bare server that sends the same answer: the ceiling of Node for it, with
  // nothing else to do. Our body, not the upstream's: its Content-Length is ours.
  await (await request(`${ours.url}${path}`)).body.dump(); // the miss that fills
  const hit = await request(`${ours.url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
  const hitBodyFile = join(dirname(bodyFile), 'hit-body.json.gz');
  await writeFile(hitBodyFile, Buffer.from(await hit.body.arrayBuffer()));
  const hitHeaders = Object.entries(hit.headers)
    .filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name))
    .flat();
  const headersFile = join(dirname(bodyFile), 'hit-headers.json');
  await writeFile(headersFile, JSON.stringify(hitHeaders));
  const targets = {
    ours,
    'nginx, gzip body cached': await startNginx({
      upstream,
      apiKey: API_KEY,
      hosts: [HOST],
      site: strongest,
      cpu: pinned ? CPU.server : undefined,
    }),
    'nginx, examples recipe': await startNginx({
      upstream,
      apiKey: API_KEY,
      hosts: [HOST],
      cpu: pinned ? CPU.server : undefined,
    }),
    [bare]: await startListening(
      ...onCpu(CPU.server, process.execPath, [
        fileURLToPath(new URL('bare-node.mjs', import.meta.url)),
        bodyFile,
      ]),
    ),
    [bareOurs]: await startListening(
      ...onCpu(CPU.server, process.execPath, [
        fileURLToPath(new URL('bare-node.mjs', import.meta.url)),
        hitBodyFile,
        headersFile,
      ]),
    ),
  };
  const names = Object.keys(targets);
  const answers = {};
  for (const name of names) {
    const response = await request(`${targets[name].url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
    answers[name] =
      `${response.statusCode}, ${(await response.body.arrayBuffer()).byteLength} B ${response.headers['content-encoding'] ?? 'identity'}`;
    wrk(`${targets[name].url}${path}`, 50, 2); // warm-up: connections, JIT, page cache
  }
  const results = Object.fromEntries(
    CONNECTIONS.map((mode) => [
      mode,
      Object.fromEntries(concurrencies.map((c) => [c, Object.fromEntries(names.map((name) => [name, []]))])),
    ]),
  );
  for (let round = 0; round < rounds; round += 1) {
    for (const c of concurrencies) {
      for (const mode of CONNECTIONS) {
        // Each round starts with another target, so a load change on the shared machine falls on all alike.
        const order = names.map((_, i) => names[(i + round) % names.length]);
        for (const name of order) {
          const run = wrk(`${targets[name].url}${path}`, c, seconds, mode);
          results[mode][c][name].push(run);
          console.log(
            `round ${round + 1}, c=${c}, connections ${mode}, ${name}: ${Math.round(run.rps)} req/s, p99 ${run.p99} ms, ${run.timeouts} timeouts`,
          );
        }
      }
    }
  }
  for (const target of Object.values(targets)) await target.close();
  await upstreams.report();

  const summary = (runs) => ({
    rps: median(runs.map((run) => run.rps)),
    low: Math.min(...runs.map((run) => run.rps)),
    high: Math.max(...runs.map((run) => run.rps)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    worstP99: Math.max(...runs.map((run) => run.p99)),
    timeouts: runs.reduce((sum, run) => sum + run.timeouts, 0),
    errors: runs.reduce((sum, run) => sum + run.socketErrors + run.non2xx, 0),
  });
  const p99 = (r) => `${r.p99.toFixed(2)} ms (worst ${r.worstP99.toFixed(2)})`;
  const rows = [];
  const ratios = [];
  for (const c of concurrencies) {
    for (const mode of CONNECTIONS) {
      const s = Object.fromEntries(names.map((name) => [name, summary(results[mode][c][name])]));
      for (const name of names) {
        const r = s[name];
        rows.push(
          `| ${c} | ${mode} | ${name} | ${Math.round(r.rps)} (${Math.round(r.low)}–${Math.round(r.high)}) | ${r.p50.toFixed(2)} ms | ${p99(r)} | ${r.timeouts} | ${r.errors} |`,
        );
      }
      const best = names
        .filter((name) => name.startsWith('nginx'))
        .reduce((a, b) => (s[a].rps >= s[b].rps ? a : b));
      ratios.push(
        `| ${c} | ${mode} | ${(s.ours.rps / s[best].rps).toFixed(2)}× (${best}) | ${(s.ours.rps / s[bare].rps).toFixed(2)}× | ${(s.ours.rps / s[bareOurs].rps).toFixed(2)}× | ${p99(s.ours)} | ${p99(s[best])} | ${p99(s[bare])} | ${p99(s[bareOurs])} | ${s.ours.timeouts} |`,
      );
    }
  }
  const pinning = pinned
    ? `Each server pinned to CPU ${CPU.server} (\`taskset -c ${CPU.server}\` for Node, \`worker_processes 1; worker_cpu_affinity\` for nginx), wrk to CPU ${CPU.load} (\`taskset -c ${CPU.load}\`)`
    : 'Only one CPU: nothing pinned, wrk shares it with the server';
  const shell = (arg) => (arg.includes(' ') ? `'${arg}'` : arg);
  const wrkLine = (mode) => `\`wrk ${wrkArgs(mode, '<c>', seconds, '<url>').map(shell).join(' ')}\``;
  await report(
    'hit',
    `Measured by \`npm run bench:cache\` (\`node --import tsx bench/cache.mjs hit\`) on ${startedOn}, ${WRK_VERSION}.
**The machine is shared with other developers' builds and browser tests**: absolute numbers move with their load; the ratios come from rounds alternated side by side in one run. ${pinning}; one simulated upstream for all (its own process, answering gzip level 6 to callers that accept it). nginx: one worker (test/helpers/nginx-process.node.ts: \`keepalive_requests 1000000\`, \`access_log off\`) with the site config \`bench/nginx/gzip-cache.conf\` (the gzipped body cached as received) or \`examples/nginx/pulse-cache.conf\` (the recipe). GET \`${path}\` (a fresh entry all along), ${rounds} rounds; a round runs every target once per concurrency and per way of connecting, each round starting with the next target. Ours: \`pulse-widgets serve --workers 1\` (one process, per-IP limit off as nginx has none). Two ways of connecting:
- **opened during the run**: ${wrkLine(CONNECTIONS[0])}: wrk opens its c connections as the clock starts, as a burst of new readers would.
- **open first**: ${wrkLine(OPEN_FIRST)}: the script holds each connection's first request ${idleSeconds(OPEN_FIRST)} s, so all are open and accepted before any measured request, as polling widgets keep theirs; Requests/s counts the ${seconds} s after it.

Requests/s: median of the rounds (lowest–highest); p50, p99: median of the rounds (worst round).

| c | Connections | Target | Requests/s | p50 | p99 | wrk timeouts | Errors / non-2xx |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

| c | Connections | Ours / best nginx | Ours / bare node:http | Ours / bare node:http with our headers | Our p99 | That nginx's p99 | Bare node:http's p99 | Bare node:http's p99 with our headers | Our timeouts |
|---|---|---|---|---|---|---|---|---|---|
${ratios.join('\n')}

Answers (status, bytes, encoding): ${names.map((name) => `${name}: ${answers[name]}`).join('; ')}.`,
  );
}

/**
 * Ours alone: hits on a folded query (toppages limit=5, answered from its group's wide limit=25)
 * against hits on that wide query itself, on one server, rounds alternated. The wide query is
 * polled every second meanwhile, as a dashboard's other cards poll it: alone for two intervals,
 * the member would become its group's wide query and take the plain path.
 */
async function foldedBench() {
  const seconds = Number(flag('seconds') ?? 10);
  const rounds = Number(flag('rounds') ?? 3);
  const c = 50;
  const wide = `/live/toppages/v3/?host=${HOST}&limit=25`;
  const paths = {
    'a folded query (limit=5)': `/live/toppages/v3/?host=${HOST}&limit=5`,
    'its wide query (limit=25)': wide,
  };
  const upstreams = await startUpstreams(1, { apiKey: API_KEY, rateLimitPerMinute: 1_000_000, gzip: true });
  const ours = await startOurs(upstreams.urls[0], CPU.server);
  // A connection of its own each time: one kept idle through a wrk run is closed by the server.
  const answer = async (path) => {
    const response = await request(`${ours.url}${path}`, {
      headers: { 'accept-encoding': 'gzip' },
      reset: true,
    });
    await response.body.dump();
    return response.headers['cache-status'];
  };
  await Promise.all(Object.values(paths).map(answer)); // one dashboard's first poll: one fill of the wide query
  // In a process of its own: wrk runs synchronously here, and this loop's timers wait for it.
  const poller = spawn(
    process.execPath,
    [
      '-e',
      `setInterval(() => fetch(${JSON.stringify(ours.url + wide)}).then((r) => r.arrayBuffer(), () => {}), 1000)`,
    ],
    { stdio: 'ignore' },
  );
  const statuses = {};
  for (const [name, path] of Object.entries(paths)) {
    await answer(path);
    statuses[name] = await answer(path);
    wrk(`${ours.url}${path}`, c, 2); // warm-up
  }
  const runs = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1)
    for (const [name, path] of round % 2 ? Object.entries(paths).reverse() : Object.entries(paths)) {
      const run = wrk(`${ours.url}${path}`, c, seconds);
      runs[name].push(run);
      // Still what it was at the start: a folded query left alone would take the plain path.
      const after = await answer(path);
      console.log(
        `round ${round + 1}, ${name}: ${Math.round(run.rps)} req/s, p99 ${run.p99} ms; then ${after}`,
      );
    }
  poller.kill();
  await ours.close();
  await upstreams.report();
  const rows = Object.entries(runs).map(([name, list]) => {
    const rps = list.map((run) => run.rps);
    return `| ${name} | ${Math.round(median(rps))} (${Math.round(Math.min(...rps))}–${Math.round(Math.max(...rps))}) | ${median(list.map((run) => run.p50)).toFixed(2)} ms | ${median(list.map((run) => run.p99)).toFixed(2)} ms | \`${statuses[name]}\` |`;
  });
  const [folded, plain] = Object.keys(paths).map((name) => median(runs[name].map((run) => run.rps)));
  await report(
    'folded',
    `Measured by \`node --import tsx bench/cache.mjs folded\` on ${startedOn}, ${WRK_VERSION}. Ours alone (\`pulse-widgets serve --workers 1\`, per-IP limit off), ${pinned ? `pinned to CPU ${CPU.server}, wrk to CPU ${CPU.load}` : 'wrk on the same CPU'}; \`${wrkArgs(CONNECTIONS[0], c, seconds, '<url>').join(' ')}\`, ${rounds} rounds alternated; the wide query polled every second meanwhile. Requests/s: median (lowest–highest); p50, p99: medians.

| Target | Requests/s | p50 | p99 | Cache-Status |
|---|---|---|---|---|
${rows.join('\n')}

Folded / wide: ${(folded / plain).toFixed(2)}×.`,
  );
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
  const onReply = (name, reply) =>
    statuses[name].set(reply.status, (statuses[name].get(reply.status) ?? 0) + 1);
  const headers = { 'accept-encoding': 'gzip' };
  await pollOnGrid({ targets, clients, paths: LIVE_PATHS, ticks: 2, headers, onReply: () => {} });
  const measured = await pollOnGrid({ targets, clients, paths: LIVE_PATHS, ticks: 8, headers, onReply });
  await sleep(GRID_MS);
  const outcomes = await upstreamOutcomes(targets.ours);
  const calls = await close();
  const per = (name) => callsPerKeyPerTick(calls[name], measured, LIVE_PATHS.length);
  const answers = (name) =>
    [...statuses[name]].map(([status, n]) => `${n} × ${status || 'error'}`).join(', ');
  await report(
    'herd',
    `Measured by \`node --import tsx bench/cache.mjs herd\` on ${startedOn}.
${clients} clients per target, client i polling URL i mod 4 (quickstats, toppages, referrers, top_geo of one site) on the same 3 s wall-clock ticks, gzip; the upstream answers every call in 1.5 s. 2 warm-up ticks, then ${measured.length} measured; a call counts for the tick interval (±1.5 s) it starts in.

| Target | Upstream calls per key per 3 s | Answers |
|---|---|---|
| ours | ${per('ours').toFixed(2)} | ${answers('ours')} |
| nginx | ${per('nginx').toFixed(2)} | ${answers('nginx')} |
| ours / nginx | ${ratio(per('ours'), per('nginx'))} | |

Our upstream calls by outcome, whole run: ${outcomes}.`,
  );
}

async function budgetBench() {
  const keys = Array.from({ length: 15 }, (_, i) => `/live/toppages/v3/?host=${HOST}&limit=${i + 1}`);
  const clientsPerKey = 10;
  const seconds = Number(flag('seconds') ?? 70);
  // The simulator's real limit: 200 calls per sliding minute per site, then 429.
  // Fifteen limits of one query would fold into one fill (bench:freshness measures that): with
  // folding off they are 15 keys competing for the budget, as nginx sees them.
  const { targets, close } = await startTargets({}, { PULSE_FOLD: 'off' });
  const statuses = { ours: new Map(), nginx: new Map() };
  const onReply = (name, reply) =>
    statuses[name].set(reply.status, (statuses[name].get(reply.status) ?? 0) + 1);
  await pollOnGrid({
    targets,
    clients: keys.length * clientsPerKey,
    paths: keys,
    ticks: Math.ceil((seconds * 1000) / GRID_MS),
    headers: { 'accept-encoding': 'gzip' },
    onReply,
  });
  const allCalls = await close();
  const row = (name) => {
    const calls = allCalls[name];
    const most = maxInSlidingWindow(
      calls.map((call) => call.at),
      60_000,
    );
    const refused = calls.filter((call) => call.status === 429).length;
    const answers = [...statuses[name]].map(([status, n]) => `${n} × ${status || 'error'}`).join(', ');
    return { most, total: calls.length, refused, answers };
  };
  const [o, n] = [row('ours'), row('nginx')];
  await report(
    'budget',
    `Measured by \`node --import tsx bench/cache.mjs budget\` on ${startedOn}.
15 keys of one site (toppages, limit=1…15), ${clientsPerKey} clients per key per target polling on the 3 s grid for ${seconds} s of real time (no scaled clock); each target has its own simulated upstream with the service's limit of 200 calls per sliding minute per site (429 above it).

| Target | Most upstream calls in any sliding minute | Calls in ${seconds} s | Refused by the upstream (429) | Answers to clients |
|---|---|---|---|---|
| ours | ${o.most} (target ≤ 183) | ${o.total} | ${o.refused} | ${o.answers} |
| nginx | ${n.most} | ${n.total} | ${n.refused} | ${n.answers} |
| ours / nginx | ${ratio(o.most, n.most)} | | | |`,
  );
}

async function freshnessBench() {
  const clients = 50;
  const { targets, close } = await startTargets({ latencyMs: 200, stamp: true });
  const ages = { ours: [], nginx: [] };
  const statuses = { ours: 0, nginx: 0 };
  const path = [`/live/quickstats/v4/?host=${HOST}`];
  await pollOnGrid({ targets, clients, paths: path, ticks: 3, onReply: () => {} });
  const measured = await pollOnGrid({
    targets,
    clients,
    paths: path,
    ticks: 10,
    onReply: (name, reply, tick) => {
      if (reply.status !== 200) return;
      statuses[name] += 1;
      ages[name].push(tick - JSON.parse(reply.text).bench_served_at);
    },
  });
  await close();
  const row = (name) => ({
    median: median(ages[name]),
    p90: percentile(ages[name], 90),
    answers: statuses[name],
  });
  const [o, n] = [row('ours'), row('nginx')];
  await report(
    'freshness',
    `Measured by \`node --import tsx bench/cache.mjs freshness\` on ${startedOn}.
${clients} clients per target poll quickstats exactly on the 3 s wall-clock ticks (as the widgets' hub does), 3 warm-up ticks then ${measured.length} measured; the upstream answers in 200 ms and stamps each body with the moment it answered. Age = tick − that stamp: how old the data is when the client asks.

| Target | Median age | p90 age | 200 answers |
|---|---|---|---|
| ours (refresh-ahead) | ${o.median} ms | ${o.p90} ms | ${o.answers} |
| nginx (use_stale updating, background update) | ${n.median} ms | ${n.p90} ms | ${n.answers} |
| ours / nginx | ${ratio(o.median, n.median)} | | |`,
  );
}

/**
 * Bytes per cached entry: `count` toppages entries (limit=25, each its own key through
 * exclude_people, so their bodies vary in size) filled in this process. What an entry costs
 * beside its bodies is the memory growth minus the bytes of all stored bodies.
 */
async function memoryBench() {
  const count = Number(flag('entries') ?? 1000);
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const upstreams = await startUpstreams(1, { apiKey: API_KEY, rateLimitPerMinute: 1_000_000 });
  const cache = createCacheHandler({
    upstream: upstreams.urls[0],
    apiKey: API_KEY,
    hosts: [HOST],
    clientLimit: 0,
    logger: createLogger('silent'),
    budgetFills: 1_000_000,
    cacheMaxEntries: count * 2 + 400,
    cacheMaxBytes: 2 ** 30,
  });
  const url = (i) =>
    `http://bench.local/live/toppages/v3/?host=${HOST}&limit=25${i === 0 ? '' : `&exclude_people=${i}`}`;
  const settle = async () => {
    for (let i = 0; i < 3; i += 1) {
      gc();
      await sleep(50);
    }
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.external;
  };
  const gauge = async (name) =>
    Number(
      new RegExp(`^${name} (\\d+)$`, 'm').exec(
        await (await cache.handle(new Request('http://bench.local/metrics'))).text(),
      )?.[1],
    );
  const fill = async (from, to) => {
    for (let i = from; i < to; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, to - i) }, (_, j) => cache.handle(new Request(url(i + j)))),
      );
    }
  };
  // A first batch the same way, so connections, compiled code and pools exist before counting.
  await fill(count, count + 200);
  const before = await settle();
  const bytesBefore = await gauge('pulse_cache_bytes');
  const entriesBefore = await gauge('pulse_cache_entries');
  await fill(0, count);
  const after = await settle();
  const entries = (await gauge('pulse_cache_entries')) - entriesBefore;
  const bodyBytes = (await gauge('pulse_cache_bytes')) - bytesBefore;
  const sizes = {};
  for (const encoding of ['identity', 'gzip', 'br']) {
    const response = await cache.handle(new Request(url(0), { headers: { 'accept-encoding': encoding } }));
    sizes[encoding] = (await response.arrayBuffer()).byteLength;
  }
  await cache.close();
  await upstreams.report();
  const overhead = (after - before - bodyBytes) / entries;
  const full = sizes.identity + sizes.gzip + sizes.br;
  await report(
    'memory',
    `Measured by \`node --import tsx bench/cache.mjs memory\` on ${startedOn}.
${entries} toppages entries (limit=25, each its own key through \`exclude_people\`, so bodies vary) filled through \`createCacheHandler\` in the bench process; V8 heap plus external memory after a full GC, before and after.

| Measure | Bytes |
|---|---|
| Per entry beside its bodies (key, timing, ETag, LRU node, per-key state) | ${Math.round(overhead)} |
| Bodies of the ${entries} entries, all three encodings (\`pulse_cache_bytes\`), per entry | ${Math.round(bodyBytes / entries)} |
| The hit benchmark's entry (limit=25, 25 pages): identity + gzip + br | ${sizes.identity} + ${sizes.gzip} + ${sizes.br} = ${full} |
| So one such entry in memory | ${Math.round(full + overhead)} |

The default 64 MiB (\`PULSE_CACHE_MB\`, counted on the bodies) holds about ${Math.round((64 * 2 ** 20) / full)} entries like the benchmark's.`,
  );
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

async function soakBench() {
  const minutes = Number(flag('minutes') ?? 10);
  const clients = 1000;
  const upstreams = await startUpstreams(1, { apiKey: API_KEY });
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
    const replies = await Promise.all(
      Array.from({ length: clients }, (_, i) =>
        get(`${ours.url}${LIVE_PATHS[i % LIVE_PATHS.length]}`, { 'accept-encoding': 'gzip' }),
      ),
    );
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
  await report(
    'soak',
    `Measured by \`node --import tsx bench/cache.mjs soak --minutes ${minutes}\` on ${startedOn}.
${clients} clients polling our endpoint (\`pulse-widgets serve\`, own process) on the 3 s grid, client i on URL i mod 4, gzip, for ${minutes} min (${ticks} ticks, ${answers} requests); simulated upstream at loopback speed.

| Measure | Result | Target |
|---|---|---|
| Errors (non-200 or failed requests) | ${errors} of ${answers} | 0 |
| RSS of our process, end of each minute | ${rss.map((mb) => mb.toFixed(1)).join(', ')} MB | flat |
| RSS growth, end of minute 1 → end | ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB | |
| Time for all ${clients} answers of a tick: median (max) | ${median(slowest)} ms (${Math.max(...slowest)} ms) | |
| Upstream calls | ${calls.length} (${(calls.length / minutes).toFixed(0)} a minute for 4 keys) | |`,
  );
}

const commands = {
  hit: hitBench,
  folded: foldedBench,
  memory: memoryBench,
  herd: herdBench,
  budget: budgetBench,
  freshness: freshnessBench,
  soak: soakBench,
};
if (command === 'all') {
  for (const name of ['hit', 'memory', 'herd', 'budget', 'freshness']) await commands[name]();
} else if (commands[command]) {
  await commands[command]();
} else {
  console.error(`unknown command ${command}: one of ${Object.keys(commands).join(', ')}, all`);
  process.exitCode = 2;
}
await clientAgent.close();
