/**
 * What one seed of the simulation is: how many cache instances, which dashboards poll which
 * queries and when, which faults the upstream has, which instances die and come back, when the
 * shared tier is lost. A pure function of the seed: `scenarioOf(seed)` is the whole replay.
 */
import { findRoute, siteOf } from '../../src/api/index.ts';
import { foldMember } from '../../src/server/cache/folding.ts';
import { DASHBOARD_QUERIES } from '../helpers/dashboard-queries.node.ts';
import { Random } from './random.ts';
import { SIMULATED_SITES } from './upstream.ts';

export const TICK_MS = 3000;
export const START = 1_800_000_000_000;
export const SITES = SIMULATED_SITES;

/** A span of simulated time, in ms from the start. */
export interface Span {
  from: number;
  to: number;
}

/** Instances' clocks are up to this far from the tier's, either way (`Scenario.clockSkews`). */
export const INSTANCE_SKEW_MS = 10_000;

/** A page whose clock runs at least this far behind the server's is late (`Dashboard.skewMs`). */
export const LATE_SKEW_MS = 1000;

export interface Dashboard {
  id: number;
  queries: readonly string[];
  openAt: number;
  closeAt: number;
  /** How late after each tick this page's clock polls (clocks of readers' machines differ). */
  skewMs: number;
  /** Spans the tab is hidden: it stops polling, and polls at once when shown again. */
  hidden: readonly Span[];
}

/** A script asking a new valid query (`toppages?author=…`) every `everyMs`, never the same twice (issue 27). */
export interface Sprayer extends Span {
  site: string;
  everyMs: number;
  /** A new client address on every request (IPv6 gives plenty), which the per-address meter cannot stop. */
  rotatesAddress: boolean;
}

export type { FaultKind } from './upstream.ts';
import type { FaultKind } from './upstream.ts';

export interface Fault extends Span {
  kind: FaultKind;
  /** Share of calls in the span that meet the fault (1: all of them). */
  share: number;
}

export interface Scenario {
  seed: number;
  minutes: number;
  instances: number;
  dashboards: readonly Dashboard[];
  faults: readonly Fault[];
  /** Per instance, spans it is down (closed, then started again with an empty memory). */
  restarts: readonly (Span & { instance: number })[];
  /** Spans the shared tier is unreachable; `wiped`: it comes back empty (a restarted Redis). */
  tierOutages: readonly (Span & { wiped: boolean })[];
  /** Upstream latency range, ms. */
  latency: { min: number; max: number };
  sprayers: readonly Sprayer[];
  /** Per instance, how far its clock runs ahead of the shared tier's, ms (negative: behind). */
  clockSkews: readonly number[];
}

/** Queries that fold into few groups, as dashboards ask them; per site. */
function siteQueries(site: string): string[] {
  return DASHBOARD_QUERIES.slice(0, 20).map((path) => path.replace('host=example.com', `host=${site}`));
}

/** Queries that never fold together: each is a group of its own (one upstream query each). */
function distinctQueries(site: string, count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => `/live/toppages/v3/?host=${site}&limit=10&section=Desk${index + 1}`,
  );
}

function span(random: Random, within: number, shortest: number, longest: number): Span {
  const length = random.int(shortest, longest);
  const from = random.int(60_000, Math.max(60_000, within - length));
  return { from, to: from + length };
}

/**
 * What a replay may force, the rest drawn from the seed: `sprayer` makes every sprayer of the
 * seed take a new address per request (`rotating`) or keep one (`one-address`); `clocks`
 * `together` puts every instance's clock on the tier's (as every seed ran before clocks apart).
 */
export interface Variant {
  sprayer?: 'rotating' | 'one-address';
  clocks?: 'together';
}

export function scenarioOf(seed: number, minutes = 10, variant: Variant = {}): Scenario {
  const random = new Random(seed);
  const length = minutes * 60_000;
  const instances = random.int(1, 3);
  const overCapacity = random.chance(0.3);
  const faulty = random.chance(0.5);

  const dashboards: Dashboard[] = [];
  const count = random.int(1, 4);
  for (let id = 0; id < count; id += 1) {
    const site = id === 0 || random.chance(0.6) ? SITES[0] : SITES[1];
    const pool = siteQueries(site);
    let queries = random.sample(pool, random.int(4, 20));
    if (overCapacity && site === SITES[0])
      queries = [...queries, ...distinctQueries(site, random.int(8, 14))];
    // Most dashboards stay open the whole run; some open late or close early.
    const openAt = random.chance(0.7) ? random.int(0, 5000) : random.int(0, length / 2);
    const closeAt = random.chance(0.8) ? length + TICK_MS : random.int(openAt + 60_000, length + 60_000);
    const hidden: Span[] = random.chance(0.25) ? [span(random, length, 10_000, 90_000)] : [];
    dashboards.push({ id, queries, openAt, closeAt, skewMs: random.int(0, 400), hidden });
  }

  const faults: Fault[] = [];
  const restarts: (Span & { instance: number })[] = [];
  const tierOutages: (Span & { wiped: boolean })[] = [];
  if (faulty) {
    const kinds: FaultKind[] = ['down', 'slow', 'rate_limited', 'status', 'malformed', 'cut'];
    for (let index = random.int(1, 3); index > 0; index -= 1) {
      faults.push({
        ...span(random, length, 5_000, 120_000),
        kind: random.pick(kinds),
        share: random.chance(0.5) ? 1 : 0.3,
      });
    }
    if (instances > 1 && random.chance(0.4))
      restarts.push({ ...span(random, length, 1_000, 60_000), instance: random.int(0, instances - 1) });
    if (instances > 1 && random.chance(0.4))
      tierOutages.push({ ...span(random, length, 2_000, 90_000), wiped: random.chance(0.5) });
  }
  const slowest = random.int(60, 400);
  // Drawn last, from a fork: the rest of every seed's scenario is what it was before sprayers.
  const spraying = random.fork(7);
  const sprayers: Sprayer[] = spraying.chance(0.4)
    ? [
        {
          ...span(spraying, length, 60_000, 240_000),
          site: SITES[0],
          everyMs: 200,
          rotatesAddress: spraying.chance(0.5)
            ? variant.sprayer !== 'one-address'
            : variant.sprayer === 'rotating',
        },
      ]
    : [];
  // Most readers' clocks are within 0.4 s of the server's; one in five runs 1–2.5 s behind
  // (LATE_SKEW_MS on), and the plan must serve it from the windows before its polls. Drawn
  // last, from a fork: the rest of every seed's scenario is what it was before late clocks.
  const clocks = random.fork(8);
  for (const dashboard of dashboards)
    if (clocks.chance(0.2)) dashboard.skewMs = clocks.int(LATE_SKEW_MS, 2500);
  // Each instance's clock is its own way from the tier's (Redis's), which the instances keep
  // time on (tier-time.ts). Drawn last, from a fork, as the readers' clocks.
  const instanceClocks = random.fork(9);
  const clockSkews = Array.from({ length: instances }, () =>
    instances > 1 && variant.clocks !== 'together'
      ? instanceClocks.int(-INSTANCE_SKEW_MS, INSTANCE_SKEW_MS)
      : 0,
  );
  return {
    seed,
    minutes,
    instances,
    dashboards,
    faults,
    restarts,
    tierOutages,
    latency: { min: 20, max: slowest },
    sprayers,
    clockSkews,
  };
}

/** The site a client query asks about: a `video@` host's is its site's. */
export const siteOfPath = (path: string): string =>
  siteOf(new URL(path, 'http://sim.test').searchParams.get('host')!);

/** The upstream query a client query costs: its fold group's, or its own. */
export function upstreamQueryOf(path: string): string {
  const url = new URL(path, 'http://sim.test');
  return foldMember(findRoute(url.pathname)!, url.search.slice(1))?.group ?? path;
}

/** The upstream queries a set of client queries costs: one per fold group, one per other query. */
export function groupsOf(paths: Iterable<string>): Map<string, Set<string>> {
  const bySite = new Map<string, Set<string>>();
  for (const path of paths) {
    const site = siteOfPath(path);
    if (!bySite.has(site)) bySite.set(site, new Set());
    bySite.get(site)!.add(upstreamQueryOf(path));
  }
  return bySite;
}

export const within = (spans: readonly Span[], at: number, before = 0, after = 0): boolean =>
  spans.some((s) => at >= s.from - before && at < s.to + after);
