/**
 * The cache: one upstream fill per key per TTL, whatever the crowd.
 *
 * Storage and coalescing are lru-cache's: `fetch()` runs one fill per key however many callers
 * ask, hands the stored value to callers that accept a stale one while the fill runs, and keeps
 * that value when the fill fails (`noDeleteOnFetchRejection`). Its own TTLs are not used:
 * freshness, the stale window, backoff and the budget are decided here, on one injectable clock.
 *
 * Freshness of live keys is laid on the upstream's 3 s wall-clock grid. A fill that started at
 * `s` stays fresh at least until `s + ttl` (so never two fills within a TTL), and then until the
 * moment a refill must start to complete just before the next grid tick. Keys that were polled
 * since their last fill are refilled at that moment (refresh-ahead), so a widget polling at the
 * tick finds data fetched a few hundred milliseconds earlier instead of one tick old. Keys nobody
 * polled since their last fill started are never refreshed.
 *
 * With a shared tier (Redis), this process's entries are a local copy of the shared ones: a key
 * that is not fresh here is first read from Redis, and a fill starts only for the instance that
 * takes the key's lease; the others wait for the entry it publishes (never calling the upstream
 * themselves) and answer 503 if it does not come within `maxWaitMs`. Refresh-ahead runs the same
 * way on every instance that was polled, so exactly one refreshes and the others pick its entry
 * up before the tick. When Redis is unreachable, each instance fills alone within its budget share.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { routes, type RawDataResponse, type RouteName } from '../api/index.ts';
import type { HostBudget } from './host-budget.ts';
import type { CacheMetrics } from './metrics.ts';
import type { ResolvedOptions } from './options.ts';
import type { SharedTier } from './shared-tier.ts';
import { storeBody, type CacheStatus, type StaleDetail, type StoredResponse } from './stored-response.ts';
import type { FailureReason, RateLimitSignals, UpstreamClient } from './upstream.ts';

export interface FillContext {
  route: RouteName;
  query: string;
  host: string;
  /** A history sample, not a widget's poll: never arms refresh-ahead, counts as wanted only for the fill it needs. */
  passive?: boolean;
}

export type Lookup =
  | { kind: 'stored'; stored: StoredResponse; status: CacheStatus }
  | { kind: 'unavailable'; retryAfterMs: number; rateLimited: boolean };

interface KeyState {
  lastRequestedAt: number;
  failures: number;
  /** No fill for this key before then (per-key backoff after failures). */
  retryAt: number;
  waitingForBudget: boolean;
  /** A fill (or, with a shared tier, the wait for another instance's fill) is running. */
  filling: boolean;
  refresh?: ReturnType<typeof setTimeout>;
}

class FillError extends Error {
  override name = 'FillError';
  constructor(readonly reason: FailureReason | 'unwanted' | 'lease_lost' | 'shared_backoff' | 'shared_wait') {
    super(`fill failed: ${reason}`);
  }
}

/** Latency assumed before a host's first answer. */
const INITIAL_LATENCY_MS = 150;
/** A `Retry-After` longer than this is treated as this: the stale window covers the rest. */
const MAX_COOLDOWN_MS = 10 * 60_000;

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
  readonly #metrics: CacheMetrics;
  readonly #logger: Logger;
  readonly #shared?: SharedTier;
  readonly #now: () => number;
  readonly #entries: LRUCache<string, StoredResponse, FillContext>;
  readonly #keys: LRUCache<string, KeyState>;
  /** Per host, a moving average of upstream latency: how early a refresh-ahead must start. */
  readonly #latency = new Map<string, number>();
  /** Shared-tier reads in flight, one per key however many requests wait on it. */
  readonly #reads = new Map<string, Promise<StoredResponse | undefined>>();
  /** How often a waiter looks for the entry another instance is filling. */
  readonly #pollMs: number;
  #closed = false;

  constructor(parts: FillCacheParts) {
    this.#options = parts.options;
    this.#upstream = parts.upstream;
    this.#budget = parts.budget;
    this.#metrics = parts.metrics;
    this.#logger = parts.logger;
    this.#shared = parts.shared;
    this.#now = parts.options.now;
    this.#pollMs = Math.min(50, Math.max(5, this.#options.liveTtlMs / 60));
    this.#entries = new LRUCache<string, StoredResponse, FillContext>({
      max: this.#options.cacheMaxEntries,
      maxSize: this.#options.cacheMaxBytes,
      sizeCalculation: (stored) => stored.size,
      allowStale: true,
      noDeleteOnFetchRejection: true,
      fetchMethod: (key, stale, { signal, context }) => this.#fill(key, context, signal, stale),
      dispose: (_stored, key, reason) => {
        if (reason === 'evict' || reason === 'delete') this.#stopRefresh(key);
      },
    });
    this.#keys = new LRUCache<string, KeyState>({
      max: this.#options.cacheMaxEntries * 2,
      dispose: (state) => clearTimeout(state.refresh),
    });
  }

  get bytes(): number {
    return this.#entries.calculatedSize;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The stored entry of `key` while it is fresh, without touching anything: the fast hit path asks this first. */
  freshEntry(key: string): StoredResponse | undefined {
    const stored = this.#entries.peek(key);
    return stored && this.#now() < stored.freshUntil ? stored : undefined;
  }

  /** The bookkeeping `lookup` does for a fresh hit (recency, "polled", refresh-ahead), for a hit answered by the fast path. */
  countHit(key: string, context: FillContext, stored: StoredResponse): void {
    const state = this.#state(key);
    state.lastRequestedAt = this.#now();
    this.#entries.get(key);
    this.#planRefresh(key, context, state, stored);
  }

  async lookup(key: string, context: FillContext): Promise<Lookup> {
    const state = this.#state(key);
    let current = this.#entries.get(key);
    if (!context.passive || !(current && this.#now() < current.freshUntil)) state.lastRequestedAt = this.#now();
    if (this.#shared && !(current && state.lastRequestedAt < current.freshUntil)) current = await this.#adopt(key, context, state, current);
    const now = this.#now();
    if (current && now < current.freshUntil) {
      this.#planRefresh(key, context, state, current);
      return { kind: 'stored', stored: current, status: { kind: 'hit' } };
    }
    const blockedUntil = this.#blockedUntil(key, context.host, state);
    if (current && now <= current.freshUntil + this.#options.staleWindowMs) {
      if (blockedUntil <= now) this.#startFill(key, context);
      return { kind: 'stored', stored: current, status: { kind: 'stale', detail: this.#staleDetail(context.host, state, now) } };
    }
    if (blockedUntil > now) return this.#unavailable(context.host, blockedUntil - now);
    try {
      const filled = await this.#withDeadline(this.#entries.fetch(key, { forceRefresh: true, allowStale: false, context }));
      if (filled) return { kind: 'stored', stored: filled, status: { kind: 'miss' } };
    } catch {
      // The reason is in the key's state and in the log line of the upstream call.
    }
    const after = this.#blockedUntil(key, context.host, state) - this.#now();
    return this.#unavailable(context.host, after > 0 ? after : this.#options.backoffBaseMs);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const state of this.#keys.values()) clearTimeout(state.refresh);
    this.#budget.close();
    this.#shared?.close();
    this.#entries.clear();
    await this.#upstream.close();
  }

  #state(key: string): KeyState {
    let state = this.#keys.get(key);
    if (!state) {
      state = { lastRequestedAt: 0, failures: 0, retryAt: 0, waitingForBudget: false, filling: false };
      this.#keys.set(key, state);
    }
    return state;
  }

  #blockedUntil(key: string, host: string, state = this.#state(key)): number {
    return Math.max(state.retryAt, this.#budget.cooldownUntil(host));
  }

  #staleDetail(host: string, state: KeyState, now: number): StaleDetail {
    if (this.#budget.cooldownUntil(host) > now) return 'rate-limited';
    if (state.retryAt > now) return 'upstream-error';
    return state.waitingForBudget ? 'budget' : 'refreshing';
  }

  #unavailable(host: string, retryAfterMs: number): Lookup {
    return { kind: 'unavailable', retryAfterMs, rateLimited: this.#budget.cooldownUntil(host) > this.#now() };
  }

  /** Starts a fill in the background unless one is running; callers keep serving what is stored. */
  #startFill(key: string, context: FillContext): void {
    this.#entries.fetch(key, { forceRefresh: true, context }).catch(() => undefined);
  }

  #withDeadline<T>(promise: Promise<T>): Promise<T | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.#options.maxWaitMs);
    });
    return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
  }

  /** Someone asked within the last interval: a queued fill for a key nobody wants is dropped. */
  #wanted(route: RouteName, state: KeyState): boolean {
    const window = Math.max(this.#ttlMs(route), this.#options.maxWaitMs);
    return this.#now() - state.lastRequestedAt <= window;
  }

  async #fill(key: string, context: FillContext, signal: AbortSignal, stale: StoredResponse | undefined): Promise<StoredResponse> {
    const state = this.#state(key);
    state.filling = true;
    try {
      const stored = this.#shared ? await this.#fillShared(key, context, state, signal, stale) : await this.#callUpstream(context, state, signal);
      // Polls that came while a slow fill ran were answered stale: the next tick is wanted too.
      this.#planRefresh(key, context, state, stored);
      return stored;
    } finally {
      state.filling = false;
    }
  }

  /** The shared copy of a key that is not fresh here, if it is newer than ours; kept locally unless a fill of ours is running. */
  async #adopt(key: string, context: FillContext, state: KeyState, current: StoredResponse | undefined): Promise<StoredResponse | undefined> {
    let read = this.#reads.get(key);
    if (!read) {
      read = this.#shared!.read(this.#sharedKey(key, context.route)).finally(() => this.#reads.delete(key));
      this.#reads.set(key, read);
    }
    const shared = await read;
    if (!shared || (current && shared.fetchedAt <= current.fetchedAt)) return current;
    if (!state.filling) this.#entries.set(key, shared);
    return shared;
  }

  /**
   * Takes the key's lease and fills, or waits for the entry of the instance that holds it: a
   * waiter never calls the upstream itself, it gives up at `maxWaitMs`. A lease that expires
   * (its holder died) is taken over. Redis unreachable: this instance fills alone.
   */
  async #fillShared(key: string, context: FillContext, state: KeyState, signal: AbortSignal, stale: StoredResponse | undefined): Promise<StoredResponse> {
    const shared = this.#shared!;
    const sharedKey = this.#sharedKey(key, context.route);
    const deadline = this.#now() + this.#options.maxWaitMs;
    for (;;) {
      const claim = await shared.claim(sharedKey, this.#options.maxWaitMs + this.#timeoutMs(context.route));
      this.#metrics.leases.inc({ outcome: claim.kind });
      if (claim.kind === 'offline') return this.#callUpstream(context, state, signal);
      if (claim.kind === 'won') {
        try {
          return await this.#callUpstream(context, state, signal, { sharedKey, token: claim.token });
        } catch (error) {
          if (error instanceof FillError && error.reason === 'lease_lost') continue;
          throw error;
        }
      }
      if (claim.kind === 'backoff') {
        state.retryAt = Math.max(state.retryAt, this.#now() + claim.ms);
        throw new FillError('shared_backoff');
      }
      const entry = await shared.read(sharedKey);
      if (entry && entry.fetchedAt > (stale?.fetchedAt ?? 0)) return entry;
      const left = deadline - this.#now();
      if (signal.aborted || this.#closed || left <= 0) throw new FillError('shared_wait');
      await sleep(Math.min(claim.ms, this.#pollMs, left));
    }
  }

  async #callUpstream(context: FillContext, state: KeyState, signal: AbortSignal, lease?: { sharedKey: string; token: string }): Promise<StoredResponse> {
    const requestedAt = this.#now();
    const queued = () => {
      state.waitingForBudget = true;
      this.#metrics.budgetWaits.inc({ host: context.host });
    };
    let grantedAt: number | undefined;
    try {
      grantedAt = await this.#budget.acquire(context.host, () => this.#wanted(context.route, state), queued);
    } finally {
      state.waitingForBudget = false;
    }
    if (grantedAt === undefined) throw new FillError('unwanted');
    if (lease && (await this.#shared!.confirm(lease.sharedKey, lease.token, this.#ttlMs(context.route))) === false) throw new FillError('lease_lost');
    const startedAt = this.#now();
    const outcome = await this.#upstream.get(context.route, context.query, signal, grantedAt);
    this.#obeyRateLimit(context.host, outcome.limits, outcome.ok ? undefined : outcome.reason);
    if (!outcome.ok) {
      if (outcome.reason !== 'closed') await this.#backOff(state, lease?.sharedKey);
      throw new FillError(outcome.reason);
    }
    state.failures = 0;
    state.retryAt = 0;
    const previous = this.#latency.get(context.host);
    this.#latency.set(context.host, previous === undefined ? outcome.ms : previous * 0.7 + outcome.ms * 0.3);
    const body = JSON.stringify(this.#forClients(context.route, outcome.data));
    const stored = await storeBody(body, { startedAt, fetchedAt: this.#now(), freshUntil: this.#freshUntil(context, requestedAt, startedAt) });
    if (lease) await this.#shared!.write(lease.sharedKey, stored, stored.freshUntil + this.#options.staleWindowMs - this.#now());
    return stored;
  }

  /** Per-key backoff; with a lease, shared: the lease turns into the backoff for every instance. */
  async #backOff(state: KeyState, sharedKey?: string): Promise<void> {
    state.failures += 1;
    const delay = Math.min(this.#options.backoffMaxMs, this.#options.backoffBaseMs * 2 ** (state.failures - 1));
    const shared = sharedKey === undefined ? undefined : await this.#shared!.fail(sharedKey, this.#options.backoffBaseMs, this.#options.backoffMaxMs);
    state.retryAt = this.#now() + (shared ?? delay);
  }

  #ttlMs(route: RouteName): number {
    return routes[route].live ? this.#options.liveTtlMs : this.#options.rawDataTtlMs;
  }

  #timeoutMs(route: RouteName): number {
    return routes[route].live ? this.#options.upstreamTimeoutMs : this.#options.rawDataTimeoutMs;
  }

  /** Raw data kept with personal fields must never reach an instance that strips them. */
  #sharedKey(key: string, route: RouteName): string {
    return route === 'raw_data' && this.#options.rawDataPersonalFields ? `${key}#personal` : key;
  }

  #obeyRateLimit(host: string, limits: RateLimitSignals, reason: FailureReason | undefined): void {
    if (reason !== 'rate_limited' && limits.remaining !== 0) return;
    const ms = Math.min(limits.retryAfterMs ?? this.#options.cooldownMs, MAX_COOLDOWN_MS);
    this.#budget.cooldown(host, this.#now() + ms);
    this.#logger.warn({ site: host, cooldownMs: ms, status: reason === 'rate_limited' ? 429 : undefined, remaining: limits.remaining }, 'upstream rate limit: host cooling down');
  }

  /** Raw data loses its personal fields unless the operator opted in. */
  #forClients(route: RouteName, data: unknown): unknown {
    if (route !== 'raw_data' || this.#options.rawDataPersonalFields) return data;
    const envelope = data as RawDataResponse;
    return { ...envelope, data: envelope.data.map(({ user_email: _email, user_id: _id, ...record }) => record) };
  }

  /**
   * Live keys: at least `ttl` after the fill started, then up to the moment a refill must start
   * to land before the next grid tick (`lead` ahead of it, from the host's latency). Which tick
   * is decided from when the fill was asked for, not when the budget let it start: a fill that
   * waited for the budget (or an upstream slower than the lead) lands just after its tick, and
   * its refill still aims at the next tick rather than skipping one, which would halve the
   * refresh rate of every key that lost a race for the budget.
   */
  #freshUntil(context: FillContext, requestedAt: number, startedAt: number): number {
    if (!routes[context.route].live) return startedAt + this.#options.rawDataTtlMs;
    const interval = this.#options.liveTtlMs;
    const latency = this.#latency.get(context.host) ?? INITIAL_LATENCY_MS;
    // Never more than three quarters of the interval ahead: a refill starts after the previous tick's polls.
    const lead = Math.min((interval * 3) / 4, latency * 1.5 + 100);
    const tick = Math.ceil((requestedAt + interval + Math.min(latency, lead / 2)) / interval) * interval;
    return Math.max(startedAt + interval, tick - lead);
  }

  /**
   * Polled within about the last interval. The request that made a cold fill counts too: its
   * widget polls again at the next tick, and without a refresh-ahead armed now that tick would
   * find the cold fill's data and the one after the refill it triggered, both ticks stale. An
   * eighth of the interval absorbs timer lateness; a key left alone gets at most one more fill.
   */
  #polledRecently(state: KeyState, now: number): boolean {
    const interval = this.#options.liveTtlMs;
    return now - state.lastRequestedAt <= interval + interval / 8;
  }

  /** Arms the refresh-ahead of a live key that is being polled. */
  #planRefresh(key: string, context: FillContext, state: KeyState, stored: StoredResponse): void {
    if (!routes[context.route].live || context.passive || state.refresh !== undefined || this.#closed) return;
    if (!this.#polledRecently(state, this.#now())) return;
    this.#armRefresh(key, context, state, stored.freshUntil - this.#now());
  }

  #armRefresh(key: string, context: FillContext, state: KeyState, delayMs: number): void {
    state.refresh = setTimeout(() => this.#refreshAhead(key, context, state), Math.max(1, delayMs));
    state.refresh.unref();
  }

  #refreshAhead(key: string, context: FillContext, state: KeyState): void {
    state.refresh = undefined;
    const stored = this.#entries.peek(key);
    if (!stored || this.#closed) return;
    const now = this.#now();
    if (now < stored.freshUntil) return this.#armRefresh(key, context, state, stored.freshUntil - now);
    if (!this.#polledRecently(state, now) || this.#blockedUntil(key, context.host, state) > now) return;
    this.#startFill(key, context);
  }

  #stopRefresh(key: string): void {
    const state = this.#keys.peek(key);
    if (state) {
      clearTimeout(state.refresh);
      state.refresh = undefined;
    }
  }
}
