/**
 * Node tests only. A cache endpoint on a virtual clock, in process: `createCacheHandler` with a
 * `VirtualClock`, the seeded simulator answering upstream calls through the in-process transport
 * (test/simulation/upstream.ts), and its log lines kept. Nothing waits on real time: a test
 * moves the clock (`clock.runUntil`) while its requests wait on budget slots, fills and leases.
 */
import { CLIENT_IP_HEADER } from '../../src/runtime/node-http.ts';
import { createCacheHandler, type CacheHandler } from '../../src/server/http/handler.ts';
import type { CacheOptions } from '../../src/server/config/options.ts';
import { Coordinator } from '../../src/server/workers/coordinator.ts';
import { IpcTier } from '../../src/server/workers/ipc-tier.ts';
import { Random } from '../simulation/random.ts';
import { TierChannel, type TierState } from '../simulation/tier-channel.ts';
import {
  API_KEY,
  encodeNow,
  SIMULATED_SITES,
  simulatedUpstream,
  type Arrival,
  type SimulatedUpstreamOptions,
} from '../simulation/upstream.ts';
import type { UpstreamTransport } from '../../src/server/upstream.ts';
import { capturedLogger } from './cache-harness.node.ts';
import { UpstreamGate } from './upstream-gate.node.ts';
import { VirtualClock } from './virtual-clock.node.ts';

export interface VirtualCache {
  clock: VirtualClock;
  cache: CacheHandler;
  /** Every call as the upstream saw it arrive. */
  arrivals: Arrival[];
  /** Raw pino lines. */
  logs: string[];
  /** The upstream's gate, shared by the instances: `hold()` keeps every call waiting. */
  upstreamGate: UpstreamGate;
  /** The shared tier of a cluster: `up = false` loses it for every instance until set back. */
  tier: TierState;
  /** One request through the Web handler (the clock must be moved for it to finish if it waits). */
  get(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; text: string }>;
}

export function startVirtualCache(options: Partial<CacheOptions> = {}, seed = 1): VirtualCache {
  return startVirtualCluster(1, options, seed)[0]!;
}

/**
 * `count` instances on one virtual clock and one simulated upstream; with more than one, they
 * share a tier as `--workers` does (IpcTier to one Coordinator over an in-process channel).
 * Each keeps its own log lines; `arrivals` is the upstream's, shared. `faultAt` says which calls
 * meet a fault (the service down, slow, cut…).
 */
export function startVirtualCluster(
  count: number,
  options: Partial<CacheOptions> = {},
  seed = 1,
  faultAt?: SimulatedUpstreamOptions['faultAt'],
): VirtualCache[] {
  const clock = new VirtualClock();
  const upstream = simulatedUpstream({
    clock,
    latency: { min: 20, max: 150 },
    random: new Random(seed),
    faultAt,
  });
  const upstreamGate = new UpstreamGate();
  // An open gate adds no step to a call: the runs of tests that never hold stay as they were.
  const upstreamTransport: UpstreamTransport = (url, call) =>
    upstreamGate.held
      ? upstreamGate.pass(call.signal).then(() => upstream.transport(url, call))
      : upstream.transport(url, call);
  const tier: TierState = { coordinator: new Coordinator(64 << 20, clock), up: true };
  return Array.from({ length: count }, () => {
    const { logger, logs } = capturedLogger('debug');
    const cache = createCacheHandler({
      upstream: 'http://127.0.0.1:9',
      apiKey: API_KEY,
      hosts: [...SIMULATED_SITES],
      logger,
      clock,
      upstreamTransport,
      encodeBody: encodeNow,
      clientLimit: 0,
      ...(count > 1
        ? { sharedTier: new IpcTier(new TierChannel(clock, tier), 250, clock), instances: count }
        : {}),
      ...options,
    });
    return {
      clock,
      cache,
      arrivals: upstream.arrivals,
      logs,
      upstreamGate,
      tier,
      async get(path, init) {
        const response = await cache.handle(new Request(`http://cache.test${path}`, init));
        return { status: response.status, headers: response.headers, text: await response.text() };
      },
    };
  });
}

/** Closes every instance, moving the clock while their calls still in flight end. */
export async function closeAll(instances: readonly VirtualCache[]): Promise<void> {
  const closed = Promise.all(instances.map((instance) => instance.cache.close()));
  await instances[0]!.clock.advance(60_000);
  await closed;
}

/**
 * A reader's page: polls `paths` from `address` on the 3 s grid, `ticks` times, and resolves with
 * every answer's status (the test moves the clock meanwhile).
 */
export async function pollOnGrid(
  v: VirtualCache,
  paths: readonly string[],
  address: string,
  ticks: number,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let tick = 0; tick < ticks; tick += 1) {
    const replies = await Promise.all(
      paths.map((path) => v.get(path, { headers: { [CLIENT_IP_HEADER]: address } })),
    );
    statuses.push(...replies.map((reply) => reply.status));
    await v.clock.sleep(3000 - (v.clock.now() % 3000));
  }
  return statuses;
}
