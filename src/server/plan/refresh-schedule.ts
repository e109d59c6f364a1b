/**
 * The refresh plan on the clock: for each watched host, one plan per tick (`planRefills`, the
 * pure decision in refresh-plan.ts, where the rules are), its refills armed as timers, the keys
 * it left out stretched, and a re-plan soon when a new established key appears. The cache gives
 * it the host's keys and the upstream's lead, and is told what to refill, what to stretch and
 * what the plan is (/metrics).
 */
import type { Clock, TimerHandle } from '../../runtime/clock.ts';
import {
  leastRefillGap,
  planRefills,
  type HostPlan,
  type PlannedKey,
  type Reservation,
} from './refresh-plan.ts';

export interface ScheduleParts {
  intervalMs: number;
  windowMs: number;
  fills: number;
  clock: Clock;
  /** The host's polled keys that have a stored answer. */
  polled(host: string): PlannedKey[];
  /** How long before its slot ends a refill must start to land in time (from upstream latency). */
  lead(host: string): number;
  /**
   * Starts a planned refill unless the stored answer is already fresh past its `dueBy` (when
   * the pollers it serves come: another fill served them since the plan) or started less than
   * the schedule's `minGapMs` ago (the budget still has the last word). `tick` is the tick whose
   * pollers it serves.
   */
  refresh(key: string, dueBy: number, tick: number): void;
  /**
   * Brings the host's keys up to date before a plan (with a shared tier, the copies other
   * instances refilled since): plans rank keys by when their fills started, and instances that
   * saw different fills chose different keys, some often and some seldom.
   */
  prepare?(host: string): Promise<void>;
  /** Pushes a key's freshness to `until`: it was due but the budget had no slot for it. */
  stretch(key: string, until: number): void;
  report(host: string, plan: HostPlan | undefined): void;
}

interface HostTimers {
  tick?: TimerHandle;
  slots: Set<TimerHandle>;
  replanning?: boolean;
  /** Refills armed and not started yet: key → when. */
  armed: Map<string, number>;
  /** Keys whose refill for a tick has started: a re-plan for the same tick leaves them be. */
  refreshed: Map<string, number>;
  /** Whether the last plan had established keys, and its refills per window start. */
  established: boolean;
  reserved: Map<number, number>;
}

export class RefreshSchedule {
  readonly #parts: ScheduleParts;
  readonly #hosts = new Map<string, HostTimers>();
  #closed = false;

  constructor(parts: ScheduleParts) {
    this.#parts = parts;
  }

  /** The least time between two fills of one key. */
  get minGapMs(): number {
    return leastRefillGap(this.#parts.intervalMs, this.#parts.windowMs);
  }

  /** Makes sure the host has a plan: the first one at once, then one per tick. */
  watch(host: string): void {
    if (this.#closed || this.#hosts.has(host)) return;
    const timers: HostTimers = {
      slots: new Set(),
      armed: new Map(),
      refreshed: new Map(),
      established: false,
      reserved: new Map(),
    };
    this.#hosts.set(host, timers);
    this.#plan(host, timers);
  }

  /**
   * Plans the host again, soon: a key it has not seen (a new poller, a first fill) gets a slot
   * for the coming tick instead of waiting a tick. Coalesced: one re-plan however many keys come.
   */
  replan(host: string): void {
    const timers = this.#hosts.get(host);
    if (!timers) {
      this.watch(host);
      return;
    }
    if (timers.replanning) return;
    timers.replanning = true;
    this.#parts.clock.setTimeout(() => {
      timers.replanning = false;
      if (this.#closed || this.#hosts.get(host) !== timers) return;
      this.#clear(timers);
      this.#plan(host, timers);
    }, 0);
  }

  /**
   * The window around `at` and the refills the host's plan reserved in it, or undefined while
   * the host has no established key (then nothing is reserved, and a cold dashboard may burst).
   * A window the plan has not dealt yet is reserved whole: the first one after a tick is dealt
   * by the plan made an eighth of an interval into it, and new queries granted before that took
   * the slots it then gave established keys, which reached their pollers a tick late.
   */
  reserved(host: string, at: number): Reservation | undefined {
    const timers = this.#hosts.get(host);
    if (!timers?.established) return undefined;
    const { windowMs, fills } = this.#parts;
    const windowStart = at - (at % windowMs);
    return {
      reserved: timers.reserved.get(windowStart) ?? fills,
      windowStart,
      windowEnd: windowStart + windowMs,
    };
  }

  /** When the host's plan starts its refill of `key`, if one is armed. */
  plannedRefillAt(host: string, key: string): number | undefined {
    return this.#hosts.get(host)?.armed.get(key);
  }

  close(): void {
    this.#closed = true;
    for (const timers of this.#hosts.values()) this.#clear(timers);
    this.#hosts.clear();
  }

  #clear(timers: HostTimers): void {
    this.#parts.clock.clearTimeout(timers.tick);
    for (const slot of timers.slots) this.#parts.clock.clearTimeout(slot);
    timers.slots.clear();
    timers.armed.clear();
  }

  /** Runs `action` at `at` on the schedule's clock. */
  #arm(timers: HostTimers, at: number, action: () => void): void {
    const { clock } = this.#parts;
    const slot = clock.setTimeout(
      () => {
        timers.slots.delete(slot);
        if (!this.#closed) action();
      },
      Math.max(1, at - clock.now()),
    );
    timers.slots.add(slot);
  }

  #plan(host: string, timers: HostTimers): void {
    const { intervalMs, windowMs, fills, clock } = this.#parts;
    const at = clock.now();
    const all = this.#parts.polled(host);
    if (all.length === 0) {
      this.#hosts.delete(host);
      this.#parts.report(host, undefined);
      return;
    }
    // Keys polled once are left alone: a host with only those keeps its tick, for when one is polled again.
    const keys = all.filter((key) => key.established);
    const plan = planRefills({
      at,
      intervalMs,
      windowMs,
      fills,
      lead: this.#parts.lead(host),
      keys,
      refreshed: timers.refreshed,
    });
    for (const [key, refreshedFor] of timers.refreshed)
      if (refreshedFor < plan.tick) timers.refreshed.delete(key);
    for (const key of plan.stretched) this.#parts.stretch(key, plan.stretchedUntil);
    timers.established = keys.length > 0;
    timers.reserved = plan.reserved;
    // In the plan's order: timers due at one moment run in the order they were set, so refills
    // whose start has passed (all at once, now) still start in turn, the stalest first.
    for (const { key, startAt, dueBy } of plan.refills) {
      timers.armed.set(key, startAt);
      this.#arm(timers, startAt, () => {
        timers.armed.delete(key);
        timers.refreshed.set(key, plan.tick);
        this.#parts.refresh(key, dueBy, plan.tick);
      });
    }
    this.#parts.report(host, plan.report);
    const { prepare } = this.#parts;
    const next = prepare ? () => void this.#prepared(host, timers, prepare) : () => this.#plan(host, timers);
    timers.tick = clock.setTimeout(next, Math.max(1, plan.nextAt - at));
  }

  async #prepared(host: string, timers: HostTimers, prepare: (host: string) => Promise<void>): Promise<void> {
    await prepare(host);
    if (this.#closed || this.#hosts.get(host) !== timers) return;
    // A re-plan may have come meanwhile: this plan takes its place.
    this.#clear(timers);
    this.#plan(host, timers);
  }
}
