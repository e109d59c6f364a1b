/**
 * The per-host upstream budget: at most `fills` upstream calls per fixed window of `windowMs`,
 * windows aligned on the clock. The upstream allows 200 calls per minute per host; a sliding
 * minute overlaps at most 61 aligned 1 s windows, so 3 per window can never exceed 183.
 *
 * Waiters queue per host in arrival order. A key is queued at most once (its fill is coalesced),
 * so when more keys compete than the budget carries, each one's refresh interval stretches by
 * the same amount: round-robin, not first-come-forever.
 *
 * A host can also be cooled down (429, `X-RateLimit-Remaining: 0`): nothing is granted until the
 * cooldown ends. Written here rather than with rate-limiter-flexible's queue because a waiter
 * whose clients all left must be dropped without spending a slot, and because windows must be
 * aligned on the same injectable clock the cache uses.
 *
 * Established queries come first: a waiter for a new query (one not in its site's refresh
 * plan yet) queues behind every established one, and takes a slot only where the plan left
 * one (`NewQueryShare`, from plan/refresh-plan.ts), counted per window in this process. The
 * established keys' refills are planned in their windows; a new query spraying script took
 * those slots first and the dashboard's data aged by a minute.
 *
 * Who counts the slots is a `SlotSource`: this process alone (`WindowSlots`), or every instance
 * together through Redis (`SharedSlots`, shared-slots.ts).
 *
 * "Host" is the site: `video@example.com` counts against example.com's budget and cooldown, as
 * the service counts it (spec 5.4). Apart, the two together planned 180 calls a minute and more,
 * and the service answered 429.
 */
import { siteOf } from '../../api/index.ts';
import type { Clock, TimerHandle } from '../../runtime/clock.ts';

export class BudgetClosedError extends Error {
  override name = 'BudgetClosedError';
}

/**
 * A slot taken now, stamped with the time it was granted on the clock that counts the windows
 * (Redis's for the shared budget), or how long to wait before asking again (and whether a
 * cooldown is why).
 */
export type SlotAnswer = (
  | { granted: true; at: number }
  | { granted: false; waitMs: number; coolingDown: boolean }
) & {
  /** From a shared budget: how long instances that lose it must wait before granting alone ({@link aloneHoldMs}). */
  aloneHoldMs?: number;
};

/**
 * How long instances that lose the shared budget must wait before they grant alone, given the
 * calls of the last minute (`sent`, ascending) and the windows' rate they then keep between
 * them (`fills` a window). Alone from then on, every sliding minute still holds at most
 * `fills` × 61: the `k` newest calls, made within the last `x` windows, leave room for alone
 * calls in `60 − x − hold` windows only when k ≤ fills × (1 + x + hold). Nothing to wait while
 * the minute went at the windows' rate; a burst (a cold dashboard) is waited out.
 */
export function aloneHoldMs(sent: readonly number[], now: number, fills: number, windowMs: number): number {
  let hold = 0;
  for (let k = 1; k <= sent.length; k += 1) {
    const windowsAgo = (now - sent[sent.length - k]!) / windowMs;
    hold = Math.max(hold, k / fills - 1 - windowsAgo);
  }
  return Math.ceil(hold * windowMs);
}

/**
 * How long a new query's slot must wait where the slots are counted (`now`, the counter's
 * clock), when its share was counted in the window starting at `shareWindow` (the caller's
 * clock); 0 when it may take one. An ask sent at the end of its window can reach a shared
 * tier in the next one, whose slots the plan gave established refills: it waits until half a
 * window in (seed 25994: a sprayer's query took a slot of the window where a dashboard's
 * refill was due, and the refill reached its pollers late). Later in a window it may take one,
 * as before: where the two clocks disagree by more than the way there, a wait to the next
 * window would meet the same disagreement there, and new queries would wait for good.
 */
export function crossedWindowWaitMs(shareWindow: number, now: number, windowMs: number): number {
  const into = now % windowMs;
  return now - into !== shareWindow && into < windowMs / 2 ? windowMs / 2 - into : 0;
}

export interface SlotSource {
  /**
   * A slot now. `newQueryWindow`: a new query's, whose share of the slots was counted in the
   * window starting then on the caller's clock ({@link crossedWindowWaitMs}).
   */
  take(host: string, now: number, newQueryWindow?: number): SlotAnswer | Promise<SlotAnswer>;
  /** Tells the other instances about a cooldown, if there are any. */
  cooldown?(host: string, ms: number): void;
  /** The budget is closing: a `take` still under way grants nothing. */
  close?(): void;
}

/**
 * `fills` per clock-aligned window of `windowMs`, counted in this process. A sliding minute (60
 * windows) never holds more than `fills` × 61 calls: the window count alone promises that, and
 * a log of the last minute's calls keeps the promise when a window bursts. A window may grant
 * up to `burst` while the last minute used less than half of its calls: a dashboard opening on
 * a cold cache gets its fills at once instead of 3 a second, and the minute it borrows from had
 * room to spare. Steady refills stay at `fills` a window (plan/refresh-plan.ts plans them so).
 */
export class WindowSlots implements SlotSource {
  readonly #fills: number;
  readonly #windowMs: number;
  readonly #burst: number;
  readonly #windows = new Map<string, { start: number; used: number; sent: number[] }>();

  /** `burst` defaults to `fills`: none (an instance's share of a shared budget must never burst). */
  constructor(fills: number, windowMs: number, burst = fills) {
    this.#fills = fills;
    this.#windowMs = windowMs;
    this.#burst = Math.max(fills, burst);
  }

  /** `burst`: this call's, where the caller decides it per call (as the shared tier's callers do). */
  take(host: string, now: number, newQueryWindow?: number, burst = this.#burst): SlotAnswer {
    const crossed =
      newQueryWindow === undefined ? 0 : crossedWindowWaitMs(newQueryWindow, now, this.#windowMs);
    if (crossed > 0) return { granted: false, waitMs: Math.max(1, crossed), coolingDown: false };
    const start = now - (now % this.#windowMs);
    let window = this.#windows.get(host);
    if (!window) this.#windows.set(host, (window = { start, used: 0, sent: [] }));
    if (window.start !== start) {
      window.start = start;
      window.used = 0;
    }
    const minuteAgo = now - 60 * this.#windowMs;
    // A call exactly a minute ago still counts: a sliding minute is closed at both ends.
    while (window.sent.length > 0 && window.sent[0]! < minuteAgo) window.sent.shift();
    const perMinute = this.#fills * 61;
    const limit = window.sent.length < perMinute / 2 ? Math.max(this.#fills, burst) : this.#fills;
    if (window.used >= limit || window.sent.length >= perMinute) {
      const untilRoom = window.sent.length >= perMinute ? window.sent[0]! - minuteAgo + 1 : 0;
      return {
        granted: false,
        waitMs: Math.max(1, untilRoom, start + this.#windowMs - now),
        coolingDown: false,
      };
    }
    window.used += 1;
    window.sent.push(now);
    return { granted: true, at: now };
  }

  /** {@link aloneHoldMs} of `host`'s last minute, for the instances sharing these slots. */
  aloneHoldMs(host: string, now: number): number {
    return aloneHoldMs(this.#windows.get(host)?.sent ?? [], now, this.#fills, this.#windowMs);
  }
}

/**
 * How many new-query grants this process may make in the window around `now`, and when that
 * window ends; undefined while the site has no established key (no limit but the slots').
 */
export type NewQueryShare = (
  site: string,
  now: number,
) => { slots: number; windowStart: number; windowEnd: number } | undefined;

interface Waiter {
  /** Asked when its turn may come: a query polled again while it waits is established by then. */
  established: () => boolean;
  wanted: () => boolean;
  waited?: () => void;
  resolve: (grantedAt: number | undefined) => void;
  reject: (error: Error) => void;
}

interface HostState {
  cooldownUntil: number;
  queue: Waiter[];
  pumping: boolean;
  timer?: TimerHandle;
  /** The timer only holds back new queries: an established waiter that comes need not wait for it. */
  heldForEstablished: boolean;
  /** New-query grants in the window starting at `windowStart`. */
  newGrants: { windowStart: number; count: number };
}

export class HostBudget {
  readonly #slots: SlotSource;
  readonly #clock: Clock;
  readonly #newQueryShare?: NewQueryShare;
  readonly #hosts = new Map<string, HostState>();
  #closed = false;

  constructor(slots: SlotSource, clock: Clock, newQueryShare?: NewQueryShare) {
    this.#slots = slots;
    this.#clock = clock;
    this.#newQueryShare = newQueryShare;
  }

  /**
   * Resolves with the time the slot was granted (on the windows' clock) once a call to `host` may
   * be made now, `undefined` if the waiter was no longer wanted when its turn came (no slot
   * spent). `waited` is called once if it had to queue. A new query (`established` false)
   * waits behind every established one and takes only the slots the plan left.
   */
  acquire(
    host: string,
    wanted: () => boolean,
    waited?: () => void,
    established: () => boolean = () => true,
  ): Promise<number | undefined> {
    if (this.#closed) return Promise.reject(new BudgetClosedError('closed'));
    const site = siteOf(host);
    const state = this.#state(site);
    return new Promise<number | undefined>((resolve, reject) => {
      state.queue.push({ established, wanted, waited, resolve, reject });
      if (state.heldForEstablished && established()) {
        this.#clock.clearTimeout(state.timer);
        state.timer = undefined;
        state.heldForEstablished = false;
      }
      void this.#pump(site, state);
    });
  }

  /** No calls to `host` (its whole site) before `until` (ms on the injected clock). A later cooldown wins. */
  cooldown(host: string, until: number): void {
    const site = siteOf(host);
    const state = this.#state(site);
    state.cooldownUntil = Math.max(state.cooldownUntil, until);
    this.#slots.cooldown?.(site, until - this.#clock.now());
  }

  cooldownUntil(host: string): number {
    return this.#hosts.get(siteOf(host))?.cooldownUntil ?? 0;
  }

  close(): void {
    this.#closed = true;
    this.#slots.close?.();
    for (const state of this.#hosts.values()) {
      this.#clock.clearTimeout(state.timer);
      for (const waiter of state.queue.splice(0)) waiter.reject(new BudgetClosedError('closed'));
    }
  }

  #state(host: string): HostState {
    let state = this.#hosts.get(host);
    if (!state) {
      state = {
        cooldownUntil: 0,
        queue: [],
        pumping: false,
        heldForEstablished: false,
        newGrants: { windowStart: 0, count: 0 },
      };
      this.#hosts.set(host, state);
    }
    return state;
  }

  /** Grants slots to the head of the queue while there are any; one pump per host at a time. */
  async #pump(host: string, state: HostState): Promise<void> {
    if (state.pumping || state.timer !== undefined) return;
    state.pumping = true;
    try {
      while (state.queue.length > 0 && !this.#closed) {
        // Nobody waits for these any more: a new query behind established ones may wait long, and
        // granted late it was a call nobody needed (made without the lease it once claimed).
        for (const waiter of state.queue.filter((queued) => !queued.wanted())) {
          state.queue.splice(state.queue.indexOf(waiter), 1);
          waiter.resolve(undefined);
        }
        if (state.queue.length === 0) break;
        // The first established waiter, else the first new one: established queries come first.
        const established = state.queue.find((waiter) => waiter.established());
        const head = established ?? state.queue[0]!;
        const now = this.#clock.now();
        const share = established ? undefined : this.#newQueryShare?.(host, now);
        if (share && state.newGrants.windowStart !== share.windowStart)
          state.newGrants = { windowStart: share.windowStart, count: 0 };
        if (share && state.newGrants.count >= share.slots) {
          // Only new queries are left in the queue: they wait for a window with room.
          this.#wake(host, state, share.windowEnd - now);
          state.heldForEstablished = true;
          return;
        }
        const answer: SlotAnswer =
          now < state.cooldownUntil
            ? { granted: false, waitMs: state.cooldownUntil - now, coolingDown: true }
            : await this.#slots.take(host, now, share?.windowStart);
        // Closed while the shared tier was asked: the waiters are gone, and no call is made.
        if (this.#closed) return;
        if (!answer.granted) {
          if (answer.coolingDown) state.cooldownUntil = Math.max(state.cooldownUntil, now + answer.waitMs);
          this.#wake(host, state, answer.waitMs);
          // Refused a new query: an established waiter that comes asks for itself.
          state.heldForEstablished = share !== undefined;
          return;
        }
        // Others may have queued, or been dropped, while the slot was asked for.
        const at = state.queue.indexOf(head);
        if (at !== -1) state.queue.splice(at, 1);
        if (share) state.newGrants.count += 1;
        head.resolve(answer.at);
      }
    } finally {
      state.pumping = false;
    }
  }

  /** Everyone still queued has now waited; the pump runs again when the wait is over. */
  #wake(host: string, state: HostState, delayMs: number): void {
    for (const waiter of state.queue) {
      waiter.waited?.();
      waiter.waited = undefined;
    }
    state.timer = this.#clock.setTimeout(
      () => {
        state.timer = undefined;
        state.heldForEstablished = false;
        void this.#pump(host, state);
      },
      Math.max(1, delayMs),
    );
  }
}
