/**
 * The upstream of the simulation and of the tests on virtual time: the seeded simulator's
 * Web handler (auth, the 200-a-minute limit, its headers) answering in process through the
 * cache's `UpstreamTransport`, after a latency drawn from a seeded stream, on the virtual clock;
 * optionally with faults. Every call's arrival is recorded.
 */
import { siteOf } from '../../src/api/index.ts';
import type { BodyEncoder } from '../../src/runtime/stored-response.ts';
import type { TransportResponse, UpstreamTransport } from '../../src/server/upstream.ts';
import { createSimulator, createUpstreamHandler, type Simulator } from '../../src/simulator/index.ts';
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
 * query and the 3 s step, so each is computed once however many seeds ask for it, and so is the
 * snapshot of a site at a step (every seed replays the same minutes from `START`).
 */
const model = createSimulator({ seed: 1, hosts: SIMULATED_SITES, keptSteps: 20 * 60 });
const answers = new Map<string, unknown>();
const sharedModel: Simulator = {
  ...model,
  answer: ((route, params, nowMs) => {
    const key = `${route}?${JSON.stringify(params)}@${model.stepAt(nowMs)}`;
    let answer = answers.get(key);
    if (answer === undefined) {
      if (answers.size > 200_000) answers.clear();
      answers.set(key, (answer = model.answer(route, params, nowMs)));
    }
    return answer;
  }) as Simulator['answer'],
};


const body = (text: string): TransportResponse['body'] => ({ text: async () => text, dump: async () => undefined });

export interface SimulatedUpstreamOptions {
  clock: VirtualClock;
  latency: { min: number; max: number };
  random: Random;
  /** The fault a call arriving at `at` meets, if any. */
  faultAt?: (at: number) => FaultKind | undefined;
  /** The upstream's limit per site and minute (default 200, spec 8). */
  rateLimitPerMinute?: number;
}

export function simulatedUpstream(options: SimulatedUpstreamOptions): { transport: UpstreamTransport; arrivals: Arrival[] } {
  const { clock, random } = options;
  const arrivals: Arrival[] = [];
  const simulate = createUpstreamHandler({ apiKey: API_KEY, now: clock.now, simulator: sharedModel, rateLimitPerMinute: options.rateLimitPerMinute });
  // The cache's calls are GETs of a URL with the same three headers: one Request per URL serves them all.
  const requests = new Map<string, Request>();
  const requestOf = (url: URL, headers: Record<string, string>) => {
    const key = `${url.href} ${headers['x-svc-ak']}`;
    let request = requests.get(key);
    if (!request) {
      if (requests.size >= 10_000) requests.clear();
      requests.set(key, (request = new Request(url, { headers })));
    }
    return request;
  };
  const transport: UpstreamTransport = async (url, call) => {
    const at = clock.now();
    const fault = options.faultAt?.(at);
    const latency = random.int(options.latency.min, options.latency.max);
    const response = await simulate(requestOf(url, call.headers));
    const rateLimited = response.status === 429 || fault === 'rate_limited';
    arrivals.push({ at, site: siteOf(url.searchParams.get('host') ?? ''), key: `${url.pathname}?${url.searchParams}`, outcome: rateLimited ? 'rate_limited' : fault ? 'fault' : 'ok' });
    if (fault === 'down') {
      await clock.sleep(latency, call.signal);
      throw new TypeError('fetch failed: connection refused');
    }
    // Slow: longer than any timeout; the cache's own deadline ends the call.
    await clock.sleep(fault === 'slow' ? 60_000 : latency, call.signal);
    const headers = Object.fromEntries(response.headers);
    if (fault === 'rate_limited') return { statusCode: 429, headers: { ...headers, 'retry-after': String(random.int(1, 20)), 'content-type': 'application/json' }, body: body('{}') };
    if (fault === 'status') return { statusCode: 502, headers: { 'content-type': 'text/html' }, body: body('<h1>Bad gateway</h1>') };
    const text = await response.text();
    if (fault === 'malformed') return { statusCode: response.status, headers, body: body(text.slice(0, Math.floor(text.length / 2))) };
    if (fault === 'cut') return { statusCode: response.status, headers, body: { text: () => Promise.reject(new Error('other side closed')), dump: async () => undefined } };
    return { statusCode: response.status, headers, body: body(text) };
  };
  return { transport, arrivals };
}
