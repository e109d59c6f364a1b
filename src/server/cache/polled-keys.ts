/**
 * Each key's state, and the live keys each site polls: what the refresh plan works on
 * (plan/refresh-plan.ts). Who polled a key, since when, and whether it is still wanted are
 * decided here; what a lookup does with a key is decision.ts's.
 *
 * Keys nobody polled in the last tick are not refreshed. Established queries come first: a key
 * polled once (a one-off, or a script's new query every 200 ms) is not planned until it is
 * polled again, and its fill takes only the budget slots the plan left (budget/host-budget.ts).
 */
import { LRUCache } from 'lru-cache';
import { routes, siteOf, type RouteName } from '../../api/index.ts';
import { lruTime } from '../../runtime/clock.ts';
import type { StoredResponse } from '../../runtime/stored-response.ts';
import type { ResolvedOptions } from '../config/options.ts';
import { afterPoll, pollersAt, pollLateness, type PollsSeen } from '../plan/poller-lateness.ts';
import { isEstablished, type PlannedKey } from '../plan/refresh-plan.ts';
import type { RefreshSchedule } from '../plan/refresh-schedule.ts';

/** What names a query upstream: one per key, from its canonical form. */
export interface KeyContext {
  route: RouteName;
  query: string;
  host: string;
}

export interface FillContext extends KeyContext {
  /** A history sample, not a widget's poll: never arms refresh-ahead, counts as wanted only for the fill it needs. */
  passive?: boolean;
}

/** The stored entries: lru-cache runs one fill per key however many callers ask (fill-cache.ts). */
export type Entries = LRUCache<string, StoredResponse, FillContext>;

export interface KeyState {
  lastRequestedAt: number;
  failures: number;
  /** No fill for this key before then (per-key backoff after failures). */
  retryAt: number;
  /** The last fill's upstream answer could not be read (not an outage): said as such to clients. */
  invalid?: boolean;
  /**
   * The backoff is for want of an answer (the service down, slow, overloaded), here or on
   * another instance: it ends when the site answers again (site-recovery.ts).
   */
  outage?: boolean;
  waitingForBudget: boolean;
  /**
   * A fill (or, with a shared tier, the wait for another instance's fill) is running, and since
   * when: since its upstream call went out once it has, the moment its copy counts from.
   */
  filling: boolean;
  fillingSince?: number;
  /** With a shared tier: the fill waits for another instance's, whose entry may be there already. */
  waitingForOther?: boolean;
  /**
   * With a shared tier: how long the tier's copy last read while a fill of ours ran stays
   * fresh. It is not kept (a `set` would abort that fill), yet the tier holds it through its
   * stale window, where a lookup may serve it, and a query with a servable copy is not new
   * (`FillCache.startsNewQuery`).
   */
  unkeptCopyFreshUntil?: number;
  /** The plan stretched the key's freshness to then while its fill was running: that fill's answer is fresh as long. */
  stretchedUntil?: number;
  /** The query a planned refill asks, once a client polled the key live (or another instance did). */
  context?: KeyContext;
  /** A fold group's former wide query: no longer refreshed by the plan unless asked for again. */
  retired?: boolean;
  /** When this instance last told the shared tier it polls this key, and in which tick it last told it it was polled. */
  sharedAt?: number;
  sharedTick?: number;
  /** The lateness of its polls this instance told the shared tier since `sharedAt`. */
  sharedLateness?: Set<number>;
  /**
   * A client's last poll of it, here (`lastRequestedAt` also counts another instance's polls
   * and a shared tier's view of them, which lasts two intervals), and when that run of polls
   * began (a gap of two intervals ends a run): see `isEstablished`.
   */
  lastPolledAt?: number;
  pollingSince?: number;
  /**
   * How long after the tick its earliest and latest pollers come (pages whose clocks run
   * behind), here or, with a shared tier, on any instance.
   */
  pollers?: PollsSeen;
  /** The history recorder's last lookup that needed a fill: it waits for that fill as a client does. */
  lastPassiveAt?: number;
}

/** How long an answer of the route is fresh: live ones one interval, raw data its own TTL. */
export function ttlMs(route: RouteName, options: ResolvedOptions): number {
  return routes[route].live ? options.liveTtlMs : options.rawDataTtlMs;
}

export interface PolledKeysParts {
  options: ResolvedOptions;
  schedule: RefreshSchedule;
  entries: Entries;
  /** The queries a planned key answers (more than one when a fold group's wide query covers several). */
  pollersOf: (state: KeyState, now: number) => number;
}

export class PolledKeys {
  readonly #options: ResolvedOptions;
  readonly #schedule: RefreshSchedule;
  readonly #entries: Entries;
  readonly #pollersOf: PolledKeysParts['pollersOf'];
  readonly #now: () => number;
  readonly #keys: LRUCache<string, KeyState>;
  /** Live keys being polled, per site: what the refresh plan works on. */
  readonly #polled = new Map<string, Set<string>>();

  constructor(parts: PolledKeysParts) {
    this.#options = parts.options;
    this.#schedule = parts.schedule;
    this.#entries = parts.entries;
    this.#pollersOf = parts.pollersOf;
    this.#now = parts.options.clock.now;
    this.#keys = new LRUCache<string, KeyState>({
      max: parts.options.cacheMaxEntries * 2,
      ...lruTime(parts.options.clock),
    });
  }

  /** The key's state, made on first use. */
  state(key: string): KeyState {
    let state = this.#keys.get(key);
    if (!state) {
      state = { lastRequestedAt: 0, failures: 0, retryAt: 0, waitingForBudget: false, filling: false };
      this.#keys.set(key, state);
    }
    return state;
  }

  /** The key's state if it has one, without touching its recency. */
  peek(key: string): KeyState | undefined {
    return this.#keys.peek(key);
  }

  /** The live keys polled on the site. */
  polledOn(site: string): Iterable<string> {
    return this.#polled.get(site) ?? [];
  }

  /** A client asked for `key`: it is polled (and, live, in its site's refresh plan). */
  touch(key: string, context: KeyContext, state: KeyState): void {
    const now = this.#now();
    const interval = this.#options.liveTtlMs;
    const wasEstablished = this.established(state);
    if (state.lastPolledAt === undefined || now - state.lastPolledAt > 2 * interval) state.pollingSince = now;
    state.lastPolledAt = now;
    state.lastRequestedAt = now;
    state.pollers = afterPoll(state.pollers, pollLateness(now, interval), now, interval);
    state.retired = false;
    if (!routes[context.route].live) return;
    this.watch(key, context, state);
    // Polled again: it joins its site's plan now rather than at the next tick.
    if (!wasEstablished && this.established(state)) this.#schedule.replan(siteOf(context.host));
  }

  /** A live key was polled: the refresh plan of its site includes it. */
  watch(key: string, context: KeyContext, state: KeyState): void {
    // The key names its query: the context of its first poll is the context of every one.
    state.context ??= { route: context.route, query: context.query, host: context.host };
    // One plan per site: a video@ host's keys share its site's budget slots.
    const site = siteOf(context.host);
    let keys = this.#polled.get(site);
    if (!keys) this.#polled.set(site, (keys = new Set()));
    // A key new here re-plans the site only when the plan takes it (established): new queries
    // are not planned, and a script asking one every 200 ms re-dealt the tick's slots as often.
    const added = !keys.has(key);
    keys.add(key);
    if (added && this.established(state)) this.#schedule.replan(site);
    else this.#schedule.watch(site);
  }

  /**
   * The stored answer's fill was asked for by a client, here or on another instance: its run of
   * polls began no later than that fill did. A dashboard whose polls reach a different instance
   * each tick is polled again on its second tick, wherever.
   */
  polledSince(state: KeyState, stored: StoredResponse | undefined): void {
    if (
      !stored ||
      state.lastPolledAt === undefined ||
      state.lastPolledAt - stored.startedAt > 2 * this.#options.liveTtlMs
    )
      return;
    const was = this.established(state);
    state.pollingSince = Math.min(state.pollingSince ?? stored.startedAt, stored.startedAt);
    if (!was && this.established(state) && state.context) this.#schedule.replan(siteOf(state.context.host));
  }

  /** Polled for a while, here or (with a shared tier) on another instance: its refills come first. */
  established(state: KeyState): boolean {
    return (
      state.lastPolledAt !== undefined &&
      isEstablished(state.pollingSince, state.lastPolledAt, this.#options.liveTtlMs)
    );
  }

  /**
   * Polled within about the last interval. The request that made a cold fill counts too: its
   * widget polls again at the next tick. An eighth of the interval absorbs timer lateness; a key
   * left alone gets at most one more fill.
   */
  polledRecently(state: KeyState, now: number): boolean {
    const interval = this.#options.liveTtlMs;
    return now - state.lastRequestedAt <= interval + interval / 8;
  }

  /**
   * Someone asked within the last interval: a queued fill for a key nobody wants is dropped. A
   * new query counts only the polls its clients made here: the shared tier's view of it lasts
   * two intervals, and fills nobody waited for any more took the slots new queries are left.
   */
  wanted(route: RouteName, state: KeyState): boolean {
    const window = Math.max(ttlMs(route, this.#options), this.#options.maxWaitMs);
    const asked = this.established(state)
      ? state.lastRequestedAt
      : Math.max(state.lastPolledAt ?? state.lastRequestedAt, state.lastPassiveAt ?? -Infinity);
    return this.#now() - asked <= window;
  }

  /** The site's keys for its refresh plan; keys nobody polled lately leave it. */
  planned(site: string): PlannedKey[] {
    const keys = this.#polled.get(site);
    if (!keys) return [];
    const now = this.#now();
    const planned: PlannedKey[] = [];
    for (const key of keys) {
      const state = this.#keys.peek(key);
      if (!state || state.retired || !this.polledRecently(state, now)) {
        keys.delete(key);
        continue;
      }
      const stored = this.#entries.peek(key);
      const established = this.established(state);
      // A key with a copy is planned; so is an established one whose every fill failed before
      // one stored an answer (a dashboard opened while the service was down), as the stalest of
      // all, so it keeps its slots. Left out, its site had no plan, new queries spent the
      // windows and the minute it would need, and once the service was back its refills waited
      // behind them (seed 367). Its planned refills call nothing (a refill needs a copy); its
      // pollers' fills retry after the backoff.
      if (stored || (state.failures > 0 && established))
        planned.push({
          key,
          weight: this.#pollersOf(state, now),
          startedAt: stored?.startedAt ?? 0,
          freshUntil: stored?.freshUntil ?? 0,
          established,
          filling: state.filling === true,
          fillingSince: state.fillingSince,
          pollers: pollersAt(state.pollers, now, this.#options.liveTtlMs),
          retryAt: state.retryAt,
        });
    }
    if (keys.size === 0) this.#polled.delete(site);
    return planned;
  }
}
