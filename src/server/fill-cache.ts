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
 * polls are never refreshed.
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { routes, type RawDataResponse, type RouteName } from '../api/index.ts';
import type { HostBudget } from './host-budget.ts';
import type { CacheMetrics } from './metrics.ts';
import type { ResolvedOptions } from './options.ts';
import { storeBody, type CacheStatus, type StaleDetail, type StoredResponse } from './stored-response.ts';
import type { FailureReason, RateLimitSignals, UpstreamClient } from './upstream.ts';

export interface FillContext {
  route: RouteName;
  query: string;
  host: string;
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
  refresh?: ReturnType<typeof setTimeout>;
}

class FillError extends Error {
  override name = 'FillError';
  constructor(readonly reason: FailureReason | 'unwanted') {
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
}

export class FillCache {
  readonly #options: ResolvedOptions;
  readonly #upstream: UpstreamClient;
  readonly #budget: HostBudget;
  readonly #metrics: CacheMetrics;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #entries: LRUCache<string, StoredResponse, FillContext>;
  readonly #keys: LRUCache<string, KeyState>;
  /** Per host, a moving average of upstream latency: how early a refresh-ahead must start. */
  readonly #latency = new Map<string, number>();
  #closed = false;

  constructor(parts: FillCacheParts) {
    this.#options = parts.options;
    this.#upstream = parts.upstream;
    this.#budget = parts.budget;
    this.#metrics = parts.metrics;
    this.#logger = parts.logger;
    this.#now = parts.options.now;
    this.#entries = new LRUCache<string, StoredResponse, FillContext>({
      max: this.#options.cacheMaxEntries,
      maxSize: this.#options.cacheMaxBytes,
      sizeCalculation: (stored) => stored.size,
      allowStale: true,
      noDeleteOnFetchRejection: true,
      fetchMethod: (key, _stale, { signal, context }) => this.#fill(key, context, signal),
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

  async lookup(key: string, context: FillContext): Promise<Lookup> {
    const now = this.#now();
    const state = this.#state(key);
    state.lastRequestedAt = now;
    const current = this.#entries.get(key);
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
    this.#closed = true;
    for (const state of this.#keys.values()) clearTimeout(state.refresh);
    this.#budget.close();
    this.#entries.clear();
    await this.#upstream.close();
  }

  #state(key: string): KeyState {
    let state = this.#keys.get(key);
    if (!state) {
      state = { lastRequestedAt: 0, failures: 0, retryAt: 0, waitingForBudget: false };
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
    const window = Math.max(routes[route].live ? this.#options.liveTtlMs : this.#options.rawDataTtlMs, this.#options.maxWaitMs);
    return this.#now() - state.lastRequestedAt <= window;
  }

  async #fill(key: string, context: FillContext, signal: AbortSignal): Promise<StoredResponse> {
    const state = this.#state(key);
    const queued = () => {
      state.waitingForBudget = true;
      this.#metrics.budgetWaits.inc({ host: context.host });
    };
    let granted: boolean;
    try {
      granted = await this.#budget.acquire(context.host, () => this.#wanted(context.route, state), queued);
    } finally {
      state.waitingForBudget = false;
    }
    if (!granted) throw new FillError('unwanted');
    const startedAt = this.#now();
    const outcome = await this.#upstream.get(context.route, context.query, signal);
    this.#obeyRateLimit(context.host, outcome.limits, outcome.ok ? undefined : outcome.reason);
    if (!outcome.ok) {
      if (outcome.reason !== 'closed') this.#backOff(state);
      throw new FillError(outcome.reason);
    }
    state.failures = 0;
    state.retryAt = 0;
    const previous = this.#latency.get(context.host);
    this.#latency.set(context.host, previous === undefined ? outcome.ms : previous * 0.7 + outcome.ms * 0.3);
    const body = JSON.stringify(this.#forClients(context.route, outcome.data));
    return storeBody(body, { startedAt, fetchedAt: this.#now(), freshUntil: this.#freshUntil(context, startedAt) });
  }

  #backOff(state: KeyState): void {
    state.failures += 1;
    const delay = Math.min(this.#options.backoffMaxMs, this.#options.backoffBaseMs * 2 ** (state.failures - 1));
    state.retryAt = this.#now() + delay;
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
   * to land before the next grid tick (`lead` ahead of it, from the host's latency).
   */
  #freshUntil(context: FillContext, startedAt: number): number {
    if (!routes[context.route].live) return startedAt + this.#options.rawDataTtlMs;
    const interval = this.#options.liveTtlMs;
    const latency = this.#latency.get(context.host) ?? INITIAL_LATENCY_MS;
    const lead = Math.min(interval / 3, latency * 1.5 + 100);
    const earliest = startedAt + interval;
    const tick = Math.ceil((earliest + latency) / interval) * interval;
    return Math.max(earliest, tick - lead);
  }

  /** Arms the refresh-ahead of a live key that someone asked for since its last fill. */
  #planRefresh(key: string, context: FillContext, state: KeyState, stored: StoredResponse): void {
    if (!routes[context.route].live || state.refresh !== undefined || this.#closed) return;
    if (state.lastRequestedAt <= stored.fetchedAt) return;
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
    if (state.lastRequestedAt <= stored.fetchedAt || this.#blockedUntil(key, context.host, state) > now) return;
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
