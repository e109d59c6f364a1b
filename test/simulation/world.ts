/**
 * One run of a scenario: the cache instances (`createCacheHandler`, as `serve` builds them), the
 * shared tier they use (IpcTier to one Coordinator, over an in-process channel), the seeded
 * upstream simulator behind an in-process transport with latency and faults, and the dashboards
 * polling through the instances, all on one virtual clock. It records what every part saw; the
 * invariants (invariants.ts) are judged from that record.
 */
import { createCacheHandler, createLogger, type CacheHandler } from '../../src/server/handler.ts';
import type { BodyEncoder } from '../../src/server/stored-response.ts';
import type { UpstreamTransport } from '../../src/server/upstream.ts';
import { Coordinator } from '../../src/server/workers/coordinator.ts';
import { IpcTier, type IpcChannel } from '../../src/server/workers/ipc-tier.ts';
import { siteOf } from '../../src/api/index.ts';
import { createSimulator, createUpstreamHandler, type Simulator } from '../../src/simulator/index.ts';
import { VirtualClock } from '../helpers/virtual-clock.node.ts';
import { Random } from './random.ts';
import { SITES, START, TICK_MS, within, type Scenario } from './scenario.ts';

export const API_KEY = 'sim-key-7d3e0b1c-never-shown';
const BASE = 'http://cache.sim';
/** Latency of one shared-tier message each way. */
const TIER_LATENCY_MS = 1;
const TIER_TIMEOUT_MS = 250;

/** One poll as the page saw it. */
export interface Poll {
  at: number;
  answeredAt: number;
  dashboard: number;
  instance: number;
  path: string;
  status: number;
  cacheStatus: string;
  /** Whole seconds, from `Age`; undefined on an error answer. */
  age?: number;
  maxAge?: number;
  /** The instance had started again since this poll's dashboard opened (its memory was lost). */
  generation: number;
}

/** One call as the upstream saw it arrive. */
export interface Arrival {
  at: number;
  site: string;
  key: string;
  /** What the simulated upstream did with it. */
  outcome: 'ok' | 'fault' | 'rate_limited';
}

/** One upstream call as an instance logged it. */
export interface Grant {
  grantedAt: number;
  sentAt: number;
  site: string;
  key: string;
  outcome: string;
  instance: number;
}

export interface Record {
  polls: Poll[];
  arrivals: Arrival[];
  grants: Grant[];
  /** Every log line, every response header and body: where the key must never be. */
  leaks: string[];
  /** Uncaught errors in the cache (a rejected promise, a throw). */
  crashes: string[];
}

/**
 * No thread pool, so the run is deterministic, and no compression work: the pages here ask for
 * identity bodies, which is all the simulation reads (the encodings are tested elsewhere).
 */
const encodeNow: BodyEncoder = async (identity) => ({ gzip: identity, br: identity });

/**
 * The upstream's model, shared by every run in this process: an answer depends only on the
 * query and the 3 s step, so each is computed once however many seeds ask for it.
 */
const model = createSimulator({ seed: 1, hosts: SITES });
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

/** The primary's IPC channel, in process: each message takes `TIER_LATENCY_MS` each way on the clock. */
class TierChannel implements IpcChannel {
  readonly #listeners: ((message: unknown) => void)[] = [];
  readonly #clock: VirtualClock;
  readonly #tier: { coordinator: Coordinator; up: boolean };

  constructor(clock: VirtualClock, tier: { coordinator: Coordinator; up: boolean }) {
    this.#clock = clock;
    this.#tier = tier;
  }

  get connected(): boolean {
    return this.#tier.up;
  }

  on(_event: 'message', listener: (message: unknown) => void): this {
    this.#listeners.push(listener);
    return this;
  }

  send(message: unknown): boolean {
    if (!this.#tier.up) return false;
    this.#clock.setTimeout(() => {
      if (!this.#tier.up) return;
      const reply = this.#tier.coordinator.answer(message as Parameters<Coordinator['answer']>[0]);
      this.#clock.setTimeout(() => {
        if (this.#tier.up) for (const listener of this.#listeners) listener(reply);
      }, TIER_LATENCY_MS);
    }, TIER_LATENCY_MS);
    return true;
  }
}

export async function runScenario(scenario: Scenario): Promise<Record> {
  const clock = new VirtualClock(START);
  const random = new Random(scenario.seed);
  const latencies = random.fork(1);
  const faultDraws = random.fork(2);
  const routing = random.fork(3);
  const record: Record = { polls: [], arrivals: [], grants: [], leaks: [], crashes: [] };
  const since = (at: number) => at - START;

  const simulate = createUpstreamHandler({ apiKey: API_KEY, now: clock.now, simulator: sharedModel });
  const transport: UpstreamTransport = async (url, call) => {
    const at = clock.now();
    const site = siteOf(url.searchParams.get('host') ?? '');
    const key = `${url.pathname}?${url.searchParams}`;
    const fault = scenario.faults.find((f) => within([f], since(at)) && faultDraws.next() < f.share);
    const latency = latencies.int(scenario.latency.min, scenario.latency.max);
    const response = await simulate(new Request(url, { headers: call.headers }));
    const rateLimited = response.status === 429 || fault?.kind === 'rate_limited';
    record.arrivals.push({ at, site, key, outcome: rateLimited ? 'rate_limited' : fault ? 'fault' : 'ok' });
    if (fault?.kind === 'down') {
      await clock.sleep(latency, call.signal);
      throw new TypeError('fetch failed: connection refused');
    }
    // Slow: longer than any timeout; the cache's own deadline ends the call.
    await clock.sleep(fault?.kind === 'slow' ? 60_000 : latency, call.signal);
    const headers = Object.fromEntries(response.headers);
    if (fault?.kind === 'rate_limited') {
      return { statusCode: 429, headers: { ...headers, 'retry-after': String(random.int(1, 20)), 'content-type': 'application/json' }, body: { text: async () => '{}', dump: async () => undefined } };
    }
    if (fault?.kind === 'status') return { statusCode: 502, headers: { 'content-type': 'text/html' }, body: { text: async () => '<h1>Bad gateway</h1>', dump: async () => undefined } };
    const text = await response.text();
    const body = fault?.kind === 'malformed'
      ? { text: async () => text.slice(0, Math.floor(text.length / 2)), dump: async () => undefined }
      : fault?.kind === 'cut'
        ? { text: () => Promise.reject(new Error('other side closed')), dump: async () => undefined }
        : { text: async () => text, dump: async () => undefined };
    return { statusCode: response.status, headers, body };
  };

  const tier = { coordinator: new Coordinator(64 << 20, clock), up: true };
  const lines: string[] = [];
  const instances: (CacheHandler | undefined)[] = [];
  const generations: number[] = [];
  const start = (index: number) => {
    const logger = createLogger('info', {
      write: (line: string) => {
        lines.push(line);
        const entry = JSON.parse(line) as { msg: string; grantedAt?: number; sentAt?: number; route?: string; query?: string; outcome?: string };
        if (entry.msg.startsWith('upstream call') && entry.grantedAt !== undefined) {
          const host = new URLSearchParams(entry.query).get('host') ?? '';
          record.grants.push({ grantedAt: entry.grantedAt, sentAt: entry.sentAt!, site: siteOf(host), key: `${entry.route}?${entry.query}`, outcome: entry.outcome!, instance: index });
        }
      },
    });
    instances[index] = createCacheHandler({
      upstream: 'http://127.0.0.1:9',
      apiKey: API_KEY,
      hosts: [...SITES],
      logger,
      clock,
      upstreamTransport: transport,
      encodeBody: encodeNow,
      clientLimit: 0,
      ...(scenario.instances > 1 ? { sharedTier: new IpcTier(new TierChannel(clock, tier), TIER_TIMEOUT_MS, clock), instances: scenario.instances } : {}),
    });
    generations[index] = (generations[index] ?? -1) + 1;
  };
  for (let index = 0; index < scenario.instances; index += 1) start(index);

  /** Runs `action` at `ms` from the start. */
  const at = (ms: number, action: () => void | Promise<void>) =>
    clock.setTimeout(() => void Promise.resolve(action()).catch((error: Error) => record.crashes.push(`${since(clock.now())} ms: ${error.stack ?? error.message}`)), START + ms - clock.now());

  for (const restart of scenario.restarts) {
    at(restart.from, async () => {
      const running = instances[restart.instance];
      instances[restart.instance] = undefined;
      await running?.close();
    });
    at(restart.to, () => start(restart.instance));
  }
  for (const outage of scenario.tierOutages) {
    at(outage.from, () => {
      tier.up = false;
    });
    at(outage.to, () => {
      if (outage.wiped) tier.coordinator = new Coordinator(64 << 20, clock);
      tier.up = true;
    });
  }

  const poll = async (dashboard: Scenario['dashboards'][number], path: string) => {
    const live = instances.flatMap((handler, index) => (handler ? [index] : []));
    if (live.length === 0) return;
    const index = live[routing.int(0, live.length - 1)]!;
    const asked = clock.now();
    const response = await instances[index]!.handle(new Request(BASE + path));
    const text = await response.text();
    const headers = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
    record.leaks.push(headers, text);
    const age = response.headers.get('age');
    const maxAge = /max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '')?.[1];
    record.polls.push({
      at: since(asked),
      answeredAt: since(clock.now()),
      dashboard: dashboard.id,
      instance: index,
      path,
      status: response.status,
      cacheStatus: response.headers.get('cache-status') ?? '',
      age: age === null ? undefined : Number(age),
      maxAge: maxAge === undefined ? undefined : Number(maxAge),
      generation: generations[index]!,
    });
  };

  // Each page polls on the 3 s grid (plus its clock's skew) while open and shown, and at once when shown again.
  for (const dashboard of scenario.dashboards) {
    const pollAll = () => {
      for (const path of dashboard.queries) void poll(dashboard, path).catch((error: Error) => record.crashes.push(`${since(clock.now())} ms: ${error.stack ?? error.message}`));
    };
    const schedule = (next: number) => {
      if (next >= dashboard.closeAt || next >= scenario.minutes * 60_000) return;
      at(next, () => {
        const hidden = dashboard.hidden.find((span) => next >= span.from && next < span.to);
        if (hidden) return schedule(hidden.to);
        pollAll();
        schedule((Math.floor((next - dashboard.skewMs) / TICK_MS) + 1) * TICK_MS + dashboard.skewMs);
      });
    };
    schedule(dashboard.openAt);
  }

  await clock.runUntil(START + scenario.minutes * 60_000);
  for (const handler of instances) await handler?.close();
  await clock.advance(60_000);
  record.leaks.push(...lines);
  return record;
}
