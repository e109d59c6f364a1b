/**
 * The lookup of one key: reads what decision.ts needs (the key's copy, its backoff, its host's
 * cooldown, with a shared tier the tier's newer copy) and acts on the decision: answers the copy,
 * starts a refill, waits for a fill (a moment at first paint, `maxWaitMs` when nothing is
 * servable), or says the key is unavailable.
 */
import { routes, siteOf } from '../../api/index.ts';
import type { Clock, TimerHandle } from '../../runtime/clock.ts';
import type { StoredResponse } from '../../runtime/stored-response.ts';
import type { HostBudget } from '../budget/host-budget.ts';
import type { ResolvedOptions } from '../config/options.ts';
import { decide, servable, staleDetail, type EntryState, type Lookup } from './decision.ts';
import type { Filler } from './filler.ts';
import type { Entries, FillContext, KeyContext, KeyState, PolledKeys } from './polled-keys.ts';
import type { SharedKeys } from './shared-keys.ts';

export interface KeyLookupParts {
  options: ResolvedOptions;
  entries: Entries;
  keys: PolledKeys;
  filler: Filler;
  budget: HostBudget;
  sharedKeys?: SharedKeys;
  /** When the refresh plan starts its refill of a key of a site, if one is armed. */
  plannedRefillAt(site: string, key: string): number | undefined;
}

export class KeyLookup {
  readonly #options: ResolvedOptions;
  readonly #entries: Entries;
  readonly #keys: PolledKeys;
  readonly #filler: Filler;
  readonly #budget: HostBudget;
  readonly #sharedKeys?: SharedKeys;
  readonly #plannedRefillAt: KeyLookupParts['plannedRefillAt'];
  readonly #clock: Clock;
  readonly #now: () => number;

  constructor(parts: KeyLookupParts) {
    this.#options = parts.options;
    this.#entries = parts.entries;
    this.#keys = parts.keys;
    this.#filler = parts.filler;
    this.#budget = parts.budget;
    this.#sharedKeys = parts.sharedKeys;
    this.#plannedRefillAt = parts.plannedRefillAt;
    this.#clock = parts.options.clock;
    this.#now = parts.options.clock.now;
  }

  async lookup(key: string, context: FillContext): Promise<Lookup> {
    const state = this.#keys.state(key);
    let current = this.#entries.get(key);
    // A passive lookup is not a poll: it is answered from a fresh entry, or counts as a request when it fills.
    if (!context.passive) this.touch(key, context, state);
    else if (!(current && this.#now() < current.freshUntil))
      state.lastRequestedAt = state.lastPassiveAt = this.#now();
    if (this.#sharedKeys && !(current && state.lastRequestedAt < current.freshUntil))
      current = await this.#sharedKeys.adopt(key, context, state, current);
    if (!context.passive) this.#keys.polledSince(state, current);
    const now = this.#now();
    const decision = decide(this.#entryState(key, context, state, current), now, this.#options);
    switch (decision.kind) {
      case 'hit':
        return { kind: 'stored', stored: current!, status: { kind: 'hit' } };
      case 'stale':
        return { kind: 'stored', stored: current!, status: decision };
      case 'first-paint': {
        const filled = await this.#withDeadline(
          this.#entries.fetch(key, { forceRefresh: true, allowStale: false, context }).catch(() => undefined),
          this.#options.firstPaintWaitMs,
        );
        if (filled && filled.fetchedAt > current!.fetchedAt)
          return { kind: 'stored', stored: filled, status: { kind: 'miss' } };
        return {
          kind: 'stored',
          stored: current!,
          status: {
            kind: 'stale',
            detail: staleDetail(this.#entryState(key, context, state, current), this.#now()),
          },
        };
      }
      case 'refill':
        this.#filler.start(key, context);
        // Read after the fill started: it may be queued for the budget.
        return {
          kind: 'stored',
          stored: current!,
          status: { kind: 'stale', detail: staleDetail(this.#entryState(key, context, state, current), now) },
        };
      case 'unavailable':
        return this.#unavailable(key, context, decision.retryAfterMs, state);
    }
    // A fill: nothing is servable and nothing holds one back, so the request waits for it, up to `maxWaitMs`.
    try {
      const filled = await this.#withDeadline(
        this.#entries.fetch(key, { forceRefresh: true, allowStale: false, context }),
      );
      if (filled) return { kind: 'stored', stored: filled, status: { kind: 'miss' } };
    } catch {
      // The reason is in the key's state and in the log line of the upstream call.
    }
    // No error while a copy exists: one may have come while this request waited. (A restarted
    // instance's first poll waited for the budget while the tier was down; the tier came back,
    // the next poll was answered the tier's copy, and this one 503: seed 1875.)
    const copy = await this.servableCopy(key, context, state);
    if (copy) {
      const detail = staleDetail(this.#entryState(key, context, state, copy), this.#now());
      return { kind: 'stored', stored: copy, status: { kind: 'stale', detail } };
    }
    const after = this.#filler.blockedUntil(context.host, state) - this.#now();
    return this.#unavailable(key, context, after > 0 ? after : this.#options.backoffBaseMs, state);
  }

  /**
   * The stored copy of `key` while its refill runs and the decision is to answer it as stale at
   * once (fill-cache.ts, `refillingEntry`). Not while the refill waits for another instance's:
   * that entry may be in the shared tier already, which `lookup` adopts and this copy would not
   * (with two instances, a poll read data a tick older than the other instance had).
   */
  refilling(key: string): StoredResponse | undefined {
    const state = this.#keys.peek(key);
    if (!state?.filling || state.waitingForBudget || state.waitingForOther || !state.context)
      return undefined;
    const stored = this.#entries.peek(key);
    return stored &&
      decide(this.#entryState(key, state.context, state, stored), this.#now(), this.#options).kind ===
        'refill'
      ? stored
      : undefined;
  }

  /** A client asked for `key`: it is polled, and with a shared tier, told as polled. */
  touch(key: string, context: FillContext, state: KeyState): void {
    this.#keys.touch(key, context, state);
    if (this.#sharedKeys && routes[context.route].live)
      this.#sharedKeys.sharePolled(key, context.host, state);
  }

  /** What the decision reads of a key: its copy, its backoff, its host's cooldown and its planned refill. */
  #entryState(
    key: string,
    context: KeyContext,
    state: KeyState,
    stored: StoredResponse | undefined,
  ): EntryState {
    const { failures, retryAt, invalid, waitingForBudget } = state;
    return {
      stored,
      live: routes[context.route].live,
      failures,
      retryAt,
      invalid,
      waitingForBudget,
      cooldownUntil: this.#budget.cooldownUntil(context.host),
      plannedRefillAt: this.#plannedRefillAt(siteOf(context.host), key),
    };
  }

  #unavailable(key: string, context: KeyContext, retryAfterMs: number, state: KeyState): Lookup {
    return {
      kind: 'unavailable',
      retryAfterMs,
      invalid: state.invalid === true,
      detail: staleDetail(this.#entryState(key, context, state, undefined), this.#now()),
    };
  }

  /** The key's newest copy still inside the stale window: this instance's, or the shared tier's. */
  async servableCopy(
    key: string,
    context: KeyContext,
    state = this.#keys.state(key),
  ): Promise<StoredResponse | undefined> {
    let copy = this.#entries.peek(key);
    if (this.#sharedKeys) copy = await this.#sharedKeys.adopt(key, context, state, copy);
    return copy && servable(copy, this.#now(), this.#options.staleWindowMs) ? copy : undefined;
  }

  #withDeadline<T>(promise: Promise<T>, ms = this.#options.maxWaitMs): Promise<T | undefined> {
    let timer: TimerHandle | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = this.#clock.setTimeout(() => resolve(undefined), ms);
    });
    return Promise.race([promise, deadline]).finally(() => this.#clock.clearTimeout(timer));
  }
}
