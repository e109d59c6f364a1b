/**
 * `pulse-widgets serve --workers 3` for real: a primary and three node:cluster workers on one
 * port, in front of a counting fake upstream in this process, without Redis (the workers share
 * through the primary). Requests go out on fresh connections, which the cluster deals round-robin
 * to the workers. Times are scaled down through cache options, as in the budget tests.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { API_KEY, maxInSlidingWindow, scaledTimes, until } from './helpers/cache-harness.node.ts';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.node.ts';
import { cleanEnv } from './helpers/serve-process.node.ts';

const FIXTURE = fileURLToPath(new URL('./helpers/workers-fixture.node.ts', import.meta.url));
const WORKERS = 3;

interface Cluster {
  url: string;
  primary: ChildProcess;
  /** JSON log lines of the primary and every worker. */
  logs(): Record<string, unknown>[];
  workerPids(): number[];
  stop(): Promise<number | null>;
}

async function startCluster(upstream: FakeUpstream, cacheOptions: Record<string, number | boolean>): Promise<Cluster> {
  const primary = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    env: {
      ...cleanEnv(),
      PULSE_UPSTREAM: upstream.url,
      PULSE_API_KEY: API_KEY,
      PULSE_HOSTS: 'example.com,news.example.org',
      PORT: '0',
      PULSE_WORKERS: String(WORKERS),
      PULSE_CLIENT_LIMIT: '0',
      PULSE_LOG_LEVEL: 'debug',
      PULSE_TEST_CACHE_OPTIONS: JSON.stringify(cacheOptions),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  primary.stdout!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => primary.once('exit', (code) => resolve(code)));
  after(() => {
    if (primary.exitCode === null) primary.kill('SIGKILL');
  });
  await until(() => /listening on http:\/\/[\d.:]+/.test(output) || primary.exitCode !== null, 'the cluster listening', 30_000);
  const url = /listening on (http:\/\/[\d.:]+)/.exec(output)?.[1];
  assert.ok(url, `the cluster did not start: ${output}`);
  const workerPids = () => {
    const children = readFileSync(`/proc/${primary.pid}/task/${primary.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.filter((pid) => existsSync(`/proc/${pid}/cmdline`) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('workers-fixture'));
  };
  await until(() => workerPids().length === WORKERS, `${WORKERS} workers`, 30_000);
  return {
    url,
    primary,
    logs: () => output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>),
    workerPids,
    // SIGTERM; a primary still running 15 s later is killed, and its exit code (null) fails the test.
    stop: () => {
      primary.kill('SIGTERM');
      const kill = setTimeout(() => primary.kill('SIGKILL'), 15_000);
      return exited.finally(() => clearTimeout(kill));
    },
  };
}

/** One request on its own connection, so the cluster may give it to any worker; an answer within 10 s, or the test fails instead of hanging. */
function get(base: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(`${base}${path}`, { agent: false, headers: { connection: 'close' }, signal: AbortSignal.timeout(10_000) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject).end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`--workers ${WORKERS} without Redis`, { skip: existsSync('/proc/self/task') ? false : 'needs /proc to find the worker processes' }, () => {
  test('a herd on one key across the workers: one upstream call, one body; leases were held by one worker for the others', async () => {
    const upstream = await startFakeUpstream();
    after(() => upstream.close());
    const cluster = await startCluster(upstream, { liveTtlMs: 10_000, upstreamTimeoutMs: 9000, maxWaitMs: 9000 });
    const release = upstream.hold();
    const path = '/live/toppages/v3/?host=example.com&limit=7';
    const herd = Array.from({ length: 30 }, () => get(cluster.url, path));
    await upstream.arrived(1);
    await sleep(200); // let the rest of the herd reach the workers; late ones find the entry and hit
    release();
    const replies = await Promise.all(herd);
    assert.deepEqual([...new Set(replies.map((reply) => reply.status))], [200]);
    assert.equal(new Set(replies.map((reply) => reply.body)).size, 1, 'every worker answers the same fill');
    assert.equal(upstream.calls.length, 1, 'one upstream call for the whole herd');
    // /metrics from any worker sums every worker's counters.
    const metrics = (await get(cluster.url, '/metrics')).body;
    const counter = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1] ?? 0);
    assert.equal(counter(/^pulse_shared_leases_total\{outcome="offline"\} (\d+)$/m), 0, 'the primary always answered');
    assert.ok(counter(/^pulse_shared_leases_total\{outcome="held"\} (\d+)$/m) >= 1, `another worker waited on the lease holder:\n${metrics}`);
    const answered = counter(/^pulse_cache_hits_total\{route="toppages"\} (\d+)$/m) + counter(/^pulse_cache_misses_total\{route="toppages"\} (\d+)$/m);
    assert.equal(answered, herd.length, 'every answer of the herd is counted once, whichever worker gave it');
    assert.equal(await cluster.stop(), 0);
  });

  test('a dashboard opening across the workers: the queries of one fold group make one upstream call', async () => {
    const upstream = await startFakeUpstream();
    after(() => upstream.close());
    const cluster = await startCluster(upstream, { liveTtlMs: 10_000, upstreamTimeoutMs: 9000, maxWaitMs: 9000 });
    const limits = [1, 2, 3, 4, 5, 6];
    // Fresh connections, dealt round-robin: every worker sees part of the dashboard.
    const replies = await Promise.all(limits.map((limit) => get(cluster.url, `/live/toppages/v3/?host=example.com&limit=${limit}`)));
    assert.deepEqual(replies.map((reply) => reply.status), limits.map(() => 200));
    assert.deepEqual(upstream.calls.map((call) => `${call.url.pathname}${call.url.search}`), ['/live/toppages/v3/?host=example.com&limit=6']);
    assert.equal(await cluster.stop(), 0);
  });

  test('a dashboard polled on the 3 s grid across the workers: one refill per query per tick, the most polled last before the tick', async () => {
    const upstream = await startFakeUpstream();
    after(() => upstream.close());
    const cluster = await startCluster(upstream, {});
    // Five upstream queries: toppages folds four widgets (limit=4 fills them), the others one each.
    // quickstats with all_platforms also answers the history recorder's sample of the minute.
    const widest = '/live/toppages/v3/?host=example.com&limit=4';
    const singles = ['/live/quickstats/v4/?all_platforms=1&host=example.com', '/live/referrers/v3/?host=example.com&limit=5', '/live/summary/v3/?host=example.com&keys=new', '/live/top_geo/v1/?host=example.com&limit=5'];
    const paths = [1, 2, 3, 4].map((limit) => `/live/toppages/v3/?host=example.com&limit=${limit}`).concat(singles);
    const first = Math.ceil((Date.now() + 500) / 3000) * 3000;
    const ticks = [0, 1, 2, 3, 4].map((tick) => first + tick * 3000);
    const statuses: number[][] = [];
    for (const tick of ticks) {
      await sleep(tick + 30 - Date.now());
      // Fresh connections: the cluster deals each widget's poll to any worker.
      statuses.push((await Promise.all(paths.map((path) => get(cluster.url, path)))).map((reply) => reply.status));
    }
    // The plan as /metrics shows it, from any worker: every worker's, not their sum.
    const metrics = (await get(cluster.url, '/metrics')).body;
    const gauge = (name: string) => Number(new RegExp(`^pulse_schedule_${name}\\{host="example.com"\\} ([\\d.]+)$`, 'm').exec(metrics)?.[1]);
    assert.deepEqual({ keys: gauge('keys'), groups: gauge('groups'), callsPerMinute: gauge('calls_per_minute'), stretch: gauge('stretch') }, { keys: 8, groups: 5, callsPerMinute: 100, stretch: 1 });
    assert.equal(await cluster.stop(), 0);
    assert.deepEqual([...new Set(statuses.flat())], [200]);
    const called = (call: FakeUpstream['calls'][number]) => `${call.url.pathname}${call.url.search}`;
    // From the third tick on (the first fills were cold, at the first tick), each tick's plan:
    for (const tick of ticks.slice(2)) {
      const inTick = upstream.calls.filter((call) => call.at > tick - 3000 && call.at <= tick && call.url.searchParams.get('host') === 'example.com');
      const seen = inTick.map((call) => `${call.at - tick} ms ${called(call)}`).join(', ');
      // Plans that disagreed filled a query twice, or a query whose fill a lease held a whole
      // interval missed its slot and was filled after the tick, every tick.
      assert.deepEqual(inTick.map(called).sort(), [widest, ...singles].sort(), `one fill per query before the tick: ${seen}`);
      // Plans that ordered queries by name put the widest (four widgets) in the window before last.
      const widestAt = inTick.find((call) => called(call) === widest)!.at;
      assert.ok(widestAt > tick - 1000, `the most polled query is filled in the last second before the tick: ${seen}`);
    }
  });

  test('15 competing keys polled across the workers: at most 183 calls in any sliding minute between them', async () => {
    const scale = 10;
    const minuteMs = 60_000 / scale;
    const upstream = await startFakeUpstream();
    after(() => upstream.close());
    const cluster = await startCluster(upstream, scaledTimes(scale));
    const paths = Array.from({ length: 15 }, (_, i) => `/live/toppages/v3/?host=example.com&limit=${i + 1}`);
    const stopAt = Date.now() + minuteMs + 700;
    // 15 keys refreshed every TTL want 50 fills a second, the budget carries 30: fills queue.
    const statuses = new Map<number, number>();
    await Promise.all(paths.map(async (path) => {
      while (Date.now() < stopAt) {
        const reply = await get(cluster.url, path);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        await sleep(3000 / scale / 3);
      }
    }));
    const waits = Number(/^pulse_budget_waits_total\{host="example.com"\} (\d+)$/m.exec((await get(cluster.url, '/metrics')).body)?.[1] ?? 0);
    assert.equal(await cluster.stop(), 0);
    // The budget is what the primary grants (each worker logs when, on the primary's clock); a call
    // leaves its worker an IPC round trip later and arrives later still, within the slack under 200.
    // Of example.com only: the history recorder samples news.example.org too, on its own budget.
    const granted = cluster.logs().filter((line) => line.msg === 'budget slot granted' && line.site === 'example.com');
    assert.ok(granted.every((line) => line.shared === true), 'no worker acted alone');
    const grants = granted.map((line) => Number(line.grantedAt));
    const calls = cluster.logs().filter((line) => (line.msg === 'upstream call' || line.msg === 'upstream call failed') && String(line.query).includes('host=example.com'));
    const byWorker = new Map<unknown, number>();
    for (const line of calls) byWorker.set(line.worker, (byWorker.get(line.worker) ?? 0) + 1);
    const most = maxInSlidingWindow(grants, minuteMs);
    const arrivals = maxInSlidingWindow(upstream.calls.filter((call) => call.url.searchParams.get('host') === 'example.com').map((call) => call.at), minuteMs);
    console.log(`${WORKERS} workers, 15 keys: ${upstream.calls.length} calls (${[...byWorker.values()].join(' + ')} by worker); max ${most} granted and ${arrivals} arrived in a sliding "minute" (${minuteMs} ms); answers ${[...statuses].map(([s, n]) => `${n}×${s}`).join(' ')}`);
    assert.ok(calls.length <= grants.length, 'every call was granted by the primary');
    assert.ok(most <= 183, `${most} slots granted in one sliding minute`);
    assert.ok(waits > 0, 'the budget was actually under pressure: fills queued for it');
    assert.ok(arrivals < 200, `${arrivals}: the upstream never sees its limit reached`);
    assert.ok(byWorker.size >= 2, 'more than one worker filled');
  });

  test('a worker that dies is replaced, the others keep serving; SIGTERM stops them all and exits 0', async () => {
    const upstream = await startFakeUpstream();
    after(() => upstream.close());
    const cluster = await startCluster(upstream, {});
    const path = '/live/quickstats/v4/?host=example.com';
    assert.equal((await get(cluster.url, path)).status, 200);
    const before = cluster.workerPids();
    process.kill(before[0]!, 'SIGKILL');
    // Until the primary has seen the death, node:cluster may still hand it a connection, which then
    // waits for nobody (seen once under load: the test hung).
    await until(() => cluster.logs().some((line) => line.msg === 'worker died: starting a replacement'), 'the primary noticing the death', 10_000);
    for (let i = 0; i < WORKERS * 2; i += 1) assert.equal((await get(cluster.url, path)).status, 200, 'the others keep serving');
    await until(() => {
      const now = cluster.workerPids();
      return now.length === WORKERS && !now.includes(before[0]!);
    }, 'a replacement worker', 30_000);
    const replaced = cluster.workerPids();
    for (let i = 0; i < WORKERS * 2; i += 1) assert.equal((await get(cluster.url, path)).status, 200);
    assert.equal(await cluster.stop(), 0);
    for (const pid of replaced) assert.ok(!existsSync(`/proc/${pid}/cmdline`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '), `worker ${pid} stopped`);
  });
});
