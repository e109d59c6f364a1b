/**
 * The cache: one upstream fill per key per TTL, whatever the crowd.
 *
 * Storage and coalescing are lru-cache's: `fetch()` runs one fill per key however many callers
 * ask, hands the stored value to callers that accept a stale one while the fill runs, and keeps
 * that value when the fill fails (`noDeleteOnFetchRejection`). Its own TTLs are not used:
 * freshness, the stale window, backoff and the budget are decided here, on one injectable clock.
 *
 * A live answer is fresh for one interval (3 s) after its fill started. Each site's polled keys
 * are refilled by its refresh plan (plan/refresh-plan.ts, armed by plan/refresh-schedule.ts): one budget slot per key per tick,
 * spread over the windows before the tick so each lands before its clients poll; past the
 * budget, freshness stretches evenly. A copy older than two intervals makes its request wait a
 * moment for a fresh fill (first paint). Keys nobody polled in the last tick are not refreshed.
 * Established queries come first: a key polled once (a one-off, or a script's new query every
 * 200 ms) is not planned until it is polled again, and its fill takes only budget slots the
 * plan left (host-budget.ts).
 *
 * Query folding (folding.ts): a query of a fold group is answered from the group's wide fill,
 * the union of what the group's members poll, and its body derived from that answer once per
 * fill. Only the wide key is filled, polled and planned; members are this file's bookkeeping.
 *
 * With a shared tier (Redis), this process's entries are a local copy of the shared ones: a key
 * that is not fresh here is first read from Redis, and a fill starts only for the instance that
 * takes the key's lease; the others wait for the entry it publishes (never calling the upstream
 * themselves) and answer 503 if it does not come within `maxWaitMs`. Every instance that was
 * polled plans the same refills, so exactly one takes each lease and the others pick its entry
 * up before the tick. When Redis is unreachable, each instance fills alone within its budget share.
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { findRoute, routes, siteOf, type RawDataResponse, type RouteName } from '../../api/index.ts';
import { decide, staleDetail, type EntryState } from './decision.ts';
import { covers, deriveAnswer, foldMember, shapeQuery, union, type FoldShape } from '../folding.ts';
import { lruTime, type Clock, type TimerHandle } from '../../runtime/clock.ts';
import type { HostBudget } from '../host-budget.ts';
import type { CacheMetrics } from '../metrics.ts';
import type { ResolvedOptions } from '../options.ts';
import { resolveQuery } from '../query.ts';
import { isEstablished, newQuerySlots, polledInTwoTicks, type PlannedKey } from '../plan/refresh-plan.ts';
import { RefreshSchedule } from '../plan/refresh-schedule.ts';
import type { SharedTier } from '../shared-tier.ts';
import { storeBody, type CacheStatus, type StoredResponse } from '../../runtime/stored-response.ts';
import type { FailureReason, RateLimitSignals, UpstreamClient } from '../upstream.ts';

export interface FillContext {
  route: RouteName;
  query: string;
  host: string;
  /** A history sample, not a widget's poll: never arms refresh-ahead, counts as wanted only for the fill it needs. */
  passive?: boolean;
}

export type Lookup =
  | { kind: 'stored'; stored: StoredResponse; status: CacheStatus }
  | { kind: 'unavailable'; retryAfterMs: number; rateLimited: boolean; invalid: boolean };

interface KeyState {
  lastRequestedAt: number;
  failures: number;
  /** No fill for this key before then (per-key backoff after failures). */
  retryAt: number;
  /** The last fill's upstream answer could not be read (not an outage): said as such to clients. */
  invalid?: boolean;
  waitingForBudget: boolean;
  /** A fill (or, with a shared tier, the wait for another instance's fill) is running. */
  filling: boolean;
  /** What a planned refill needs. */
  host?: string;
  route?: RouteName;
  query?: string;
  /** A fold group's former wide query: no longer refreshed by the plan unless asked for again. */
  retired?: boolean;
  /** When this instance last told the shared tier it polls this key, and in which tick it last told it it was polled. */
  sharedAt?: number;
  sharedTick?: number;
  /**
   * A client's last poll of it, here (`lastRequestedAt` also counts another instance's polls
   * and a shared tier's view of them, which lasts two intervals), and when that run of polls
   * began (a gap of two intervals ends a run): see `isEstablished`.
   */
  lastPolledAt?: number;
  pollingSince?: number;
  /** The history recorder's last lookup that needed a fill: it waits for that fill as a client does. */
  lastPassiveAt?: number;
}

/** One query of a fold group, as its clients poll it. */
interface Member {
  key: string;
  shape: FoldShape;
  group: FoldGroup;
  lastRequestedAt: number;
  /** When this instance last told the shared tier it polls this member. */
  sharedAt?: number;
  /** Its answer derived from one wide answer, made once per wide fill. */
  derived?: { source: StoredResponse; made: Promise<StoredResponse> };
}

/** Queries that differ only in what folds (docs/upstream-assumptions.md, "Query folding"). */
interface FoldGroup {
  id: string;
  route: RouteName;
  host: string;
  members: Map<string, Member>;
  /** The wide query last computed from the active members, and when. */
  wide?: { key: string; query: string; shape: FoldShape; covered: ReadonlySet<Member> };
  computedAt: number;
  /** Wide queries filled lately, newest last: any fresh one that covers a member answers it. */
  recent: Map<string, FoldShape>;
  /** A cold group waits this long for the rest of a dashboard's queries, so they share one fill. */
  gathering?: Promise<void>;
  /** When the members polled on other instances were last read from the shared tier. */
  syncedAt: number;
  syncing?: Promise<void>;
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
  readonly #clock: Clock;
  readonly #now: () => number;
  readonly #entries: LRUCache<string, StoredResponse, FillContext>;
  readonly #keys: LRUCache<string, KeyState>;
  /** Per host, a moving average of upstream latency: how early a refresh-ahead must start. */
  readonly #latency = new Map<string, number>();
  /** Shared-tier reads in flight, one per key however many requests wait on it. */
  readonly #reads = new Map<string, Promise<StoredResponse | undefined>>();
  /** How often a waiter looks for the entry another instance is filling. */
  readonly #pollMs: number;
  readonly #schedule: RefreshSchedule;
  /** Live keys being polled, per host: what the refresh plan works on. */
  readonly #polled = new Map<string, Set<string>>();
  /** Per host: when the keys polled on other instances were last read from the shared tier. */
  readonly #polledSynced = new Map<string, { at: number; running: boolean }>();
  /** Fold state; both undefined with folding off. */
  readonly #members?: LRUCache<string, Member | false>;
  readonly #groups?: LRUCache<string, FoldGroup>;
  /** Wide answers parsed once per fill, for every member derived from them. */
  readonly #parsed = new WeakMap<StoredResponse, unknown>();
  #closed = false;

  constructor(parts: FillCacheParts) {
    this.#options = parts.options;
    this.#upstream = parts.upstream;
    this.#budget = parts.budget;
    this.#metrics = parts.metrics;
    this.#logger = parts.logger;
    this.#shared = parts.shared;
    this.#clock = parts.options.clock;
    this.#now = this.#clock.now;
    this.#pollMs = Math.min(50, Math.max(5, this.#options.liveTtlMs / 60));
    this.#entries = new LRUCache<string, StoredResponse, FillContext>({
      max: this.#options.cacheMaxEntries,
      maxSize: this.#options.cacheMaxBytes,
      sizeCalculation: (stored) => stored.size,
      allowStale: true,
      noDeleteOnFetchRejection: true,
      ...lruTime(this.#clock),
      fetchMethod: (key, stale, { signal, context }) => this.#fill(key, context, signal, stale),
    });
    this.#keys = new LRUCache<string, KeyState>({ max: this.#options.cacheMaxEntries * 2, ...lruTime(this.#clock) });
    if (this.#options.fold) {
      this.#members = new LRUCache<string, Member | false>({ max: this.#options.cacheMaxEntries, ...lruTime(this.#clock) });
      this.#groups = new LRUCache<string, FoldGroup>({ max: this.#options.cacheMaxEntries, ...lruTime(this.#clock) });
    }
    this.#schedule = new RefreshSchedule({
      intervalMs: this.#options.liveTtlMs,
      windowMs: this.#options.budgetWindowMs,
      fills: this.#options.budgetFills,
      clock: this.#clock,
      polled: (host) => this.#plannedKeys(host),
      lead: (host) => this.#lead(host),
      refresh: (key, dueBy) => void this.#refreshPlanned(key, dueBy),
      ...(this.#shared ? { prepare: (host: string) => this.#adoptPolled(host) } : {}),
      stretch: (key, until) => {
        const stored = this.#entries.peek(key);
        if (stored && stored.freshUntil < until) stored.freshUntil = until;
      },
      report: (host, plan) => this.#metrics.reportPlan(host, plan),
    });
  }

  get bytes(): number {
    return this.#entries.calculatedSize;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The stored entry of `key` while it is fresh, without touching anything: the fast hit path asks
   * this first. A folded query has none of its own (lookup derives it from the wide fill).
   */
  freshEntry(key: string): StoredResponse | undefined {
    const member = this.#members?.get(key);
    if (member && member.group.wide?.key !== key) return undefined;
    const stored = this.#entries.peek(key);
    return stored && this.#now() < stored.freshUntil ? stored : undefined;
  }

  /**
   * The stored entry of `key` while its refill is in flight and nothing holds it back (no
   * backoff, cooldown or budget wait, not old enough for the first-paint wait): `lookup` answers
   * it at once as stale with `detail=refreshing`, and so may the fast hit path. Otherwise every
   * request of a refill's round trip, under load a few hundred ms each tick, took the Web path,
   * five times the work, and the queue it left was the hit path's p99.
   */
  refillingEntry(key: string): StoredResponse | undefined {
    const member = this.#members?.get(key);
    if (member && member.group.wide?.key !== key) return undefined;
    const state = this.#keys.peek(key);
    if (!state?.filling || state.waitingForBudget || state.host === undefined || state.route === undefined) return undefined;
    const stored = this.#entries.peek(key);
    return stored && decide(this.#entryState(state.host, state.route, state, stored), this.#now(), this.#options).kind === 'refill' ? stored : undefined;
  }

  /**
   * Whether answering `key` now would start an upstream call for a query nobody polls: no fresh
   * answer (its own, or a fold group's wide one that covers it), and no client (here or, with a
   * shared tier, on another instance) polled it within the last interval. What the per-client
   * meter counts (new-query-meter.ts).
   */
  startsNewQuery(key: string, context: FillContext): boolean {
    const now = this.#now();
    const state = this.#keys.peek(key);
    if (state && this.#polledRecently(state, now)) return false;
    const stored = this.#entries.peek(key);
    if (stored && now < stored.freshUntil) return false;
    const member = this.#members?.peek(key);
    if (member && (this.#covering(member.group, member, false) || now - member.lastRequestedAt <= this.#options.liveTtlMs)) return false;
    return !context.passive;
  }

  /** The bookkeeping `lookup` does for a fresh hit, for a hit answered by the fast path. */
  countHit(key: string, context: FillContext): void {
    // A wide query is a member of its group here even if this instance never looked it up (it
    // keeps the key fresh from the tier's poll list): the other instances keep it in their group
    // only while some instance shares it, and without it they filled the narrow queries apart.
    const member = this.#members && routes[context.route].live ? this.#member(key, context) : undefined;
    if (member) this.#asked(member);
    this.#touch(key, context, this.#state(key));
    this.#entries.get(key);
  }

  async lookup(key: string, context: FillContext): Promise<Lookup> {
    const member = this.#members && routes[context.route].live ? this.#member(key, context) : undefined;
    if (!member) return this.#lookupKey(key, context);
    if (!context.passive) return this.#lookupFolded(member, context);
    // A passive lookup (the history recorder) joins no fold group, but a fresh wide answer that
    // covers it answers it: otherwise its fill, once a minute, took a slot of the refresh plan.
    const covering = this.#covering(member.group, member, false);
    return covering ? this.#foldedAnswer(member, covering.key, covering.stored, { kind: 'hit' }) : this.#lookupKey(key, context);
  }

  /** A client asked for `key`: it is polled (and, live, in its host's refresh plan). */
  #touch(key: string, context: FillContext, state: KeyState): void {
    const now = this.#now();
    const interval = this.#options.liveTtlMs;
    const wasEstablished = this.#established(state);
    if (state.lastPolledAt === undefined || now - state.lastPolledAt > 2 * interval) state.pollingSince = now;
    state.lastPolledAt = now;
    state.lastRequestedAt = now;
    state.retired = false;
    if (!routes[context.route].live) return;
    this.#watch(key, context, state);
    // Polled again: it joins its site's plan now rather than at the next tick.
    if (!wasEstablished && this.#established(state)) this.#schedule.replan(siteOf(context.host));
    if (this.#shared) this.#sharePolled(key, context.host, state);
  }

  async #lookupKey(key: string, context: FillContext): Promise<Lookup> {
    const state = this.#state(key);
    let current = this.#entries.get(key);
    // A passive lookup is not a poll: it is answered from a fresh entry, or counts as a request when it fills.
    if (!context.passive) this.#touch(key, context, state);
    else if (!(current && this.#now() < current.freshUntil)) state.lastRequestedAt = state.lastPassiveAt = this.#now();
    if (this.#shared && !(current && state.lastRequestedAt < current.freshUntil)) current = await this.#adopt(key, context, state, current);
    if (!context.passive) this.#polledSince(state, current);
    const now = this.#now();
    const decision = decide(this.#entryState(context.host, context.route, state, current), now, this.#options);
    switch (decision.kind) {
      case 'hit':
        return { kind: 'stored', stored: current!, status: { kind: 'hit' } };
      case 'stale':
        return { kind: 'stored', stored: current!, status: decision };
      case 'first-paint': {
        const filled = await this.#withDeadline(this.#entries.fetch(key, { forceRefresh: true, allowStale: false, context }).catch(() => undefined), this.#options.firstPaintWaitMs);
        if (filled && filled.fetchedAt > current!.fetchedAt) return { kind: 'stored', stored: filled, status: { kind: 'miss' } };
        return { kind: 'stored', stored: current!, status: { kind: 'stale', detail: staleDetail(this.#entryState(context.host, context.route, state, current), this.#now()) } };
      }
      case 'refill':
        this.#startFill(key, context);
        // Read after the fill started: it may be queued for the budget.
        return { kind: 'stored', stored: current!, status: { kind: 'stale', detail: staleDetail(this.#entryState(context.host, context.route, state, current), now) } };
      case 'unavailable':
        return this.#unavailable(context.host, decision.retryAfterMs, state);
    }
    try {
      const filled = await this.#withDeadline(this.#entries.fetch(key, { forceRefresh: true, allowStale: false, context }));
      if (filled) return { kind: 'stored', stored: filled, status: { kind: 'miss' } };
    } catch {
      // The reason is in the key's state and in the log line of the upstream call.
    }
    const after = this.#blockedUntil(key, context.host, state) - this.#now();
    return this.#unavailable(context.host, after > 0 ? after : this.#options.backoffBaseMs, state);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#schedule.close();
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

  /**
   * The stored answer's fill was asked for by a client, here or on another instance: its run of
   * polls began no later than that fill did. A dashboard whose polls reach a different instance
   * each tick is polled again on its second tick, wherever.
   */
  #polledSince(state: KeyState, stored: StoredResponse | undefined): void {
    if (!stored || state.lastPolledAt === undefined || state.lastPolledAt - stored.startedAt > 2 * this.#options.liveTtlMs) return;
    const was = this.#established(state);
    state.pollingSince = Math.min(state.pollingSince ?? stored.startedAt, stored.startedAt);
    if (!was && this.#established(state) && state.host !== undefined) this.#schedule.replan(siteOf(state.host));
  }

  /** Polled for a while, here or (with a shared tier) on another instance: its refills come first. */
  #established(state: KeyState): boolean {
    return state.lastPolledAt !== undefined && isEstablished(state.pollingSince, state.lastPolledAt, this.#options.liveTtlMs);
  }

  /** What the site's plan leaves of the window around `now` for new queries filled by this instance (host-budget.ts). */
  newQueryShare(site: string, now: number): { slots: number; windowStart: number; windowEnd: number } | undefined {
    const reservation = this.#schedule.reserved(site, now);
    if (!reservation) return undefined;
    const { reserved, windowStart, windowEnd } = reservation;
    return { slots: newQuerySlots(this.#options.budgetFills, reserved, this.#shared ? this.#options.instances : 1), windowStart, windowEnd };
  }

  #blockedUntil(key: string, host: string, state = this.#state(key)): number {
    return Math.max(state.retryAt, this.#budget.cooldownUntil(host));
  }

  /** What the decision reads of a key: its copy, its backoff and its host's cooldown. */
  #entryState(host: string, route: RouteName, state: KeyState, stored: StoredResponse | undefined): EntryState {
    const { failures, retryAt, invalid, waitingForBudget } = state;
    return { stored, live: routes[route].live, failures, retryAt, invalid, waitingForBudget, cooldownUntil: this.#budget.cooldownUntil(host) };
  }

  #unavailable(host: string, retryAfterMs: number, state: KeyState): Lookup {
    return { kind: 'unavailable', retryAfterMs, rateLimited: this.#budget.cooldownUntil(host) > this.#now(), invalid: state.invalid === true };
  }

  /** Starts a fill in the background unless one is running; callers keep serving what is stored. */
  #startFill(key: string, context: FillContext): void {
    this.#entries.fetch(key, { forceRefresh: true, context }).catch(() => undefined);
  }

  #withDeadline<T>(promise: Promise<T>, ms = this.#options.maxWaitMs): Promise<T | undefined> {
    let timer: TimerHandle | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = this.#clock.setTimeout(() => resolve(undefined), ms);
    });
    return Promise.race([promise, deadline]).finally(() => this.#clock.clearTimeout(timer));
  }

  /**
   * Someone asked within the last interval: a queued fill for a key nobody wants is dropped. A
   * new query counts only the polls its clients made here: the shared tier's view of it lasts
   * two intervals, and fills nobody waited for any more took the slots new queries are left.
   */
  #wanted(route: RouteName, state: KeyState): boolean {
    const window = Math.max(this.#ttlMs(route), this.#options.maxWaitMs);
    const asked = this.#established(state) ? state.lastRequestedAt : Math.max(state.lastPolledAt ?? state.lastRequestedAt, state.lastPassiveAt ?? -Infinity);
    return this.#now() - asked <= window;
  }

  async #fill(key: string, context: FillContext, signal: AbortSignal, stale: StoredResponse | undefined): Promise<StoredResponse> {
    const state = this.#state(key);
    state.filling = true;
    try {
      const stored = this.#shared ? await this.#fillShared(key, context, state, signal, stale) : await this.#callUpstream(context, state, signal);
      // An established key's first fill has no slot yet: plan it for the coming tick. (A new
      // query is planned only once polled again, when #touch re-plans: re-planning on each new
      // query's fill, five a second from a script, dealt the tick's slots again and again.)
      if (routes[context.route].live) this.#schedule[stale === undefined && this.#established(state) ? 'replan' : 'watch'](siteOf(context.host));
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
      await this.#clock.sleep(Math.min(claim.ms, this.#pollMs, left));
    }
  }

  async #callUpstream(context: FillContext, state: KeyState, signal: AbortSignal, lease?: { sharedKey: string; token: string }): Promise<StoredResponse> {
    const queued = () => {
      state.waitingForBudget = true;
      this.#metrics.budgetWaits.inc({ host: context.host });
    };
    let grantedAt: number | undefined;
    try {
      grantedAt = await this.#budget.acquire(context.host, () => this.#wanted(context.route, state), queued, () => this.#established(state));
    } finally {
      state.waitingForBudget = false;
    }
    if (grantedAt === undefined) throw new FillError('unwanted');
    if (lease && (await this.#shared!.confirm(lease.sharedKey, lease.token, this.#leaseAfterGrantMs(context.route))) === false) throw new FillError('lease_lost');
    const startedAt = this.#now();
    const outcome = await this.#upstream.get(context.route, context.query, signal, grantedAt);
    this.#obeyRateLimit(context.host, outcome.limits, outcome.ok ? undefined : outcome.reason);
    state.invalid = !outcome.ok && outcome.reason === 'invalid';
    if (!outcome.ok) {
      if (outcome.reason !== 'closed') await this.#backOff(state, lease?.sharedKey);
      throw new FillError(outcome.reason);
    }
    state.failures = 0;
    state.retryAt = 0;
    const previous = this.#latency.get(context.host);
    this.#latency.set(context.host, previous === undefined ? outcome.ms : previous * 0.7 + outcome.ms * 0.3);
    const body = JSON.stringify(this.#forClients(context.route, outcome.data));
    const freshUntil = startedAt + this.#ttlMs(context.route);
    const stored = await storeBody(body, { startedAt, fetchedAt: this.#now(), freshUntil }, this.#options.encodeBody);
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

  /**
   * How long a granted lease keeps other instances from filling the key: a live key as long as
   * the refresh plan keeps its fills apart. Held a whole interval, a fill made off the plan
   * (a cold one, or after a stale poll) blocked the key's planned slot in the next tick, so the
   * next fill came after the tick again, and every tick after: the key stayed one tick old.
   */
  #leaseAfterGrantMs(route: RouteName): number {
    return routes[route].live ? this.#schedule.minGapMs : this.#options.rawDataTtlMs;
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
   * How long before its slot ends a refill starts: the host's latency and a margin, and at least
   * 40 % of a budget window, which costs nothing (the answer's Last-Modified still falls in the
   * last second before the tick) and absorbs a slow answer on a busy machine. At most 90 % of a
   * window (a refill stays in its own window) and three quarters of an interval.
   */
  #lead(host: string): number {
    const latency = this.#latency.get(host) ?? INITIAL_LATENCY_MS;
    const { liveTtlMs, budgetWindowMs } = this.#options;
    return Math.min((liveTtlMs * 3) / 4, budgetWindowMs * 0.9, Math.max(latency * 1.5 + 100, budgetWindowMs * 0.4));
  }

  /**
   * Polled within about the last interval. The request that made a cold fill counts too: its
   * widget polls again at the next tick. An eighth of the interval absorbs timer lateness; a key
   * left alone gets at most one more fill.
   */
  #polledRecently(state: KeyState, now: number): boolean {
    const interval = this.#options.liveTtlMs;
    return now - state.lastRequestedAt <= interval + interval / 8;
  }

  /** A live key was polled: the refresh plan of its host includes it. */
  #watch(key: string, context: FillContext, state: KeyState): void {
    state.host = context.host;
    state.route = context.route;
    state.query = context.query;
    // One plan per site: a video@ host's keys share its site's budget slots.
    const site = siteOf(context.host);
    let keys = this.#polled.get(site);
    if (!keys) this.#polled.set(site, (keys = new Set()));
    // A key new here re-plans the site only when the plan takes it (established): new queries
    // are not planned, and a script asking one every 200 ms re-dealt the tick's slots as often.
    const added = !keys.has(key);
    keys.add(key);
    if (added && this.#established(state)) this.#schedule.replan(site);
    else this.#schedule.watch(site);
  }

  /**
   * With a shared tier, every instance plans the keys polled on any of them: each tells the tier
   * what it polls (for two intervals, renewed every half interval) and reads the others' every
   * half interval. Plans made from the same keys arm the same slots, and the lease makes each
   * refill one call; plans made from different views filled a key in different windows, the
   * earliest winning the lease, and bunched windows past the budget. Each also tells the tier
   * the ticks in which it was polled: a key polled in two ticks, on any instances, is
   * established everywhere (a dashboard's requests reach a different instance each tick).
   */
  #sharePolled(key: string, host: string, state: KeyState): void {
    const now = this.#now();
    const interval = this.#options.liveTtlMs;
    if (state.sharedAt === undefined || now - state.sharedAt >= interval / 2) {
      state.sharedAt = now;
      void this.#shared!.join(`polled:${host}`, key, 2 * interval);
    }
    const tick = Math.floor(now / interval);
    if (state.sharedTick !== tick) {
      state.sharedTick = tick;
      // Kept three intervals: a read at the start of a tick, before its polls are told, still sees two ticks.
      void this.#shared!.join(`polls:${host}`, `${tick} ${key}`, 3 * interval);
    }
    const synced = this.#polledSynced.get(host) ?? { at: -Infinity, running: false };
    if (synced.running || now - synced.at < interval / 2) return;
    synced.running = true;
    this.#polledSynced.set(host, synced);
    void this.#syncPolled(host).finally(() => {
      synced.at = this.#now();
      synced.running = false;
    });
  }

  /** Adds the keys polled on other instances to the host's plan, as polled now, with the entry the tier holds. */
  async #syncPolled(host: string): Promise<void> {
    const [keys, polls] = await Promise.all([this.#shared!.members(`polled:${host}`), this.#shared!.members(`polls:${host}`)]);
    const established = polledInTwoTicks(polls ?? []);
    for (const key of keys ?? []) {
      const state = this.#keys.peek(key) ?? this.#remoteState(key, host);
      // A wide query this instance's fold group left stays retired: another instance's view is a moment late.
      if (!state || state.retired || state.route === undefined || state.query === undefined) continue;
      const now = this.#now();
      state.lastRequestedAt = Math.max(state.lastRequestedAt, now);
      const context: FillContext = { route: state.route, query: state.query, host };
      if (established.has(key)) {
        const was = this.#established(state);
        state.pollingSince = Math.min(state.pollingSince ?? now, now - this.#options.liveTtlMs);
        state.lastPolledAt = Math.max(state.lastPolledAt ?? now, now);
        if (!was) this.#schedule.replan(siteOf(host));
      }
      if (!this.#entries.peek(key)) await this.#adopt(key, context, state, undefined);
      this.#watch(key, context, state);
    }
  }

  /** The state of a key only another instance polled: only a live query of this host, written as its canonical key, is taken. */
  #remoteState(key: string, host: string): KeyState | undefined {
    const queryAt = key.indexOf('?');
    const route = queryAt === -1 ? undefined : findRoute(key.slice(0, queryAt));
    if (route === undefined || !routes[route].live) return undefined;
    const resolved = resolveQuery(route, new URLSearchParams(key.slice(queryAt + 1)), new Set([host]));
    if (!resolved.ok || resolved.key !== key) return undefined;
    const state = this.#state(key);
    Object.assign(state, { host, route, query: resolved.context.query });
    return state;
  }

  #plannedKeys(host: string): PlannedKey[] {
    const keys = this.#polled.get(host);
    if (!keys) return [];
    const now = this.#now();
    const planned: PlannedKey[] = [];
    for (const key of keys) {
      const state = this.#keys.peek(key);
      if (!state || state.retired || !this.#polledRecently(state, now)) {
        keys.delete(key);
        continue;
      }
      const stored = this.#entries.peek(key);
      if (stored) planned.push({ key, weight: this.#pollersOf(state, now), startedAt: stored.startedAt, freshUntil: stored.freshUntil, established: this.#established(state), filling: state.filling === true });
    }
    if (keys.size === 0) this.#polled.delete(host);
    return planned;
  }

  /**
   * Before a plan, the tier's copies of the host's keys that another instance may have refilled
   * since ours started (a key started less than the least gap ago cannot have been).
   */
  async #adoptPolled(host: string): Promise<void> {
    const now = this.#now();
    await Promise.all([...(this.#polled.get(host) ?? [])].map(async (key) => {
      const state = this.#keys.peek(key);
      const stored = this.#entries.peek(key);
      if (!state || !stored || state.filling || state.route === undefined || state.query === undefined || state.host === undefined) return;
      if (now - stored.startedAt < this.#schedule.minGapMs) return;
      await this.#adopt(key, { route: state.route, query: state.query, host: state.host }, state, stored).catch(() => undefined);
    }));
  }

  /**
   * A planned refill, unless the key is filling, blocked, left alone, or already fresh for the
   * tick. (Judged by when a fill started, a stale-path fill that began as the plan was made, for
   * the tick before, passed for this tick's, and the tick's pollers got data a tick old.) With a
   * shared tier the tier's copy is read first: another instance may have refilled the key since.
   */
  async #refreshPlanned(key: string, dueBy: number): Promise<void> {
    const state = this.#keys.peek(key);
    let stored = this.#entries.peek(key);
    if (!state || !stored || state.filling || this.#closed || state.route === undefined || state.query === undefined || state.host === undefined) return;
    const { host } = state;
    const context: FillContext = { route: state.route, query: state.query, host };
    if (this.#shared) stored = (await this.#adopt(key, context, state, stored)) ?? stored;
    const now = this.#now();
    if (state.filling || this.#closed || !this.#polledRecently(state, now) || this.#blockedUntil(key, host, state) > now) return;
    if (stored.freshUntil > dueBy || now - stored.startedAt < this.#schedule.minGapMs) return;
    this.#startFill(key, context);
  }

  /** The fold member of a canonical query, or undefined when it never folds. */
  #member(key: string, context: FillContext): Member | undefined {
    let member = this.#members!.get(key);
    if (member === undefined) {
      const fold = foldMember(context.route, context.query);
      if (fold) {
        const group = this.#group(fold.group, context.route, context.host);
        // Polled on another instance already: the same member.
        member = group.members.get(key) ?? { key, shape: fold.shape, group, lastRequestedAt: 0 };
      } else member = false;
      this.#members!.set(key, member);
    }
    if (member && this.#groups!.get(member.group.id) !== member.group) this.#groups!.set(member.group.id, member.group);
    return member || undefined;
  }

  /**
   * A fold group, kept among the known ones from its first mention, so its members are synced from
   * the tier: a planned wide key may belong to a group that only another instance has been asked for.
   */
  #group(id: string, route: RouteName, host: string): FoldGroup {
    let group = this.#groups!.get(id);
    if (!group) {
      group = { id, route, host, members: new Map(), computedAt: -Infinity, recent: new Map(), syncedAt: -Infinity };
      this.#groups!.set(id, group);
    }
    return group;
  }

  /**
   * The queries a planned key answers: the members of its fold group its shape covers, or 1.
   * With a shared tier the members come from the tier, so every instance weighs a key alike and
   * their plans agree slot for slot, including one that polls no member of the group itself.
   */
  #pollersOf(state: KeyState, now: number): number {
    if (!this.#groups || state.route === undefined || state.query === undefined || state.host === undefined) return 1;
    const fold = foldMember(state.route, state.query);
    if (!fold) return 1;
    const group = this.#group(fold.group, state.route, state.host);
    const interval = this.#options.liveTtlMs;
    if (this.#shared && now - group.syncedAt >= interval / 2) void this.#syncMembers(group);
    let pollers = 0;
    for (const member of group.members.values()) if (now - member.lastRequestedAt <= 2 * interval && covers(fold.shape, member.shape)) pollers += 1;
    return Math.max(1, pollers);
  }

  /**
   * A member was asked for: it is in its group as this very object, and shared; whether it
   * joined the group now. (In it as another object — it left the group unpolled, and the tier's
   * sync put it back as a new one — the wide query covered that one, and this member filled its
   * own query as well, every tick, for as long as it was polled.)
   */
  #asked(member: Member): boolean {
    const joined = member.group.members.get(member.key) !== member;
    member.lastRequestedAt = this.#now();
    if (joined) member.group.members.set(member.key, member);
    this.#share(member);
    return joined;
  }

  /**
   * A folded query: answered from the group's wide fill (the union of what its members ask),
   * or from any fresh wide fill of the group that covers it while the wide query changes.
   */
  async #lookupFolded(member: Member, context: FillContext): Promise<Lookup> {
    const group = member.group;
    const joined = this.#asked(member);
    let wide = this.#wideOf(group, joined);
    if (!this.#covering(group, member, true) && !(wide.covered.has(member) && this.#keys.peek(wide.key)?.filling)) {
      // Cold for this member: a dashboard opening sends its queries together, to every instance;
      // one fill serves them all.
      group.gathering ??= this.#clock.sleep(this.#options.liveTtlMs / 30).finally(() => (group.gathering = undefined));
      await group.gathering;
      await this.#syncMembers(group);
      wide = this.#wideOf(group, true);
    }
    if (!wide.covered.has(member) || wide.key === member.key) return this.#orCoveringCopy(member, await this.#lookupKey(member.key, context));
    const wideContext: FillContext = { route: context.route, host: context.host, query: wide.query };
    const current = this.#entries.peek(wide.key);
    if (!current || this.#now() >= current.freshUntil) {
      const other = this.#covering(group, member, false);
      if (other) {
        // The wide query is still the one to keep fresh: poll it, without making this client wait.
        void this.#lookupKey(wide.key, wideContext).catch(() => undefined);
        return this.#foldedAnswer(member, other.key, other.stored, { kind: 'hit' });
      }
    }
    const lookup = await this.#lookupKey(wide.key, wideContext);
    return lookup.kind === 'stored' ? this.#foldedAnswer(member, wide.key, lookup.stored, lookup.status) : this.#orCoveringCopy(member, lookup);
  }

  /**
   * No error while a copy exists: when the query the member is answered from has nothing to
   * serve (its wide query changed, and the new one's first fill failed), any wide answer of the
   * group still servable that covers the member answers it, stale.
   */
  #orCoveringCopy(member: Member, lookup: Lookup): Lookup | Promise<Lookup> {
    if (lookup.kind === 'stored') return lookup;
    const copy = this.#covering(member.group, member, true);
    if (!copy) return lookup;
    return this.#foldedAnswer(member, copy.key, copy.stored, { kind: 'stale', detail: lookup.rateLimited ? 'rate-limited' : 'upstream-error' });
  }

  /**
   * With a shared tier, every instance folds the members polled on any of them: each tells the
   * tier what it polls (for two intervals, renewed every half interval) and reads the others'
   * every half interval, so all compute the same wide query and its lease fills it once.
   */
  #share(member: Member): void {
    if (!this.#shared) return;
    const now = this.#now();
    const interval = this.#options.liveTtlMs;
    if (member.sharedAt === undefined || now - member.sharedAt >= interval / 2) {
      member.sharedAt = now;
      void this.#shared.join(member.group.id, member.key, 2 * interval);
    }
    if (now - member.group.syncedAt >= interval / 2) void this.#syncMembers(member.group);
  }

  /**
   * Adds the members other instances poll to the group, as polled now. (One that stops being
   * polled leaves the tier after two intervals and the group two intervals later.)
   */
  #syncMembers(group: FoldGroup): Promise<void> {
    if (!this.#shared) return Promise.resolve();
    group.syncing ??= this.#shared
      .members(group.id)
      .then((keys) => {
        const now = this.#now();
        group.syncedAt = now;
        for (const key of keys ?? []) {
          const known = group.members.get(key);
          if (known) {
            known.lastRequestedAt = Math.max(known.lastRequestedAt, now);
            continue;
          }
          // Only what parses as a member of this very group joins it.
          const prefix = `${routes[group.route].path}?`;
          const fold = key.startsWith(prefix) ? foldMember(group.route, key.slice(prefix.length)) : undefined;
          if (fold?.group !== group.id) continue;
          // The member this instance knows the key by, if any: one object per member.
          const mine = this.#members?.peek(key);
          const member = mine && mine.group === group ? mine : { key, shape: fold.shape, group, lastRequestedAt: now };
          member.lastRequestedAt = Math.max(member.lastRequestedAt, now);
          group.members.set(key, member);
        }
      })
      .finally(() => (group.syncing = undefined));
    return group.syncing;
  }

  /**
   * The group's wide query: the union of the members polled within two intervals (bounded:
   * limit ≤ 100, 20 metrics; a member past the bounds is filled alone). Members gone longer
   * leave the group, so the wide query shrinks back and the old one is no longer refreshed.
   */
  #wideOf(group: FoldGroup, force: boolean): NonNullable<FoldGroup['wide']> {
    const now = this.#now();
    const interval = this.#options.liveTtlMs;
    if (!force && group.wide && now - group.computedAt < interval / 10) return group.wide;
    let shape: FoldShape | undefined;
    const covered = new Set<Member>();
    for (const member of [...group.members.values()].sort((a, b) => (a.key < b.key ? -1 : 1))) {
      if (now - member.lastRequestedAt > 2 * interval) {
        group.members.delete(member.key);
        member.derived = undefined;
        continue;
      }
      const next: FoldShape | undefined = shape ? union(shape, member.shape) : member.shape;
      if (next) {
        shape = next;
        covered.add(member);
      }
    }
    shape ??= { flags: new Set() };
    const query = shapeQuery(group.route, group.id, shape);
    const key = `${routes[group.route].path}?${query}`;
    const previous = group.wide?.key;
    // The old wide query is no longer planned; a fill of it already queued still answers its waiters.
    if (previous !== undefined && previous !== key) {
      const state = this.#keys.peek(previous);
      if (state) state.retired = true;
    }
    group.wide = { key, query, shape, covered };
    group.computedAt = now;
    group.recent.delete(key);
    group.recent.set(key, shape);
    if (group.recent.size > 4) group.recent.delete(group.recent.keys().next().value!);
    return group.wide;
  }

  /** The newest stored wide answer of the group that covers the member: fresh, or servable stale. */
  #covering(group: FoldGroup, member: Member, staleToo: boolean): { key: string; stored: StoredResponse } | undefined {
    const now = this.#now();
    let best: { key: string; stored: StoredResponse } | undefined;
    for (const [key, shape] of group.recent) {
      if (!covers(shape, member.shape)) continue;
      const stored = this.#entries.peek(key);
      if (!stored || (staleToo ? now > stored.freshUntil + this.#options.staleWindowMs : now >= stored.freshUntil)) continue;
      if (!best || stored.fetchedAt > best.stored.fetchedAt) best = { key, stored };
    }
    return best;
  }

  /** The member's own body (and ETag), the wide answer's timing, and a Cache-Status naming the wide key. */
  async #foldedAnswer(member: Member, wideKey: string, source: StoredResponse, status: CacheStatus): Promise<Lookup> {
    if (member.derived?.source !== source) {
      const made = (async () => {
        let wide = this.#parsed.get(source);
        if (wide === undefined) this.#parsed.set(source, (wide = JSON.parse(source.identity.toString()) as unknown));
        const { startedAt, fetchedAt, freshUntil } = source;
        return storeBody(JSON.stringify(deriveAnswer(member.group.route, wide, member.shape)), { startedAt, fetchedAt, freshUntil }, this.#options.encodeBody);
      })();
      member.derived = { source, made };
    }
    const derived = await member.derived.made;
    this.#metrics.folded.inc({ route: member.group.route });
    // The wide answer's freshness may have been stretched since: it decides.
    return { kind: 'stored', stored: { ...derived, freshUntil: source.freshUntil }, status: { ...status, folded: wideKey } };
  }
}
