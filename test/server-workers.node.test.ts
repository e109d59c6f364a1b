/**
 * `pulse-widgets serve --workers 3` for real: a primary and three node:cluster workers on one
 * port, in front of a counting fake upstream in this process, without Redis (the workers share
 * through the primary). Requests go out on fresh connections, which the cluster deals round-robin
 * to the workers. What needs real processes is here (one call for a herd, a worker killed,
 * SIGTERM); the plans' timing and the shared budget are proven on a virtual clock in
 * server-instances.node.test.ts and the simulation (test/simulation/).
 *
 * The workers record history as `serve` does: each samples its hosts' quickstats a second into
 * every minute of the real clock (src/history/recorder.ts), so a test counts only the upstream
 * calls of the queries it asks. (Counted whole, a herd asked in the first seconds of a minute
 * saw three calls, its own and the two hosts' samples: once in eight `npm test` runs.)
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { API_KEY, jsonLogLines, until } from './helpers/cache-harness.node.ts';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.node.ts';
import { entryArgs } from './helpers/entry-command.node.ts';
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

/** The upstream calls for `pathname` with `host`, as path and query. */
const callsFor = (upstream: FakeUpstream, pathname: string, host: string) =>
  upstream.calls
    .filter((call) => call.url.pathname === pathname && call.url.searchParams.get('host') === host)
    .map((call) => `${call.url.pathname}${call.url.search}`);

async function startCluster(
  upstream: FakeUpstream,
  dataDir: string,
  cacheOptions: Record<string, number | boolean>,
): Promise<Cluster> {
  const primary = spawn(process.execPath, entryArgs(FIXTURE), {
    env: {
      ...cleanEnv(),
      PULSE_UPSTREAM: upstream.url,
      PULSE_API_KEY: API_KEY,
      PULSE_HOSTS: 'example.com,news.example.org',
      // History files of this run only, not the user's state directory.
      PULSE_DATA_DIR: dataDir,
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
  const workerPids = () => {
    const children = readFileSync(`/proc/${primary.pid}/task/${primary.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    return children.filter(
      (pid) =>
        existsSync(`/proc/${pid}/cmdline`) &&
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('workers-fixture'),
    );
  };
  let url: string | undefined;
  try {
    await until(
      () => /listening on http:\/\/[\d.:]+/.test(output) || primary.exitCode !== null,
      'the cluster listening',
      30_000,
    );
    url = /listening on (http:\/\/[\d.:]+)/.exec(output)?.[1];
    assert.ok(url, `the cluster did not start: ${output}`);
    await until(() => workerPids().length === WORKERS, `${WORKERS} workers`, 30_000);
  } catch (error) {
    primary.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    primary,
    logs: () => jsonLogLines(output).map((line) => JSON.parse(line) as Record<string, unknown>),
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
    request(
      `${base}${path}`,
      { agent: false, headers: { connection: 'close' }, signal: AbortSignal.timeout(10_000) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    )
      .on('error', reject)
      .end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`--workers ${WORKERS} without Redis`, {
  skip: existsSync('/proc/self/task') ? false : 'needs /proc to find the worker processes',
}, () => {
  // One cluster for the whole file, its parts in order (each start costs four Node processes):
  // the herd and the dashboard ask different hosts, so neither answers from the other's fill.
  let upstream: FakeUpstream;
  let cluster: Cluster;
  let dataDir = '';
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pulse-workers-'));
    upstream = await startFakeUpstream();
    cluster = await startCluster(upstream, dataDir, {
      liveTtlMs: 10_000,
      upstreamTimeoutMs: 9000,
      maxWaitMs: 9000,
    });
  });
  after(async () => {
    if (cluster?.primary.exitCode === null) cluster.primary.kill('SIGKILL');
    await upstream?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('a herd on one key across the workers: one upstream call, one body; leases were held by one worker for the others', async () => {
    const release = upstream.hold();
    const path = '/live/toppages/v3/?host=example.com&limit=7';
    const herd = Array.from({ length: 30 }, () => get(cluster.url, path));
    await upstream.arrived(1);
    await sleep(200); // let the rest of the herd reach the workers; late ones find the entry and hit
    release();
    const replies = await Promise.all(herd);
    assert.deepEqual([...new Set(replies.map((reply) => reply.status))], [200]);
    assert.equal(new Set(replies.map((reply) => reply.body)).size, 1, 'every worker answers the same fill');
    assert.deepEqual(
      callsFor(upstream, '/live/toppages/v3/', 'example.com'),
      ['/live/toppages/v3/?host=example.com&limit=7'],
      'one upstream call for the whole herd',
    );
    // /metrics from any worker sums every worker's counters.
    const metrics = (await get(cluster.url, '/metrics')).body;
    const counter = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1] ?? 0);
    assert.equal(
      counter(/^pulse_shared_leases_total\{outcome="offline"\} (\d+)$/m),
      0,
      'the primary always answered',
    );
    assert.ok(
      counter(/^pulse_shared_leases_total\{outcome="held"\} (\d+)$/m) >= 1,
      `another worker waited on the lease holder:\n${metrics}`,
    );
    const answered =
      counter(/^pulse_cache_hits_total\{route="toppages"\} (\d+)$/m) +
      counter(/^pulse_cache_misses_total\{route="toppages"\} (\d+)$/m);
    assert.equal(answered, herd.length, 'every answer of the herd is counted once, whichever worker gave it');
  });

  test('a dashboard opening across the workers: the queries of one fold group make one upstream call', async () => {
    const limits = [1, 2, 3, 4, 5, 6];
    // Fresh connections, dealt round-robin: every worker sees part of the dashboard.
    const replies = await Promise.all(
      limits.map((limit) => get(cluster.url, `/live/toppages/v3/?host=news.example.org&limit=${limit}`)),
    );
    assert.deepEqual(
      replies.map((reply) => reply.status),
      limits.map(() => 200),
    );
    assert.deepEqual(callsFor(upstream, '/live/toppages/v3/', 'news.example.org'), [
      '/live/toppages/v3/?host=news.example.org&limit=6',
    ]);
  });

  test('a worker that dies is replaced, the others keep serving; SIGTERM stops them all and exits 0', async () => {
    const path = '/live/quickstats/v4/?host=example.com';
    assert.equal((await get(cluster.url, path)).status, 200);
    const before = cluster.workerPids();
    process.kill(before[0]!, 'SIGKILL');
    // Until the primary has seen the death, node:cluster may still hand it a connection, which then
    // waits for nobody (seen once under load: the test hung).
    await until(
      () => cluster.logs().some((line) => line.msg === 'worker died: starting a replacement'),
      'the primary noticing the death',
      10_000,
    );
    for (let i = 0; i < WORKERS * 2; i += 1)
      assert.equal((await get(cluster.url, path)).status, 200, 'the others keep serving');
    await until(
      () => {
        const now = cluster.workerPids();
        return now.length === WORKERS && !now.includes(before[0]!);
      },
      'a replacement worker',
      30_000,
    );
    const replaced = cluster.workerPids();
    for (let i = 0; i < WORKERS * 2; i += 1) assert.equal((await get(cluster.url, path)).status, 200);
    assert.equal(await cluster.stop(), 0);
    for (const pid of replaced)
      assert.ok(
        !existsSync(`/proc/${pid}/cmdline`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '),
        `worker ${pid} stopped`,
      );
  });
});
