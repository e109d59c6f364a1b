/**
 * The upstream of the simulation and of the tests on virtual time: the seeded simulator's
 * Web handler (auth, the 200-a-minute limit, its headers) answering in process through the
 * cache's `UpstreamTransport`, after a latency drawn from a seeded stream, on the virtual clock;
 * optionally with faults. Every call's arrival is recorded.
 */
import { siteOf } from '../../src/api/index.ts';
import type { BodyEncoder } from '../../src/runtime/stored-response.ts';
import type { TransportResponse, UpstreamTransport } from '../../src/server/upstream.ts';
import type { RouteName, RouteParams } from '../../src/api/index.ts';
import { createSimulator } from '../../src/simulator/index.ts';
import { createUpstreamAnswerer } from '../../src/simulator/upstream.ts';
import type { VirtualClock } from '../helpers/virtual-clock.node.ts';
import type { Random } from './random.ts';

export const API_KEY = 'sim-key-7d3e0b1c-never-shown';
export const SIMULATED_SITES = ['example.com', 'news.example.org'] as const;

/** One call as the upstream saw it arrive. */
export interface Arrival {
  at: number;
  site: string;
  /** Path and query, as the upstream was asked. */
  key: string;
  /** What the simulated upstream did with it. */
  outcome: 'ok' | 'fault' | 'rate_limited';
}

export type FaultKind = 'down' | 'slow' | 'rate_limited' | 'status' | 'malformed' | 'cut';

/**
 * No thread pool, so the run is deterministic, and no compression work: the pages here ask for
 * identity bodies, which is all the simulation reads (the encodings are tested elsewhere).
 */
export const encodeNow: BodyEncoder = async (identity) => ({ gzip: identity, br: identity });

/**
 * The upstream's model, shared by every run in this process: an answer depends only on the
 * query and the 3 s step, so each body is computed (and written as JSON) once however many
 * seeds ask for it, and so is the snapshot of a site at a step (every seed replays the same
 * minutes from `START`).
 */
const model = createSimulator({ seed: 1, hosts: SIMULATED_SITES, keptSteps: 20 * 60 });
const texts = new Map<string, string>();
const answerText = (route: RouteName, params: RouteParams<RouteName>, nowMs: number): string => {
  const key = `${route}?${JSON.stringify(params)}@${model.stepAt(nowMs)}`;
  let text = texts.get(key);
  if (text === undefined) {
    if (texts.size > 200_000) texts.clear();
    texts.set(key, (text = JSON.stringify(model.answer(route, params, nowMs))));
  }
  return text;
};

const body = (text: string): TransportResponse['body'] => ({
  text: async () => text,
  dump: async () => undefined,
});

export interface SimulatedUpstreamOptions {
  clock: VirtualClock;
  latency: { min: number; max: number };
  random: Random;
  /** The fault a call arriving at `at` (for `url`) meets, if any. */
  faultAt?: (at: number, url: URL) => FaultKind | undefined;
  /** The upstream's limit per site and minute (default 200, spec 8). */
  rateLimitPerMinute?: number;
}

/** The service answers in process, without a Request or a Response: the cache reads status, headers and text. */
export function simulatedUpstream(options: SimulatedUpstreamOptions): {
  transport: UpstreamTransport;
  arrivals: Arrival[];
} {
  const { clock, random } = options;
  const arrivals: Arrival[] = [];
  const answer = createUpstreamAnswerer({
    apiKey: API_KEY,
    now: clock.now,
    simulator: model,
    answerText,
    rateLimitPerMinute: options.rateLimitPerMinute,
  });
  const transport: UpstreamTransport = async (url, call) => {
    const at = clock.now();
    const fault = options.faultAt?.(at, url);
    const latency = random.int(options.latency.min, options.latency.max);
    const reply = answer({ method: 'GET', url, keyHeader: call.headers['x-svc-ak'] ?? null });
    const rateLimited = reply.status === 429 || fault === 'rate_limited';
    arrivals.push({
      at,
      site: siteOf(url.searchParams.get('host') ?? ''),
      key: `${url.pathname}?${url.searchParams}`,
      outcome: rateLimited ? 'rate_limited' : fault ? 'fault' : 'ok',
    });
    if (fault === 'down') {
      await clock.sleep(latency, call.signal);
      throw new TypeError('fetch failed: connection refused');
    }
    // Slow: longer than any timeout; the cache's own deadline ends the call.
    await clock.sleep(fault === 'slow' ? 60_000 : latency, call.signal);
    const { status, headers, body: text } = reply;
    if (fault === 'rate_limited')
      return {
        statusCode: 429,
        headers: { ...headers, 'retry-after': String(random.int(1, 20)), 'content-type': 'application/json' },
        body: body('{}'),
      };
    if (fault === 'status')
      return {
        statusCode: 502,
        headers: { 'content-type': 'text/html' },
        body: body('<h1>Bad gateway</h1>'),
      };
    if (fault === 'malformed')
      return { statusCode: status, headers, body: body(text.slice(0, Math.floor(text.length / 2))) };
    if (fault === 'cut')
      return {
        statusCode: status,
        headers,
        body: { text: () => Promise.reject(new Error('other side closed')), dump: async () => undefined },
      };
    return { statusCode: status, headers, body: body(text) };
  };
  return { transport, arrivals };
}
