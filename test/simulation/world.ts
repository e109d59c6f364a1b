/**
 * One run of a scenario: the cache instances (`createCacheHandler`, as `serve` builds them), the
 * shared tier they use (IpcTier to one Coordinator, over an in-process channel), the seeded
 * upstream simulator behind an in-process transport with latency and faults, and the dashboards
 * polling through the instances (the hit path first, as `listen` does), all on one virtual clock. It records what every part saw; the
 * invariants (invariants.ts) are judged from that record.
 */
import { siteOf } from '../../src/api/index.ts';
import { CLIENT_IP_HEADER } from '../../src/runtime/node-http.ts';
import { createCacheHandler, createLogger, type CacheHandler } from '../../src/server/http/handler.ts';
import { Coordinator } from '../../src/server/workers/coordinator.ts';
import { IpcTier } from '../../src/server/workers/ipc-tier.ts';
import { VirtualClock } from '../helpers/virtual-clock.node.ts';
import { pollAsNodeHttp, textOf, type PollAnswer } from './node-poll.ts';
import { Random } from './random.ts';
import { TierChannel, type TierState } from './tier-channel.ts';
import { SITES, START, TICK_MS, within, type Scenario, type Sprayer } from './scenario.ts';
import { API_KEY, encodeNow, simulatedUpstream, type Arrival } from './upstream.ts';

export { API_KEY, type Arrival };
const BASE = 'http://cache.sim';
/**
 * Each page is one reader, with its own address; so is each sprayer, or it takes a new address
 * for every request (documentation ranges, RFC 5737 and RFC 3849).
 */
const dashboardAddress = (id: number) => `192.0.2.${id + 1}`;
const sprayerAddress = (index: number, sprayer: Sprayer, request: number) =>
  sprayer.rotatesAddress ? `2001:db8:${index + 1}::${request.toString(16)}` : `198.51.100.${index + 1}`;
const clientHeaders = (address: string) => ({ [CLIENT_IP_HEADER]: address });
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
  /** When the answer's data arrived from the upstream, in whole seconds (`Last-Modified`), ms from the start; undefined on an error answer. */
  fetchedAt?: number;
  /** The instance had started again since this poll's dashboard opened (its memory was lost). */
  generation: number;
}

/** One upstream call as an instance logged it. */
export interface Grant {
  /** On the clock that counted the slot: the tier's (the simulation's), or the instance's own while alone. */
  grantedAt: number;
  /** On the instance's clock: the tier's (the simulation's) once the tier answered it (tier-time.ts). */
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
  /**
   * Every log line, response header and body that carries the API key: where the key must never
   * be. Each text is looked at as it is made and kept only then (kept all, a seed's answers and
   * lines were ~100 MB the garbage collector copied and marked again and again).
   */
  leaks: string[];
  /** How many texts were looked at for the key. */
  looked: number;
  /** Uncaught errors in the cache (a rejected promise, a throw). */
  crashes: string[];
  /** Answers to the sprayers, by status. */
  sprays: Map<number, number>;
}

export async function runScenario(scenario: Scenario): Promise<Record> {
  const clock = new VirtualClock(START);
  const random = new Random(scenario.seed);
  const latencies = random.fork(1);
  const faultDraws = random.fork(2);
  const routing = random.fork(3);
  const spraying = random.fork(4);
  const record: Record = {
    polls: [],
    arrivals: [],
    grants: [],
    leaks: [],
    looked: 0,
    crashes: [],
    sprays: new Map(),
  };
  const look = (text: string) => {
    record.looked += 1;
    if (text.includes(API_KEY)) record.leaks.push(text);
  };
  /** Each body once: the hit path sends a stored answer's own bytes to every poll of it. */
  const lookedBodies = new WeakSet<Uint8Array>();
  const lookAtBody = (answer: PollAnswer) => {
    if (lookedBodies.has(answer.body)) return;
    lookedBodies.add(answer.body);
    look(textOf(answer));
  };
  const since = (at: number) => at - START;

  const upstream = simulatedUpstream({
    clock,
    latency: scenario.latency,
    random: latencies,
    faultAt: (at) => scenario.faults.find((f) => within([f], since(at)) && faultDraws.next() < f.share)?.kind,
  });
  record.arrivals = upstream.arrivals;
  const transport = upstream.transport;

  const tier: TierState = { coordinator: new Coordinator(64 << 20, clock), up: true };
  const instances: (CacheHandler | undefined)[] = [];
  const generations: number[] = [];
  const start = (index: number) => {
    const logger = createLogger('info', {
      write: (line: string) => {
        look(line);
        // Only an upstream call's line carries `grantedAt`: the others are looked at, not parsed.
        if (!line.includes('"grantedAt"')) return;
        const entry = JSON.parse(line) as {
          msg: string;
          grantedAt?: number;
          sentAt?: number;
          route?: string;
          query?: string;
          outcome?: string;
        };
        if (entry.msg.startsWith('upstream call') && entry.grantedAt !== undefined) {
          const host = new URLSearchParams(entry.query).get('host') ?? '';
          record.grants.push({
            grantedAt: entry.grantedAt,
            sentAt: entry.sentAt!,
            site: siteOf(host),
            key: `${entry.route}?${entry.query}`,
            outcome: entry.outcome!,
            instance: index,
          });
        }
      },
    });
    // The instance's own clock: the tier's, which is the simulation's, shifted by its skew.
    const skew = scenario.clockSkews[index]!;
    const own = skew === 0 ? clock : { ...clock, now: () => clock.now() + skew };
    instances[index] = createCacheHandler({
      upstream: 'http://127.0.0.1:9',
      apiKey: API_KEY,
      hosts: [...SITES],
      logger,
      clock: own,
      upstreamTransport: transport,
      encodeBody: encodeNow,
      clientLimit: 0,
      ...(scenario.instances > 1
        ? {
            sharedTier: new IpcTier(new TierChannel(clock, tier), TIER_TIMEOUT_MS, own),
            instances: scenario.instances,
          }
        : {}),
    });
    generations[index] = (generations[index] ?? -1) + 1;
  };
  for (let index = 0; index < scenario.instances; index += 1) start(index);

  /** Runs `action` at `ms` from the start. */
  const at = (ms: number, action: () => void | Promise<void>) =>
    clock.setTimeout(
      () =>
        void Promise.resolve(action()).catch((error: Error) =>
          record.crashes.push(`${since(clock.now())} ms: ${error.stack ?? error.message}`),
        ),
      START + ms - clock.now(),
    );

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

  // A page's GET carries nothing but its URL and the reader's address, which node-http puts in
  // CLIENT_IP_HEADER (each page is one reader): one Request per page and path serves every poll.
  const requests = new Map<string, Request>();
  const requestOf = (dashboard: number, path: string) => {
    const key = `${dashboard} ${path}`;
    let request = requests.get(key);
    if (!request)
      requests.set(
        key,
        (request = new Request(BASE + path, { headers: clientHeaders(dashboardAddress(dashboard)) })),
      );
    return request;
  };
  const poll = async (dashboard: Scenario['dashboards'][number], path: string) => {
    const live = instances.flatMap((handler, index) => (handler ? [index] : []));
    if (live.length === 0) return;
    const index = live[routing.int(0, live.length - 1)]!;
    const asked = clock.now();
    const answer = await pollAsNodeHttp(
      instances[index]!,
      path,
      dashboardAddress(dashboard.id),
      requestOf(dashboard.id, path),
    );
    look([...answer.headers].map(([name, value]) => `${name}: ${value}`).join('\n'));
    lookAtBody(answer);
    const age = answer.headers.get('age');
    const maxAge = /max-age=(\d+)/.exec(answer.headers.get('cache-control') ?? '')?.[1];
    const lastModified = answer.headers.get('last-modified');
    record.polls.push({
      at: since(asked),
      answeredAt: since(clock.now()),
      dashboard: dashboard.id,
      instance: index,
      path,
      status: answer.status,
      cacheStatus: answer.headers.get('cache-status') ?? '',
      age: age === undefined ? undefined : Number(age),
      maxAge: maxAge === undefined ? undefined : Number(maxAge),
      fetchedAt: lastModified === undefined ? undefined : since(Date.parse(lastModified)),
      generation: generations[index]!,
    });
  };

  // Each page polls on the 3 s grid (plus its clock's skew) while open and shown, and at once when shown again.
  for (const dashboard of scenario.dashboards) {
    const pollAll = () => {
      for (const path of dashboard.queries)
        void poll(dashboard, path).catch((error: Error) =>
          record.crashes.push(`${since(clock.now())} ms: ${error.stack ?? error.message}`),
        );
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

  // Each sprayer asks a query nobody asked before, at a random live instance, and never waits for the answer.
  for (const [index, sprayer] of scenario.sprayers.entries()) {
    for (
      let next = sprayer.from, n = 0;
      next < Math.min(sprayer.to, scenario.minutes * 60_000);
      next += sprayer.everyMs, n += 1
    ) {
      at(next, async () => {
        const live = instances.flatMap((handler, instance) => (handler ? [instance] : []));
        if (live.length === 0) return;
        const response = await instances[live[spraying.int(0, live.length - 1)]!]!.handle(
          new Request(`${BASE}/live/toppages/v3/?host=${sprayer.site}&author=spray${index}-${n}`, {
            headers: clientHeaders(sprayerAddress(index, sprayer, n)),
          }),
        );
        look(await response.text());
        record.sprays.set(response.status, (record.sprays.get(response.status) ?? 0) + 1);
      });
    }
  }

  await clock.runUntil(START + scenario.minutes * 60_000);
  // Closed while the clock moves, as real time passes during a real close: a lookup under way
  // ends at its own deadline. (Closed with the clock stopped, seed 19272's instances waited for
  // their lookups forever, and so did the run.) Not closed a minute later is a failure, not a hang.
  let closed = false;
  void Promise.all(instances.map((handler) => handler?.close())).then(
    () => (closed = true),
    (error: Error) => record.crashes.push(`closing: ${error.stack ?? error.message}`),
  );
  await clock.advance(60_000);
  if (!closed) record.crashes.push('the instances had not closed a minute after the end');
  return record;
}
