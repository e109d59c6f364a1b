/**
 * Node tests only. Runs a cache endpoint over real HTTP on 127.0.0.1:0 in front of a fake
 * upstream, with its pino logs captured, an optional manual clock, and small helpers to read
 * what tests assert on (upstream count, Cache-Status, bodies).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createCacheHandler, createLogger, type CacheHandler } from '../../src/server/http/handler.ts';
import { listen } from '../../src/runtime/node-http.ts';
import type { CacheOptions } from '../../src/server/config/options.ts';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.node.ts';

export const API_KEY = 'test-key-5f1c9a7e-never-shown';
export const HOSTS = ['example.com', 'news.example.org'];

/** A logger at `level` whose raw pino lines are kept in `logs`. */
export function capturedLogger(level: string): { logger: Logger; logs: string[] } {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger(level, sink), logs };
}

export interface Harness {
  url: string;
  upstream: FakeUpstream;
  cache: CacheHandler;
  /** Requests that reached the Web handler (fresh hits on the hit path do not). */
  received: () => number;
  /** Raw pino lines. */
  logs: string[];
  /** Every response header and body seen through `get`, for key-leak checks. */
  seen: string[];
  get(path: string, init?: RequestInit): Promise<Reply>;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  cacheStatus: string;
  json(): unknown;
}

/** `logLevel` 'debug' also captures each budget slot granted ('budget slot granted', with `grantedAt`). */
export async function startHarness(
  options: Partial<CacheOptions> = {},
  upstream?: FakeUpstream,
  logLevel = 'info',
): Promise<Harness> {
  const fake = upstream ?? (await startFakeUpstream());
  const { logger, logs } = capturedLogger(logLevel);
  const seen: string[] = [];
  let cache: CacheHandler;
  try {
    cache = createCacheHandler({
      upstream: fake.url,
      apiKey: API_KEY,
      hosts: HOSTS,
      logger,
      ...options,
    });
  } catch (error) {
    // Options refused: the fake upstream made here would keep the test file from ever ending.
    if (!upstream) await fake.close();
    throw error;
  }
  let received = 0;
  // As `pulse-widgets serve` runs it: fresh hits on the node:http hit path, the rest on the Web handler.
  const server = await listen(
    (request) => {
      received += 1;
      return cache.handle(request);
    },
    0,
    '127.0.0.1',
    cache.serveHit,
  );
  return {
    url: server.url,
    upstream: fake,
    cache,
    received: () => received,
    logs,
    seen,
    async get(path, init) {
      const response = await fetch(`${server.url}${path}`, init);
      const text = await response.text();
      response.headers.forEach((value, name) => seen.push(`${name}: ${value}`));
      seen.push(text);
      return {
        status: response.status,
        headers: response.headers,
        text,
        cacheStatus: response.headers.get('cache-status') ?? '',
        json: () => JSON.parse(text),
      };
    },
    async close() {
      await server.close();
      await cache.close();
      await fake.close();
    },
  };
}

/** Every time setting scaled down alike (`scale` 20: TTL 150 ms, budget windows of 50 ms, a "minute" of 3 s). */
export function scaledTimes(scale: number) {
  return {
    liveTtlMs: 3000 / scale,
    upstreamTimeoutMs: 2800 / scale,
    budgetWindowMs: 1000 / scale,
    backoffBaseMs: 1000 / scale,
    backoffMaxMs: 30_000 / scale,
    maxWaitMs: 5000 / scale,
    // Distinct keys competing for the budget, not fold groups of several limits.
    fold: false,
  };
}

/** Waits for a condition by polling the event loop, bounded: a barrier, not a sleep. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what = 'condition',
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * Waits until each instance has answered each path 200, so that each holds a copy (read from the
 * shared tier or filled): a test of "no error while a copy exists" across a tier failure needs
 * every copy in place first. Polls left to a real clock skip some on a busy machine, and a cold
 * fill there may outlast a scaled upstream timeout (140 ms at scale 20) and be answered 503,
 * rightly: nothing is stored yet. That is before the test's failure, so it is waited out
 * (bounded), not judged. Returns the 503s met on the way, for the test's log line.
 */
export async function holdOnEach(instances: readonly Harness[], paths: readonly string[]): Promise<number> {
  let refused = 0;
  for (const [index, instance] of instances.entries())
    for (const path of paths)
      await until(
        async () => {
          const { status } = await instance.get(path);
          assert.ok(status === 200 || status === 503, `${path} on instance ${index}: ${status}`);
          if (status === 503) refused += 1;
          return status === 200;
        },
        `${path} held by instance ${index}`,
        10_000,
      );
  return refused;
}

/**
 * A cold herd on instances sharing one upstream: `perInstance` requests for each path on each
 * instance, all waiting while the upstream holds its answers; then one upstream call per path and
 * the same body from every instance.
 */
export async function assertOneFillPerKeyUnderHerd(
  instances: readonly Harness[],
  paths: readonly string[],
  perInstance: number,
): Promise<void> {
  const upstream = instances[0]!.upstream;
  const release = upstream.hold();
  const replies = paths.map((path) =>
    instances.flatMap((h) => Array.from({ length: perInstance }, () => h.get(path))),
  );
  const total = paths.length * instances.length * perInstance;
  await until(
    () =>
      instances.reduce((sum, h) => sum + h.received(), 0) === total && upstream.calls.length === paths.length,
    `${total} requests waiting on ${paths.length} calls`,
    8000,
  );
  release();
  for (const [p, path] of paths.entries()) {
    const answers = await Promise.all(replies[p]!);
    assert.ok(
      answers.every((reply) => reply.status === 200),
      `${path}: ${answers.map((reply) => reply.status).join(' ')}`,
    );
    assert.equal(
      new Set(answers.map((reply) => reply.text)).size,
      1,
      `${path}: every instance answers the same fill`,
    );
  }
  assert.equal(upstream.calls.length, paths.length, 'one call per key for the whole herd');
}

/** The most calls in any interval [t, t + span] that starts at a call. */
export function maxInSlidingWindow(times: readonly number[], span: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && sorted[end]! <= sorted[start]! + span) end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

/** The JSON log lines of a process's output (pino's), without what else it printed. */
export function jsonLogLines(output: string): string[] {
  return output.split('\n').filter((line) => line.startsWith('{'));
}

/** Log lines of upstream calls (one per call, success or failure). */
export function upstreamLogLines(logs: readonly string[]): {
  outcome: string;
  status?: number;
  time: number;
  grantedAt: number;
  sentAt: number;
  ms: number;
  route: string;
  query: string;
}[] {
  return logs
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === 'upstream call' || entry.msg === 'upstream call failed');
}

/** Sends a request target exactly as written (fetch would normalise `..` and encodings first). */
export function rawRequest(
  base: string,
  target: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    request({ hostname, port, path: target, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}
