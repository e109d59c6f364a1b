/**
 * The cache's promises, judged from what one run recorded. Each check is a pure function of the
 * scenario and the record, and answers the violations it found, in words a failing seed's
 * report can show.
 */
import { DEFAULTS } from '../../src/server/config/options.ts';
import { leastRefillGap } from '../../src/server/plan/refresh-plan.ts';
import {
  groupsOf,
  LATE_SKEW_MS,
  siteOfPath,
  TICK_MS,
  upstreamQueryOf,
  within,
  type Scenario,
  type Span,
} from './scenario.ts';
import { API_KEY, type Poll, type Record } from './world.ts';

/** Budget slots per site in any sliding minute: 3 per aligned 1 s window, and a minute overlaps 61 of them. */
export const MAX_GRANTS_PER_MINUTE = 183;
/** The upstream's own limit (spec 8): arrivals stay under it. */
export const UPSTREAM_LIMIT = 200;
/** Plan slots per tick: 3 fills in each of the 3 windows of an interval. */
const CAPACITY = 9;
/** How long after a disturbance (fault, restart, tier loss, a dashboard opening) freshness is judged again. */
const SETTLE_MS = 30_000;
/**
 * After a fault, longer: a key whose fill failed just before the fault ended backs off for up to
 * `backoffMaxMs` (its stale copy served, marked), and its retry reaches its pollers at the next
 * tick. Judged at 30 s, seed 150 read a copy 130 s old 0.4 s later, its retry started by that poll.
 */
const AFTER_FAULT_MS = Math.max(SETTLE_MS, DEFAULTS.backoffMaxMs + TICK_MS);

export interface Verdict {
  violations: string[];
  /** Data age at steady polls of sites under capacity, seconds → count. */
  ages: Map<number, number>;
}

function mostInWindow(times: number[], span: number): { count: number; at: number } {
  const sorted = [...times].sort((a, b) => a - b);
  let best = { count: 0, at: 0 };
  let end = 0;
  for (let start = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && sorted[end]! <= sorted[start]! + span) end += 1;
    if (end - start > best.count) best = { count: end - start, at: sorted[start]! };
  }
  return best;
}

function bySite<T extends { site: string }>(items: T[]): Map<string, T[]> {
  const sites = new Map<string, T[]>();
  for (const item of items) {
    if (!sites.has(item.site)) sites.set(item.site, []);
    sites.get(item.site)!.push(item);
  }
  return sites;
}

/** ≤ 183 grants per site in any sliding minute; < 200 arrivals at the upstream. */
export function budgetHolds(_scenario: Scenario, record: Record, start: number): string[] {
  const violations: string[] = [];
  for (const [site, grants] of bySite(record.grants)) {
    const most = mostInWindow(
      grants.map((grant) => grant.grantedAt),
      60_000,
    );
    if (most.count > MAX_GRANTS_PER_MINUTE)
      violations.push(
        `budget: ${most.count} grants for ${site} in the minute from ${most.at - start} ms (at most ${MAX_GRANTS_PER_MINUTE})`,
      );
  }
  for (const [site, arrivals] of bySite(record.arrivals)) {
    const most = mostInWindow(
      arrivals.map((arrival) => arrival.at),
      60_000,
    );
    if (most.count >= UPSTREAM_LIMIT)
      violations.push(
        `upstream: ${most.count} calls for ${site} arrived in the minute from ${most.at - start} ms (the service allows ${UPSTREAM_LIMIT})`,
      );
  }
  return violations;
}

/** Two successful fills of one key are at least the plan's least gap apart, across instances, while they share a tier. */
export function oneFillPerKeyPerTick(scenario: Scenario, record: Record, start: number): string[] {
  const gap = leastRefillGap(DEFAULTS.liveTtlMs, DEFAULTS.budgetWindowMs);
  const unshared = scenario.tierOutages.map((outage) => ({
    from: outage.from,
    to: outage.to + 2 * DEFAULTS.maxWaitMs,
  }));
  const byKey = new Map<string, number[]>();
  for (const grant of record.grants) {
    if (grant.outcome !== 'ok' || grant.key.startsWith('raw_data')) continue;
    if (!byKey.has(grant.key)) byKey.set(grant.key, []);
    byKey.get(grant.key)!.push(grant.sentAt - start);
  }
  const violations: string[] = [];
  for (const [key, times] of byKey) {
    times.sort((a, b) => a - b);
    for (let index = 1; index < times.length; index += 1) {
      const [before, after] = [times[index - 1]!, times[index]!];
      if (after - before >= gap || within(unshared, before) || within(unshared, after)) continue;
      violations.push(
        `one fill per key: ${key} filled at ${before} ms and again at ${after} ms (at least ${gap} ms apart)`,
      );
      break;
    }
  }
  return violations;
}

/**
 * No error answer while the instance holds a copy it may serve: after a 200 whose data is `age`
 * old, the same instance (not restarted) answers the same query 200 until the copy is older than
 * its freshness plus the stale window. And stale is marked: `fwd=stale` exactly when max-age=0.
 */
export function staleIsServedAndMarked(_scenario: Scenario, record: Record): string[] {
  const violations: string[] = [];
  const copies = new Map<string, number>();
  for (const poll of [...record.polls].sort((a, b) => a.answeredAt - b.answeredAt)) {
    const copy = `${poll.instance}/${poll.generation} ${poll.path}`;
    if (poll.status === 200) {
      const fetchedAt = poll.answeredAt - (poll.age! + 1) * 1000;
      copies.set(copy, Math.max(copies.get(copy) ?? -Infinity, fetchedAt));
      const stale = poll.cacheStatus.includes('fwd=stale');
      if (stale !== (poll.maxAge === 0))
        violations.push(
          `marking: ${poll.path} at ${poll.answeredAt} ms answered "${poll.cacheStatus}" with max-age=${poll.maxAge}`,
        );
      continue;
    }
    const fetchedAt = copies.get(copy);
    if (
      fetchedAt !== undefined &&
      poll.answeredAt < fetchedAt + DEFAULTS.liveTtlMs + DEFAULTS.staleWindowMs
    ) {
      violations.push(
        `stale on error: ${poll.path} answered ${poll.status} at ${poll.answeredAt} ms by instance ${poll.instance}, which held a copy fetched at ${fetchedAt} ms`,
      );
    }
  }
  return violations.slice(0, 5);
}

/** Spans in which freshness is not judged: around faults, restarts, tier losses, and while the polled set changes. */
function disturbed(scenario: Scenario): Span[] {
  const spans: Span[] = [
    ...scenario.faults.map((s) => ({ from: s.from - TICK_MS, to: s.to + AFTER_FAULT_MS })),
    ...[...scenario.restarts, ...scenario.tierOutages].map((s) => ({
      from: s.from - TICK_MS,
      to: s.to + SETTLE_MS,
    })),
  ];
  for (const dashboard of scenario.dashboards) {
    spans.push({ from: dashboard.openAt - TICK_MS, to: dashboard.openAt + SETTLE_MS });
    spans.push({ from: dashboard.closeAt - TICK_MS, to: dashboard.closeAt + SETTLE_MS });
    for (const hidden of dashboard.hidden)
      spans.push(
        { from: hidden.from - TICK_MS, to: hidden.to + SETTLE_MS },
        { from: hidden.from - TICK_MS, to: hidden.from + SETTLE_MS },
      );
  }
  return spans;
}

/** How many upstream queries each site's open, shown dashboards cost at `at` (memoised per second, and per set of dashboards). */
function groupCounter(scenario: Scenario): (site: string, at: number) => number {
  const memo = new Map<number, Map<string, Set<string>>>();
  const bySet = new Map<string, Map<string, Set<string>>>();
  return (site, at) => {
    const second = Math.floor(at / 1000);
    let groups = memo.get(second);
    if (!groups) {
      const shown = scenario.dashboards.filter(
        (d) => at >= d.openAt && at < d.closeAt && !within(d.hidden, at),
      );
      const set = shown.map((d) => d.id).join();
      groups = bySet.get(set);
      if (!groups) bySet.set(set, (groups = groupsOf(shown.flatMap((d) => d.queries))));
      memo.set(second, groups);
    }
    return groups.get(site)?.size ?? 0;
  };
}

/** Queries polled as long as another: their first and last refills within 30 s of its own. */
const OVERLAP_SLACK_MS = 10 * TICK_MS;

/**
 * The spans in which a query was refreshed steadily: from one refill to the next, joined while
 * the gaps stay under 10 ticks. A longer gap is no refresh interval: the query's site was not
 * above capacity then, or the query was answered from its fold group's wide query, or a fault
 * or a dashboard's change was near.
 */
export function refreshedSpans(times: readonly number[]): Span[] {
  const spans: Span[] = [];
  for (let index = 1; index < times.length; index += 1) {
    const [before, after] = [times[index - 1]!, times[index]!];
    if (after - before >= 10 * TICK_MS) continue;
    const last = spans.at(-1);
    if (last?.to === before) last.to = after;
    else spans.push({ from: before, to: after });
  }
  return spans;
}

/**
 * The mean gap between refills inside `spans` (both ends in one span, the gap under 10 ticks);
 * undefined with fewer than 10 gaps.
 */
export function meanRefreshInterval(times: readonly number[], spans: readonly Span[]): number | undefined {
  const gaps: number[] = [];
  for (let index = 1; index < times.length; index += 1) {
    const [before, after] = [times[index - 1]!, times[index]!];
    if (after - before < 10 * TICK_MS && spans.some((span) => span.from <= before && after <= span.to))
      gaps.push(after - before);
  }
  return gaps.length >= 10 ? gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length : undefined;
}

/**
 * The oldest data, in whole seconds, a steady poll may read when its site has `groups` upstream
 * queries, under capacity: the plan refills them in the budget windows before the tick,
 * `budgetFills` to a window, the keys with the most pollers last, so a key of the k-th window
 * before the tick (from 0) is k s old at the tick, and pages poll within their clocks' skew of
 * it. 0 s up to 3 queries, 1 s up to 6, 2 s up to 9: three calls a window are what keep a site
 * at 183 a minute, so its 7th query's refill starts 2 s before the tick.
 */
export const oldestAge = (groups: number): number =>
  Math.max(0, Math.ceil(groups / DEFAULTS.budgetFills) - 1);

/**
 * How a poll of an upstream query that a page whose clock runs late (`LATE_SKEW_MS`) polls is
 * judged, whichever page made it (the plan gives the refill a window the late page reads fresh
 * too, however old the pages on time then read it), from the skews of the open pages polling
 * it at the time: `fresh` (less than an interval old) while its site has at most one window of
 * queries and those skews spread at most 2 s, or two windows and the late page is the site's
 * only open page (two windows end before its polls); else `tick` (its data fetched after the
 * tick before, alone). A query polled on time and 1.7 s late reads fresh only from the last
 * window before the tick, three queries a second: more such queries than that, or pollers
 * spread wider than a refill stays fresh, cannot all read fresh data under the budget.
 */
function latePollRule(scenario: Scenario): (poll: Poll, groups: number) => 'on time' | 'fresh' | 'tick' {
  const open = (dashboard: Scenario['dashboards'][number], at: number) =>
    at >= dashboard.openAt && at < dashboard.closeAt && !within(dashboard.hidden, at);
  const known = new Map<string, string>();
  const upstreamOf = (path: string) => known.get(path) ?? known.set(path, upstreamQueryOf(path)).get(path)!;
  const upstreams = scenario.dashboards.map((dashboard) => new Set(dashboard.queries.map(upstreamOf)));
  const sites = scenario.dashboards.map((dashboard) => new Set(dashboard.queries.map(siteOfPath)));
  return (poll, groups) => {
    const polling = scenario.dashboards.filter((dashboard) => open(dashboard, poll.at));
    // Pages polling any query of its fold group poll its upstream query.
    const upstream = upstreamOf(poll.path);
    const skews = polling
      .filter((dashboard) => upstreams[dashboard.id]!.has(upstream))
      .map((dashboard) => dashboard.skewMs);
    if (Math.max(...skews) < LATE_SKEW_MS) return 'on time';
    const spread = Math.max(...skews) - Math.min(...skews);
    if (groups <= DEFAULTS.budgetFills && spread <= 2000) return 'fresh';
    const site = siteOfPath(poll.path);
    const alone = polling.every(
      (dashboard) => dashboard.id === poll.dashboard || !sites[dashboard.id]!.has(site),
    );
    return alone && groups <= 2 * DEFAULTS.budgetFills ? 'fresh' : 'tick';
  };
}

/**
 * Data age at the poll: under capacity, every steady poll reads data refilled for its tick
 * (`oldestAge`, and fetched after the tick before the poll's); a late page's query's, as
 * `latePollRule` says. Above it, the budget's stretch is shared evenly: every upstream query's
 * mean refresh interval stays within ±20 % of the mean of its site's queries polled as long,
 * over the spans it was refreshed in.
 */
export function freshAndFair(
  scenario: Scenario,
  record: Record,
  start: number,
): { violations: string[]; ages: Map<number, number> } {
  const quiet = disturbed(scenario);
  const groupsAt = groupCounter(scenario);
  const lateRule = latePollRule(scenario);
  const ages = new Map<number, number>();
  const violations: string[] = [];
  for (const poll of record.polls) {
    if (poll.status !== 200 || poll.at < SETTLE_MS || within(quiet, poll.at)) continue;
    const site = siteOfPath(poll.path);
    const groups = groupsAt(site, poll.at);
    if (groups > CAPACITY) continue;
    ages.set(poll.age!, (ages.get(poll.age!) ?? 0) + 1);
    const rule = lateRule(poll, groups);
    const oldest = rule === 'on time' ? oldestAge(groups) : TICK_MS / 1000 - 1;
    if (rule !== 'tick' && poll.age! > oldest)
      violations.push(
        `freshness: ${poll.path} read data ${poll.age} s old at ${poll.at} ms, ${oldest} s at most (${site}: ${groups} upstream queries, capacity ${CAPACITY})`,
      );
    // Refilled for its tick: fetched after the tick before (ticks are whole seconds, so
    // Last-Modified's whole seconds judge it exactly). A refill that missed its slot and came
    // after the tick left the tick's pollers the data of the step before, at an age of 2–3 s,
    // which the age alone lets pass.
    const tick = poll.at - (poll.at % TICK_MS);
    if (poll.fetchedAt! < tick - TICK_MS)
      violations.push(
        `freshness: ${poll.path} polled at ${poll.at} ms read data fetched at ${poll.fetchedAt} ms, before the tick before (${tick - TICK_MS} ms; ${site}: ${groups} upstream queries, capacity ${CAPACITY})`,
      );
  }
  // Refresh intervals of each upstream query while its site is steadily above capacity.
  const fills = new Map<string, { site: string; times: number[] }>();
  for (const grant of record.grants) {
    const at = grant.sentAt - start;
    if (grant.outcome !== 'ok' || at < SETTLE_MS || within(quiet, at) || groupsAt(grant.site, at) <= CAPACITY)
      continue;
    const entry = fills.get(grant.key) ?? { site: grant.site, times: [] };
    entry.times.push(at);
    fills.set(grant.key, entry);
  }
  // Each query against its site's queries polled as long, over the same time, the spans it was
  // refreshed in: a query polled only while its site had fewer queries is rightly refreshed more
  // often than the site's mean over the whole run (seed 624: a second dashboard's queries, polled
  // while both were open, every 7.4 s, the first's every 5.2 s over ten minutes, and as often as
  // those while both were). So is one answered from its fold group's wide query in between (seed
  // 6226: a quickstats query folded into another dashboard's for 348 s, refreshed every 4.02 s
  // before and after, as its peers were then, whose mean over the whole run was 5.38 s).
  const series = [...fills].map(([key, { site, times }]) => ({ key, site, times }));
  for (const [site, entries] of bySite(series)) {
    for (const entry of entries) {
      const from = entry.times[0]!;
      const to = entry.times.at(-1)!;
      const spans = refreshedSpans(entry.times);
      const mean = meanRefreshInterval(entry.times, spans);
      if (mean === undefined) continue;
      const peers = entries
        .filter(
          (peer) => peer.times[0]! <= from + OVERLAP_SLACK_MS && peer.times.at(-1)! >= to - OVERLAP_SLACK_MS,
        )
        .map((peer) => meanRefreshInterval(peer.times, spans))
        .filter((peerMean) => peerMean !== undefined);
      if (peers.length < 2) continue;
      const overall = peers.reduce((sum, peerMean) => sum + peerMean, 0) / peers.length;
      if (Math.abs(mean - overall) > 0.2 * overall)
        violations.push(
          `fairness: ${entry.key} refreshed every ${(mean / 1000).toFixed(2)} s on average from ${Math.round(from)} to ${Math.round(to)} ms, ${site}'s queries polled as long every ${(overall / 1000).toFixed(2)} s`,
        );
    }
  }
  return { violations: violations.slice(0, 5), ages };
}

/** The key is in no answer and no log line; nothing in the cache threw. */
export function keyStaysSecretAndNothingCrashes(_scenario: Scenario, record: Record): string[] {
  const violations: string[] = [];
  if (record.leaks.some((text) => text.includes(API_KEY)))
    violations.push('secret: the API key appears in an answer or a log line');
  for (const crash of record.crashes.slice(0, 3)) violations.push(`crash: ${crash}`);
  return violations;
}

export function judge(scenario: Scenario, record: Record, start: number): Verdict {
  const fresh = freshAndFair(scenario, record, start);
  return {
    violations: [
      ...budgetHolds(scenario, record, start),
      ...oneFillPerKeyPerTick(scenario, record, start),
      ...staleIsServedAndMarked(scenario, record),
      ...fresh.violations,
      ...keyStaysSecretAndNothingCrashes(scenario, record),
    ],
    ages: fresh.ages,
  };
}
