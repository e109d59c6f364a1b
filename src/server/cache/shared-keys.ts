/**
 * The cache's side of the shared tier (tier/shared-tier.ts): with one, this process's entries
 * are a local copy of the shared ones. A key that is not fresh here is first read from the tier;
 * a fill starts only for the instance that takes the key's lease, and the others wait for the
 * entry it publishes (never calling the upstream themselves). Every instance tells the tier the
 * keys it polls and plans the keys polled on any of them, so their plans agree slot for slot and
 * exactly one takes each lease. When the tier is unreachable, each instance fills alone.
 */
import { findRoute, routes, siteOf } from '../../api/index.ts';
import type { StoredResponse } from '../../runtime/stored-response.ts';
import type { CacheMetrics } from '../metrics.ts';
import type { ResolvedOptions } from '../config/options.ts';
import { afterPoll, pollLateness } from '../plan/poller-lateness.ts';
import { polledInTwoTicks } from '../plan/refresh-plan.ts';
import type { RefreshSchedule } from '../plan/refresh-schedule.ts';
import { resolveQuery } from '../http/query.ts';
import type { LeaseClaim, SharedTier } from '../tier/shared-tier.ts';
import { awaitedEntry } from './decision.ts';
import { FillError } from './filler.ts';
import type { Entries, FillContext, KeyContext, KeyState, PolledKeys } from './polled-keys.ts';
import type { SiteRecovery } from './site-recovery.ts';

/** The fill lease this instance holds on a key: confirmed once the budget grants the call, then the entry or the shared backoff is written. */
export interface Lease {
  confirm(holdMs: number): Promise<boolean | 'offline'>;
  write(stored: StoredResponse, keepMs: number): Promise<void>;
  fail(baseMs: number, maxMs: number): Promise<number | undefined>;
}

/** One fill, as lru-cache asks for it. */
export interface FillJob {
  key: string;
  context: FillContext;
  state: KeyState;
  signal: AbortSignal;
  stale: StoredResponse | undefined;
}

export interface SharedKeysParts {
  shared: SharedTier;
  options: ResolvedOptions;
  entries: Entries;
  keys: PolledKeys;
  schedule: RefreshSchedule;
  metrics: CacheMetrics;
  recovery: SiteRecovery;
}

export class SharedKeys {
  readonly #shared: SharedTier;
  readonly #options: ResolvedOptions;
  readonly #entries: Entries;
  readonly #keys: PolledKeys;
  readonly #schedule: RefreshSchedule;
  readonly #metrics: CacheMetrics;
  readonly #recovery: SiteRecovery;
  readonly #now: () => number;
  /** How often a waiter looks for the entry another instance is filling. */
  readonly #pollMs: number;
  /** Shared-tier reads in flight, one per key however many requests wait on it. */
  readonly #reads = new Map<string, Promise<StoredResponse | undefined>>();
  /** Per host: when the keys polled on other instances were last read from the shared tier, and the read under way. */
  readonly #polledSynced = new Map<string, { at: number; running?: Promise<void> }>();
  #closed = false;

  constructor(parts: SharedKeysParts) {
    this.#shared = parts.shared;
    this.#options = parts.options;
    this.#entries = parts.entries;
    this.#keys = parts.keys;
    this.#schedule = parts.schedule;
    this.#metrics = parts.metrics;
    this.#recovery = parts.recovery;
    this.#now = parts.options.clock.now;
    this.#pollMs = Math.min(50, Math.max(5, parts.options.liveTtlMs / 60));
  }

  close(): void {
    this.#closed = true;
    this.#shared.close();
  }

  /** The shared copy of a key that is not fresh here, if it is newer than ours; kept locally unless a fill of ours is running, then only its freshness is. */
  async adopt(
    key: string,
    context: KeyContext,
    state: KeyState,
    current: StoredResponse | undefined,
  ): Promise<StoredResponse | undefined> {
    let read = this.#reads.get(key);
    if (!read) {
      read = this.#shared.read(this.#sharedKey(key, context)).finally(() => this.#reads.delete(key));
      this.#reads.set(key, read);
    }
    const shared = await read;
    if (!shared || (current && shared.fetchedAt <= current.fetchedAt)) return current;
    this.#recovery.answered(siteOf(context.host), shared.fetchedAt);
    if (!state.filling) this.#entries.set(key, shared);
    else state.unkeptCopyFreshUntil = Math.max(state.unkeptCopyFreshUntil ?? -Infinity, shared.freshUntil);
    return shared;
  }

  /**
   * Before a plan: the keys polled on other instances, read afresh, then the tier's copies of
   * the site's keys. (Read only when this instance was polled, a key whose polls all went to
   * another instance for one tick was taken here for left alone and its planned refill
   * skipped; the other instance, where the key was new again, had not planned it, and its page
   * read it a tick old: seed 1405.)
   */
  async preparePlan(site: string): Promise<void> {
    const hosts = [...this.#polledSynced.keys()].filter((host) => siteOf(host) === site);
    await Promise.all(hosts.map((host) => this.#syncPolledOnce(host)));
    await this.#adoptPolled(site);
  }

  /**
   * The tier's copies of the site's keys that another instance may have refilled since ours
   * started (a key started less than the least gap ago cannot have been).
   */
  async #adoptPolled(site: string): Promise<void> {
    const now = this.#now();
    await Promise.all(
      [...this.#keys.polledOn(site)].map(async (key) => {
        const state = this.#keys.peek(key);
        const stored = this.#entries.peek(key);
        if (!state || !stored || state.filling || !state.context) return;
        if (now - stored.startedAt < this.#schedule.minGapMs) return;
        await this.adopt(key, state.context, state, stored).catch(() => undefined);
      }),
    );
  }

  /**
   * Takes the key's lease and fills (`call`), or waits for the entry of the instance that holds
   * it: a waiter never calls the upstream itself, it gives up at `maxWaitMs`. A lease that
   * expires (its holder died) is taken over. The tier unreachable: this instance fills alone.
   */
  async fill(job: FillJob, call: (lease?: Lease) => Promise<StoredResponse>): Promise<StoredResponse> {
    const { context, state, signal, stale } = job;
    const shared = this.#shared;
    const sharedKey = this.#sharedKey(job.key, context);
    const deadline = this.#now() + this.#options.maxWaitMs;
    const timeoutMs = routes[context.route].live
      ? this.#options.upstreamTimeoutMs
      : this.#options.rawDataTimeoutMs;
    try {
      for (;;) {
        const claim = await this.#claim(sharedKey, this.#options.maxWaitMs + timeoutMs);
        // True from a claim lost to another instance until a claim is won or the wait ends,
        // through the round trips of the claims between: meanwhile the hit path leaves the key
        // to the Web path, which adopts that fill's entry from the tier as soon as it is written.
        state.waitingForOther = claim.kind === 'held';
        if (claim.kind === 'offline' || claim.kind === 'won') {
          const lease =
            claim.kind === 'won'
              ? this.#lease(sharedKey, claim.token)
              : this.#leaseWhenBack(sharedKey, this.#options.maxWaitMs + timeoutMs);
          try {
            return await call(lease);
          } catch (error) {
            if (error instanceof FillError && error.reason === 'lease_lost') continue;
            throw error;
          }
        }
        if (claim.kind === 'backoff') {
          // Its cause is not said: taken for an outage, it ends here at the site's next answer,
          // and a backoff of the key's own is learned again from the tier at its next claim.
          state.outage = true;
          state.retryAt = Math.max(state.retryAt, this.#now() + claim.ms);
          throw new FillError('shared_backoff');
        }
        const entry = await shared.read(sharedKey);
        if (awaitedEntry(entry, stale, this.#now())) return entry;
        const left = deadline - this.#now();
        if (signal.aborted || this.#closed || left <= 0) throw new FillError('shared_wait');
        await this.#options.clock.sleep(Math.min(claim.ms, this.#pollMs, left));
      }
    } finally {
      state.waitingForOther = false;
    }
  }

  /**
   * Every instance plans the keys polled on any of them: each tells the tier what it polls (for
   * two intervals, renewed every half interval) and reads the others' every half interval it
   * is polled, and before each plan (`preparePlan`).
   * Plans made from the same keys arm the same slots, and the lease makes each refill one call;
   * plans made from different views filled a key in different windows, the earliest winning the
   * lease, and bunched windows past the budget. Each also tells the tier the ticks in which it
   * was polled: a key polled in two ticks, on any instances, is established everywhere (a
   * dashboard's requests reach a different instance each tick). And each tells how late after
   * the tick its pollers come, so every instance gives a late page's keys the same windows.
   */
  sharePolled(key: string, host: string, state: KeyState): void {
    const now = this.#now();
    const interval = this.#options.liveTtlMs;
    if (state.sharedAt === undefined || now - state.sharedAt >= interval / 2) {
      state.sharedAt = now;
      state.sharedLateness = new Set();
      void this.#shared.join(`polled:${host}`, key, 2 * interval);
    }
    const lateBy = pollLateness(now, interval);
    if (!state.sharedLateness?.has(lateBy)) {
      state.sharedLateness?.add(lateBy);
      void this.#shared.join(`late:${host}`, `${lateBy} ${key}`, 2 * interval);
    }
    const tick = Math.floor(now / interval);
    if (state.sharedTick !== tick) {
      state.sharedTick = tick;
      // Kept three intervals: a read at the start of a tick, before its polls are told, still sees two ticks.
      void this.#shared.join(`polls:${host}`, `${tick} ${key}`, 3 * interval);
    }
    const synced = this.#polledSynced.get(host);
    if (synced && (synced.running || now - synced.at < interval / 2)) return;
    void this.#syncPolledOnce(host);
  }

  /** `#syncPolled`, or the one under way: one read of a host's polled keys at a time. */
  #syncPolledOnce(host: string): Promise<void> {
    const synced = this.#polledSynced.get(host) ?? { at: -Infinity };
    this.#polledSynced.set(host, synced);
    synced.running ??= this.#syncPolled(host).finally(() => {
      synced.at = this.#now();
      synced.running = undefined;
    });
    return synced.running;
  }

  /** Adds the keys polled on other instances to the host's plan, as polled now, with the entry the tier holds. */
  async #syncPolled(host: string): Promise<void> {
    const [keys, polls, lateness] = await Promise.all([
      this.#shared.members(`polled:${host}`),
      this.#shared.members(`polls:${host}`),
      this.#shared.members(`late:${host}`),
    ]);
    const established = polledInTwoTicks(polls ?? []);
    for (const key of keys ?? []) {
      const state = this.#keys.peek(key) ?? this.#remoteState(key, host);
      // A wide query this instance's fold group left stays retired: another instance's view is a moment late.
      if (!state || state.retired || !state.context) continue;
      const now = this.#now();
      state.lastRequestedAt = Math.max(state.lastRequestedAt, now);
      const context: KeyContext = { route: state.context.route, query: state.context.query, host };
      if (established.has(key)) {
        const was = this.#keys.established(state);
        state.pollingSince = Math.min(state.pollingSince ?? now, now - this.#options.liveTtlMs);
        state.lastPolledAt = Math.max(state.lastPolledAt ?? now, now);
        if (!was) this.#schedule.replan(siteOf(host));
      }
      if (!this.#entries.peek(key)) await this.adopt(key, context, state, undefined);
      this.#keys.watch(key, context, state);
    }
    // As if each were polled now, here: the bounds hold while another instance is told polls that early or late.
    const told = this.#now();
    for (const member of lateness ?? []) {
      const space = member.indexOf(' ');
      const state = this.#keys.peek(member.slice(space + 1));
      if (state)
        state.pollers = afterPoll(
          state.pollers,
          Number(member.slice(0, space)),
          told,
          this.#options.liveTtlMs,
        );
    }
  }

  /** The state of a key only another instance polled: only a live query of this host, written as its canonical key, is taken. */
  #remoteState(key: string, host: string): KeyState | undefined {
    const queryAt = key.indexOf('?');
    const route = queryAt === -1 ? undefined : findRoute(key.slice(0, queryAt));
    if (route === undefined || !routes[route].live) return undefined;
    const resolved = resolveQuery(route, new URLSearchParams(key.slice(queryAt + 1)), new Set([host]));
    if (!resolved.ok || resolved.key !== key) return undefined;
    const state = this.#keys.state(key);
    state.context = { host, route, query: resolved.context.query };
    return state;
  }

  /** The key's site answers again: its backoff on the tier ends (site-recovery.ts). */
  endBackoff(key: string, context: KeyContext): void {
    void this.#shared.endBackoff(this.#sharedKey(key, context));
  }

  #lease(sharedKey: string, token: string): Lease {
    return {
      confirm: (holdMs) => this.#shared.confirm(sharedKey, token, holdMs),
      write: (stored, keepMs) => this.#shared.write(sharedKey, stored, keepMs),
      fail: (baseMs, maxMs) => this.#shared.fail(sharedKey, baseMs, maxMs),
    };
  }

  /**
   * The lease of a fill begun while the tier was unreachable, taken when its call is granted: the
   * fill may wait for the budget for many seconds, and the tier may be back by then, another
   * instance holding the key's lease and filling it. Then this fill gives way (`false`: lease
   * lost, it waits for that fill's entry), as a fill begun with the tier up would have. Seed 588:
   * a fill begun in a tier outage waited 40 s for a rate-limited site's budget and called 1.9 s
   * before the other instance's planned refill of the same key. Still unreachable: it goes on alone.
   */
  #leaseWhenBack(sharedKey: string, claimMs: number): Lease {
    let held: Lease | undefined;
    return {
      confirm: async (holdMs) => {
        const claim = await this.#claim(sharedKey, claimMs);
        if (claim.kind === 'offline') return 'offline';
        if (claim.kind !== 'won') return false;
        held = this.#lease(sharedKey, claim.token);
        return held.confirm(holdMs);
      },
      write: async (stored, keepMs) => held?.write(stored, keepMs),
      fail: async (baseMs, maxMs) => held?.fail(baseMs, maxMs),
    };
  }

  /** Asks the tier for the key's lease; /metrics counts every answer (`pulse_shared_leases_total`). */
  async #claim(sharedKey: string, ms: number): Promise<LeaseClaim> {
    const claim = await this.#shared.claim(sharedKey, ms);
    this.#metrics.leases.inc({ outcome: claim.kind });
    return claim;
  }

  /** Raw data kept with personal fields must never reach an instance that strips them. */
  #sharedKey(key: string, context: KeyContext): string {
    return context.route === 'raw_data' && this.#options.rawDataPersonalFields ? `${key}#personal` : key;
  }
}
