/**
 * The cache: one upstream fill per key per TTL, whatever the crowd. This class keeps the public
 * API (`lookup`; the hit path's `freshEntry`, `refillingEntry`, `foldedHit` and their `countHit`
 * and `countFoldedHit`; `close`) and wires the parts that do the work:
 *
 * - decision.ts: what a lookup does with a key (hit, stale, refill, first-paint wait, fill,
 *   unavailable), a pure function of the key's state and the time; key-lookup.ts acts on it;
 * - polled-keys.ts: each key's state, who polls it, and the keys the refresh plan works on
 *   (plan/refresh-plan.ts, armed on the clock by plan/refresh-schedule.ts);
 * - filler.ts: one fill (budget slot, lease, upstream call, stored body; backoff and cooldown);
 * - site-recovery.ts: the backoffs an outage started, ended once the site answers again;
 * - shared-keys.ts: with a shared tier, its entries, leases and polled keys;
 * - fold-groups.ts and folded-answers.ts: queries answered from their fold group's wide fill.
 *
 * Storage and coalescing are lru-cache's: `fetch()` runs one fill per key however many callers
 * ask, and keeps the stored value when the fill fails (`noDeleteOnFetchRejection`). Its own TTLs
 * are not used: freshness, the stale window, backoff and the budget are decided by the parts, on
 * one injectable clock.
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { lruTime } from '../../runtime/clock.ts';
import type { StoredResponse } from '../../runtime/stored-response.ts';
import type { HostBudget } from '../budget/host-budget.ts';
import type { CacheMetrics } from '../metrics.ts';
import type { ResolvedOptions } from '../config/options.ts';
import { newQuerySlots } from '../plan/refresh-plan.ts';
import { RefreshSchedule } from '../plan/refresh-schedule.ts';
import type { SharedTier } from '../tier/shared-tier.ts';
import type { UpstreamClient } from '../upstream.ts';
import { type Lookup, servable } from './decision.ts';
import { Filler } from './filler.ts';
import { FoldGroups } from './fold-groups.ts';
import { FoldedAnswers, type FoldedHit } from './folded-answers.ts';
import { KeyLookup } from './key-lookup.ts';
import { PolledKeys, type Entries, type FillContext } from './polled-keys.ts';
import { SharedKeys } from './shared-keys.ts';
import { SiteRecovery } from './site-recovery.ts';

export interface FillCacheParts {
  options: ResolvedOptions;
  upstream: UpstreamClient;
  budget: HostBudget;
  metrics: CacheMetrics;
  logger: Logger;
  /** Entries, leases and the budget shared with other instances; without it this process fills alone. */
  shared?: SharedTier;
}

export class FillCache {
  readonly #options: ResolvedOptions;
  readonly #upstream: UpstreamClient;
  readonly #budget: HostBudget;
  readonly #now: () => number;
  readonly #entries: Entries;
  readonly #schedule: RefreshSchedule;
  readonly #keys: PolledKeys;
  readonly #filler: Filler;
  readonly #lookups: KeyLookup;
  readonly #sharedKeys?: SharedKeys;
  /** Fold groups and their members' answers; unset with folding off. */
  readonly #folding?: { groups: FoldGroups; answers: FoldedAnswers };
  /** Lookups under way: closing lets them answer before the entries go. */
  readonly #lookupsInFlight = new Set<Promise<Lookup>>();
  #closed = false;

  constructor({ options, upstream, budget, metrics, logger, shared }: FillCacheParts) {
    this.#options = options;
    this.#upstream = upstream;
    this.#budget = budget;
    this.#now = options.clock.now;
    const entries = (this.#entries = new LRUCache<string, StoredResponse, FillContext>({
      max: options.cacheMaxEntries,
      maxSize: options.cacheMaxBytes,
      sizeCalculation: (stored) => stored.size,
      allowStale: true,
      noDeleteOnFetchRejection: true,
      ...lruTime(options.clock),
      fetchMethod: (key, stale, { signal, context }) => this.#filler.fill(key, context, signal, stale),
    }));
    const schedule = (this.#schedule = new RefreshSchedule({
      intervalMs: options.liveTtlMs,
      windowMs: options.budgetWindowMs,
      fills: options.budgetFills,
      clock: options.clock,
      polled: (site) => this.#keys.planned(site),
      lead: (host) => this.#filler.lead(host),
      refresh: (key, dueBy, tick) => void this.#filler.refreshPlanned(key, dueBy, tick),
      ...(shared ? { prepare: (site: string) => this.#sharedKeys!.preparePlan(site) } : {}),
      stretch: (key, until) => {
        const stored = entries.peek(key);
        if (stored && stored.freshUntil < until) stored.freshUntil = until;
        const state = this.#keys.peek(key);
        if (state?.filling) state.stretchedUntil = until;
      },
      report: (site, plan) => metrics.reportPlan(site, plan),
    }));
    const keys = (this.#keys = new PolledKeys({
      options,
      schedule,
      entries,
      pollersOf: (state, now) => this.#folding?.groups.pollersOf(state, now) ?? 1,
    }));
    const recovery = new SiteRecovery({
      keys,
      now: options.clock.now,
      quietMs: options.liveTtlMs,
      endShared: (key, context) => this.#sharedKeys?.endBackoff(key, context),
    });
    const sharedKeys = (this.#sharedKeys =
      shared && new SharedKeys({ shared, options, entries, keys, schedule, metrics, recovery }));
    const filler = (this.#filler = new Filler({
      options,
      upstream,
      budget,
      metrics,
      logger,
      entries,
      keys,
      schedule,
      recovery,
      sharedKeys,
    }));
    const lookups = (this.#lookups = new KeyLookup({
      options,
      entries,
      keys,
      filler,
      budget,
      sharedKeys,
      plannedRefillAt: (site, key) => schedule.plannedRefillAt(site, key),
    }));
    if (options.fold) {
      const groups = new FoldGroups({ options, entries, keys, shared });
      this.#folding = {
        groups,
        answers: new FoldedAnswers({ groups, options, entries, keys, metrics, lookups }),
      };
    }
  }

  get bytes(): number {
    return this.#entries.calculatedSize;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The stored entry of `key` while it is fresh, touching no key's state: the fast hit path asks
   * this first. A query that folds is left to lookup unless it is its group's wide query here
   * (`FoldGroups.leftToFolding`, which may make it a member of its group).
   */
  freshEntry(key: string, context: FillContext): StoredResponse | undefined {
    if (this.#folding?.groups.leftToFolding(key, context)) return undefined;
    const stored = this.#entries.peek(key);
    return stored && this.#now() < stored.freshUntil ? stored : undefined;
  }

  /**
   * The stored entry of `key` while its refill is in flight and nothing holds it back (the
   * decision is `refill`, and the fill is not queued for budget): `lookup` answers it at once as
   * stale with `detail=refreshing`, and so may the fast hit path. Otherwise every request of a
   * refill's round trip, under load a few hundred ms each tick, took the Web path, five times
   * the work, and the queue it left was the hit path's p99.
   */
  refillingEntry(key: string, context: FillContext): StoredResponse | undefined {
    if (this.#folding?.groups.leftToFolding(key, context)) return undefined;
    return this.#lookups.refilling(key);
  }

  /**
   * Whether answering `key` now would start an upstream call for a query nobody polls: no fill
   * of it under way (a request joins that one), no servable answer (its own, the tier's it last
   * read while a fill ran, or a fold group's wide one that covers it, fresh or within the stale
   * window), and no client (here or, with a shared tier, on another instance) polled it within
   * the last interval. What the per-client meter counts (new-query-meter.ts). A query with a
   * servable copy is not new: refused, it was an error answer while a copy existed, and a tab
   * shown again after a minute hidden was refused its own dashboard's queries. (Seed 11262: a
   * restarted instance answered the tier's copy at the end of a fill's wait for the budget, did
   * not keep it, and refused the next poll, the site's cap spent by a sprayer.)
   */
  startsNewQuery(key: string, context: FillContext): boolean {
    const now = this.#now();
    const state = this.#keys.peek(key);
    if (state && (state.filling || this.#keys.polledRecently(state, now))) return false;
    const freshUntil = Math.max(
      this.#entries.peek(key)?.freshUntil ?? -Infinity,
      state?.unkeptCopyFreshUntil ?? -Infinity,
    );
    if (servable({ freshUntil }, now, this.#options.staleWindowMs)) return false;
    if (this.#folding?.groups.coveredOrPolled(key, now)) return false;
    return !context.passive;
  }

  /**
   * A fold member's fresh answer, derived from its group's fresh wide answer, when its lookup
   * would be just that (`FoldedAnswers.freshHit`): the fast hit path sends it.
   */
  foldedHit(key: string, context: FillContext): FoldedHit | undefined {
    const member = this.#folding?.groups.memberOf(key, context);
    return member && this.#folding!.answers.freshHit(member, context);
  }

  /** The bookkeeping `lookup` does for the wide query of a folded fresh hit answered by the fast path. */
  countFoldedHit(hit: FoldedHit): void {
    this.#polled(hit.wideKey, hit.wideContext);
  }

  /** The bookkeeping `lookup` does for a fresh hit, for a hit answered by the fast path. */
  countHit(key: string, context: FillContext): void {
    this.#folding?.groups.countHit(key, context);
    this.#polled(key, context);
  }

  /** A hit on `key`: polled (here and on the tier), and recent in the store. */
  #polled(key: string, context: FillContext): void {
    this.#lookups.touch(key, context, this.#keys.state(key));
    this.#entries.get(key);
  }

  async lookup(key: string, context: FillContext): Promise<Lookup> {
    const folding = this.#folding;
    const member = folding?.groups.memberOf(key, context);
    const lookup =
      folding && member ? folding.answers.lookup(member, context) : this.#lookups.lookup(key, context);
    this.#lookupsInFlight.add(lookup);
    const settled = () => this.#lookupsInFlight.delete(lookup);
    lookup.then(settled, settled);
    return lookup;
  }

  /** What the site's plan leaves of the window around `now` for new queries filled by this instance (budget/host-budget.ts). */
  newQueryShare(
    site: string,
    now: number,
  ): { slots: number; windowStart: number; windowEnd: number } | undefined {
    const reservation = this.#schedule.reserved(site, now);
    if (!reservation) return undefined;
    const { reserved, windowStart, windowEnd } = reservation;
    return {
      slots: newQuerySlots(
        this.#options.budgetFills,
        reserved,
        this.#sharedKeys ? this.#options.instances : 1,
      ),
      windowStart,
      windowEnd,
    };
  }

  /**
   * Stops the plan, the budget, the tier and the fills under way, lets the lookups under way
   * answer, then drops the entries: a lookup answers the copy it may serve, as when its fill
   * fails. (Dropped first, the polls in flight at a restart were answered 503 while their copies
   * were servable: seed 13890.)
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#filler.close();
    this.#schedule.close();
    this.#budget.close();
    this.#sharedKeys?.close();
    await Promise.allSettled(this.#lookupsInFlight);
    this.#entries.clear();
    await this.#upstream.close();
  }
}
