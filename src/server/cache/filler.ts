/**
 * One fill of one key: a budget slot, (with a shared tier) the key's lease, the upstream call,
 * the stored body. A failure backs the key off; a rate limit cools its host down. lru-cache
 * calls `fill` as its fetch method, once per key however many lookups wait (fill-cache.ts).
 */
import type { Logger } from 'pino';
import { routes, siteOf, type RouteName } from '../../api/index.ts';
import { storeBody, type StoredResponse } from '../../runtime/stored-response.ts';
import type { TimerHandle } from '../../runtime/clock.ts';
import type { HostBudget } from '../budget/host-budget.ts';
import type { CacheMetrics } from '../metrics.ts';
import type { ResolvedOptions } from '../config/options.ts';
import type { RefreshSchedule } from '../plan/refresh-schedule.ts';
import type { FailureReason, RateLimitSignals, UpstreamClient } from '../upstream.ts';
import { plannedRefill } from './decision.ts';
import { forClients } from './personal-fields.ts';
import { ttlMs, type Entries, type FillContext, type KeyState, type PolledKeys } from './polled-keys.ts';
import type { Lease, SharedKeys } from './shared-keys.ts';
import { failedForWantOfAnswer, type SiteRecovery } from './site-recovery.ts';

export class FillError extends Error {
  override name = 'FillError';
  constructor(readonly reason: FailureReason | 'unwanted' | 'lease_lost' | 'shared_backoff' | 'shared_wait') {
    super(`fill failed: ${reason}`);
  }
}

/** Latency assumed before a host's first answer. */
const INITIAL_LATENCY_MS = 150;
/** A `Retry-After` longer than this is treated as this: the stale window covers the rest. */
const MAX_COOLDOWN_MS = 10 * 60_000;

export interface FillerParts {
  options: ResolvedOptions;
  upstream: UpstreamClient;
  budget: HostBudget;
  metrics: CacheMetrics;
  logger: Logger;
  entries: Entries;
  keys: PolledKeys;
  schedule: RefreshSchedule;
  recovery: SiteRecovery;
  /** The shared tier's lease; without it this process fills alone. */
  sharedKeys?: SharedKeys;
}

export class Filler {
  readonly #options: ResolvedOptions;
  readonly #upstream: UpstreamClient;
  readonly #budget: HostBudget;
  readonly #metrics: CacheMetrics;
  readonly #logger: Logger;
  readonly #entries: Entries;
  readonly #keys: PolledKeys;
  readonly #schedule: RefreshSchedule;
  readonly #recovery: SiteRecovery;
  readonly #sharedKeys?: SharedKeys;
  readonly #now: () => number;
  /** Per host, a moving average of upstream latency: how early a refresh-ahead must start. */
  readonly #latency = new Map<string, number>();
  #closed = false;
  /** The fills under way, aborted at close: the lookups waiting on them answer the entries, still kept. */
  readonly #underWay = new Set<AbortController>();
  /** Per key, a read of the tier's copy at the tick of a refill the least gap held (`refreshPlanned`). */
  readonly #rereads = new Map<string, TimerHandle>();

  constructor(parts: FillerParts) {
    this.#options = parts.options;
    this.#upstream = parts.upstream;
    this.#budget = parts.budget;
    this.#metrics = parts.metrics;
    this.#logger = parts.logger;
    this.#entries = parts.entries;
    this.#keys = parts.keys;
    this.#schedule = parts.schedule;
    this.#recovery = parts.recovery;
    this.#sharedKeys = parts.sharedKeys;
    this.#now = parts.options.clock.now;
  }

  /** No planned refill starts after this, and the fills under way end as `closed`. */
  close(): void {
    this.#closed = true;
    for (const fill of this.#underWay) fill.abort();
    for (const reread of this.#rereads.values()) this.#options.clock.clearTimeout(reread);
    this.#rereads.clear();
  }

  async fill(
    key: string,
    context: FillContext,
    dropped: AbortSignal,
    stale: StoredResponse | undefined,
  ): Promise<StoredResponse> {
    // Aborted when lru-cache drops the key (`dropped`) or at close; its own controller, not
    // `AbortSignal.any`, so nothing of it outlives the fill.
    const fill = new AbortController();
    const { signal } = fill;
    const follow = () => fill.abort(dropped.reason);
    if (dropped.aborted) follow();
    else dropped.addEventListener('abort', follow, { once: true });
    this.#underWay.add(fill);
    const state = this.#keys.state(key);
    state.filling = true;
    state.fillingSince = this.#now();
    state.stretchedUntil = undefined;
    try {
      const stored = this.#sharedKeys
        ? await this.#sharedKeys.fill({ key, context, state, signal, stale }, (lease) =>
            this.#callUpstream(context, state, signal, lease),
          )
        : await this.#callUpstream(context, state, signal);
      // Stretched by a plan made while it ran: this answer waits for the key's turn as the copy
      // it replaces would have (else its pollers found it stale a tick later and refilled it).
      if (state.stretchedUntil !== undefined && stored.freshUntil < state.stretchedUntil)
        stored.freshUntil = state.stretchedUntil;
      this.#recovery.answered(siteOf(context.host), stored.fetchedAt);
      // An established key's first fill has no slot yet: plan it for the coming tick. (A new
      // query is planned only once polled again, when its touch re-plans: re-planning on each new
      // query's fill, five a second from a script, dealt the tick's slots again and again.)
      if (routes[context.route].live)
        this.#schedule[stale === undefined && this.#keys.established(state) ? 'replan' : 'watch'](
          siteOf(context.host),
        );
      return stored;
    } finally {
      state.filling = false;
      this.#underWay.delete(fill);
      dropped.removeEventListener('abort', follow);
    }
  }

  /** Starts a fill in the background unless one is running; callers keep serving what is stored. */
  start(key: string, context: FillContext): void {
    this.#entries.fetch(key, { forceRefresh: true, context }).catch(() => undefined);
  }

  /**
   * A planned refill, unless the key is filling, blocked, left alone, or already fresh for the
   * tick. (Judged by when a fill started, a stale-path fill that began as the plan was made, for
   * the tick before, passed for this tick's, and the tick's pollers got data a tick old.) With a
   * shared tier the tier's copy is read first: another instance may have refilled the key since.
   */
  async refreshPlanned(key: string, dueBy: number, tick: number): Promise<void> {
    const state = this.#keys.peek(key);
    let stored = this.#entries.peek(key);
    if (!state?.context || !stored || state.filling || this.#closed) return;
    const { context } = state;
    if (this.#sharedKeys) stored = (await this.#sharedKeys.adopt(key, context, state, stored)) ?? stored;
    const now = this.#now();
    if (
      state.filling ||
      this.#closed ||
      !this.#keys.polledRecently(state, now) ||
      this.blockedUntil(context.host, state) > now
    )
      return;
    const decision = plannedRefill(stored, dueBy, now, this.#schedule.minGapMs);
    if (decision === 'held') this.#rereadAt(key, tick);
    if (decision === 'start') this.start(key, context);
  }

  /**
   * A refill held by the least gap is left to the instance whose fill held it, which planned
   * it for when the gap ends; the tier is read again at the tick, for that refill. (Seed 4929:
   * an instance adopted another's fill made off the plan just after its own plan, dropped its
   * refill for the gap, and answered its page's next poll from that copy, fresh until 7 ms
   * later, while the tier held the newer refill. Filling at the gap's end instead took budget
   * slots other plans had given, and another page read a key a tick old: seed 5693.)
   */
  #rereadAt(key: string, tick: number): void {
    const sharedKeys = this.#sharedKeys;
    const waitMs = tick - this.#now();
    if (!sharedKeys || this.#rereads.has(key) || waitMs <= 0) return;
    const reread = this.#options.clock.setTimeout(() => {
      this.#rereads.delete(key);
      const state = this.#keys.peek(key);
      if (this.#closed || !state?.context || state.filling) return;
      void sharedKeys.adopt(key, state.context, state, this.#entries.peek(key));
    }, waitMs);
    this.#rereads.set(key, reread);
  }

  /** No fill of the key before then: its backoff, or its host's cooldown. */
  blockedUntil(host: string, state: KeyState): number {
    return Math.max(state.retryAt, this.#budget.cooldownUntil(host));
  }

  /**
   * How long before its slot ends a refill starts: the host's latency and a margin, and at least
   * 40 % of a budget window, which costs nothing (the answer's Last-Modified still falls in the
   * last second before the tick) and absorbs a slow answer on a busy machine. At most 90 % of a
   * window (a refill stays in its own window) and three quarters of an interval.
   */
  lead(host: string): number {
    const latency = this.#latency.get(host) ?? INITIAL_LATENCY_MS;
    const { liveTtlMs, budgetWindowMs } = this.#options;
    return Math.min(
      (liveTtlMs * 3) / 4,
      budgetWindowMs * 0.9,
      Math.max(latency * 1.5 + 100, budgetWindowMs * 0.4),
    );
  }

  async #callUpstream(
    context: FillContext,
    state: KeyState,
    signal: AbortSignal,
    lease?: Lease,
  ): Promise<StoredResponse> {
    const queued = () => {
      state.waitingForBudget = true;
      this.#metrics.budgetWaits.inc({ host: context.host });
    };
    let grantedAt: number | undefined;
    try {
      grantedAt = await this.#budget.acquire(
        context.host,
        () => this.#keys.wanted(context.route, state),
        queued,
        () => this.#keys.established(state),
      );
    } finally {
      state.waitingForBudget = false;
    }
    if (grantedAt === undefined) throw new FillError('unwanted');
    if (lease && (await lease.confirm(this.#leaseAfterGrantMs(context.route))) === false)
      throw new FillError('lease_lost');
    // The plan counts the running fill from here on, as the copy will: counted from when the fill
    // began, before the grant and the lease, the key's next refill was armed 4 ms inside the least
    // gap after the copy's start, and dropped (seed 1077).
    state.fillingSince = this.#now();
    const outcome = await this.#upstream.get(context.route, context.query, signal, grantedAt);
    this.#obeyRateLimit(context.host, outcome.limits, outcome.ok ? undefined : outcome.reason);
    state.invalid = !outcome.ok && outcome.reason === 'invalid';
    if (!outcome.ok) {
      state.outage = failedForWantOfAnswer(outcome.reason, outcome.status);
      if (state.outage) this.#recovery.failed(siteOf(context.host));
      if (outcome.reason !== 'closed') await this.#backOff(state, lease);
      throw new FillError(outcome.reason);
    }
    state.failures = 0;
    state.retryAt = 0;
    const previous = this.#latency.get(context.host);
    this.#latency.set(context.host, previous === undefined ? outcome.ms : previous * 0.7 + outcome.ms * 0.3);
    const body = JSON.stringify(forClients(context.route, outcome.data, this.#options.rawDataPersonalFields));
    // The copy's times are read now, on one time: `now()` may have stepped during the call,
    // whose length the upstream client measured on the clock that never steps.
    const fetchedAt = this.#now();
    const startedAt = fetchedAt - outcome.ms;
    const freshUntil = startedAt + ttlMs(context.route, this.#options);
    const stored = await storeBody(body, { startedAt, fetchedAt, freshUntil }, this.#options.encodeBody);
    if (lease) await lease.write(stored, stored.freshUntil + this.#options.staleWindowMs - this.#now());
    return stored;
  }

  /** Per-key backoff; with a lease, shared: the lease turns into the backoff for every instance. */
  async #backOff(state: KeyState, lease?: Lease): Promise<void> {
    state.failures += 1;
    const delay = Math.min(
      this.#options.backoffMaxMs,
      this.#options.backoffBaseMs * 2 ** (state.failures - 1),
    );
    const shared =
      lease === undefined
        ? undefined
        : await lease.fail(this.#options.backoffBaseMs, this.#options.backoffMaxMs);
    state.retryAt = this.#now() + (shared ?? delay);
  }

  /**
   * How long a granted lease keeps other instances from filling the key: a live key as long as
   * the refresh plan keeps its fills apart. Held a whole interval, a fill made off the plan
   * (a cold one, or after a stale poll) blocked the key's planned slot in the next tick, so the
   * next fill came after the tick again, and every tick after: the key stayed one tick old.
   */
  #leaseAfterGrantMs(route: RouteName): number {
    return routes[route].live ? this.#schedule.minGapMs : this.#options.rawDataTtlMs;
  }

  #obeyRateLimit(host: string, limits: RateLimitSignals, reason: FailureReason | undefined): void {
    if (reason !== 'rate_limited' && limits.remaining !== 0) return;
    const ms = Math.min(limits.retryAfterMs ?? this.#options.cooldownMs, MAX_COOLDOWN_MS);
    this.#budget.cooldown(host, this.#now() + ms);
    this.#logger.warn(
      {
        site: host,
        cooldownMs: ms,
        status: reason === 'rate_limited' ? 429 : undefined,
        remaining: limits.remaining,
      },
      'upstream rate limit: host cooling down',
    );
  }
}
