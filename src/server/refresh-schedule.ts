/**
 * The refresh plan of each host: which polled keys are refilled before the next tick, and when.
 * A host here is a site: a `video@` host's keys are planned with its site's, whose budget they share.
 *
 * The budget allows `fills` calls per aligned window, `windows` windows per interval: 3 × 3 = 9
 * refreshes per 3 s tick. Aiming every key at the same moment just before the tick (the old
 * refresh-ahead) let 3 of them land in time and pushed the rest past the tick. Here the plan,
 * made once per tick, gives each key (a fold group's wide key counts once) its own slot: the
 * last window before the tick takes the keys with the most pollers, the window before it the
 * next ones, so every key lands before its clients poll at the tick.
 *
 * Past the budget, the stalest keys take the slots (a round-robin) and the others' freshness is
 * stretched to the next tick, where they come first: every key's refresh interval grows by the same factor
 * (`stretch` = keys / slots), and clients are served hits with an honest, longer max-age rather
 * than a stampede of stale answers that would each queue a fill.
 *
 * Instances that share a tier each plan every key polled on any of them and must agree slot for
 * slot (a key's lease then makes its refill one call): weights are counted from the tier, so
 * the same keys get the same slots everywhere.
 *
 * Established queries come first. Only a key polled for a while (`isEstablished`: by any
 * client, again at least three quarters of an interval after its polling began) is planned; a
 * new one is on a short leash, refilled only once it is polled again. The budget windows the
 * plan reserves for established keys are not new queries' to take (`reserved`, and
 * `newQuerySlots` for what is left): one client asking a new query every 200 ms spent the
 * site's budget on answers nobody asked for twice and froze a newsroom's dashboard for a minute.
 *
 * Slots stay put tick after tick (keys ordered by pollers, then name). When they move, a key
 * moves at most one window earlier per tick, so two fills of one key are always at least two
 * thirds of an interval apart (the upstream caches for 3 s: sooner would buy nothing).
 */

import type { Clock, TimerHandle } from '../runtime/clock.ts';

/** What the plan needs to know about one polled key. */
export interface PlannedKey {
  key: string;
  /** Pollers it answers: members of its fold group, or 1. */
  weight: number;
  /** When the fill of its stored answer started, and until when that answer is fresh. */
  startedAt: number;
  freshUntil: number;
  /** Polled for a while (`isEstablished`): only such keys are planned. */
  established: boolean;
  /** A fill of it is under way here: waiting for the budget, or at the upstream. */
  filling: boolean;
}

/**
 * Polled again at least three quarters of an interval after its polling began: a dashboard's
 * second poll, not a one-off (however long the one-off then waits for its fill).
 */
export function isEstablished(pollingSince: number | undefined, lastPolledAt: number, intervalMs: number): boolean {
  return pollingSince !== undefined && lastPolledAt - pollingSince >= (intervalMs * 3) / 4;
}

/**
 * The keys of `tick key` members (a shared tier's record of which tick each instance polled a
 * key in) polled in at least two ticks: established, wherever their polls went.
 */
export function polledInTwoTicks(polls: readonly string[]): Set<string> {
  const firstTick = new Map<string, string>();
  const established = new Set<string>();
  for (const poll of polls) {
    const space = poll.indexOf(' ');
    const tick = poll.slice(0, space);
    const key = poll.slice(space + 1);
    const seen = firstTick.get(key);
    if (seen === undefined) firstTick.set(key, tick);
    else if (seen !== tick) established.add(key);
  }
  return established;
}

/**
 * Slots of the plan's windows (their starts, listed from the tick back) that the budget has
 * already given or owes when the plan is made: `taken` fills started in the window under way
 * (`current`), or running or queued now, each holding the next free slot from `current` on.
 */
export function occupiedSlots(windowStarts: readonly number[], current: number, taken: number, fills: number): number[] {
  const used = windowStarts.map(() => 0);
  for (let index = windowStarts.length - 1; index >= 0 && taken > 0; index -= 1) {
    if (windowStarts[index]! < current) continue;
    used[index] = Math.min(fills, taken);
    taken -= used[index]!;
  }
  return used;
}

/**
 * The slots of one budget window a new query may take on one instance: what the plan's
 * reserved refills leave, split between the instances that share the budget (each counts its
 * own new fills).
 */
export function newQuerySlots(fills: number, reserved: number, instances: number): number {
  return Math.max(0, Math.floor((fills - reserved) / Math.max(1, instances)));
}

/** The slots of the budget window around a moment that the plan reserved for established keys. */
export interface Reservation {
  reserved: number;
  windowStart: number;
  windowEnd: number;
}

/** The plan of one host, as /metrics shows it. */
export interface HostPlan {
  /** Distinct client queries polled (each member of a fold group counts). */
  keys: number;
  /** Upstream queries refreshed: fold groups and unfolded keys. */
  groups: number;
  /** Upstream calls a minute the plan makes. */
  callsPerMinute: number;
  /** Refresh interval / tick interval: 1 while everything fits in the budget. */
  stretch: number;
}

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
   * Starts a planned refill unless the stored answer is already fresh past `dueBy` (when the
   * tick's pollers come: another fill served this tick since the plan) or started less than
   * the schedule's `minGapMs` ago (the budget still has the last word).
   */
  refresh(key: string, dueBy: number): void;
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

/**
 * The least time between two fills of one key, planned or not: a key moves at most one window
 * earlier per tick, and its fills are at least two thirds of an interval apart. Once a key sits
 * in its slot, its fills are one interval apart.
 */
export function leastRefillGap(intervalMs: number, windowMs: number): number {
  return Math.max(intervalMs - windowMs, (intervalMs * 2) / 3);
}

interface HostTimers {
  tick?: TimerHandle;
  slots: Set<TimerHandle>;
  stretch: number;
  replanning?: boolean;
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

  /** Windows of the budget in one interval, and refreshes they carry. */
  get #windows(): number {
    return Math.max(1, Math.floor(this.#parts.intervalMs / this.#parts.windowMs));
  }

  /** The least time between two fills of one key. */
  get minGapMs(): number {
    return leastRefillGap(this.#parts.intervalMs, this.#parts.windowMs);
  }

  get #capacity(): number {
    return Math.max(1, Math.floor((this.#parts.fills * this.#parts.intervalMs) / this.#parts.windowMs));
  }

  /** Makes sure the host has a plan: the first one at once, then one per tick. */
  watch(host: string): void {
    if (this.#closed || this.#hosts.has(host)) return;
    const timers: HostTimers = { slots: new Set(), stretch: 1, refreshed: new Map(), established: false, reserved: new Map() };
    this.#hosts.set(host, timers);
    this.#plan(host, timers);
  }

  /**
   * Plans the host again, soon: a key it has not seen (a new poller, a first fill) gets a slot
   * for the coming tick instead of waiting a tick. Coalesced: one re-plan however many keys come.
   */
  replan(host: string): void {
    const timers = this.#hosts.get(host);
    if (!timers) return this.watch(host);
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
   */
  reserved(host: string, at: number): Reservation | undefined {
    const timers = this.#hosts.get(host);
    if (!timers?.established) return undefined;
    const { windowMs } = this.#parts;
    const windowStart = at - (at % windowMs);
    return { reserved: timers.reserved.get(windowStart) ?? 0, windowStart, windowEnd: windowStart + windowMs };
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
  }

  /** Runs `action` at `at` on the schedule's clock. */
  #arm(timers: HostTimers, at: number, action: () => void): void {
    const { clock } = this.#parts;
    const slot = clock.setTimeout(() => {
      timers.slots.delete(slot);
      if (!this.#closed) action();
    }, Math.max(1, at - clock.now()));
    timers.slots.add(slot);
  }

  #plan(host: string, timers: HostTimers): void {
    const { intervalMs, windowMs, fills, clock } = this.#parts;
    const at = clock.now();
    const lead = this.#parts.lead(host);
    // The tick this plan serves: the next one a refill can still reach.
    let tick = Math.ceil(at / intervalMs) * intervalMs;
    if (tick - lead <= at) tick += intervalMs;
    const all = this.#parts.polled(host);
    // Keys polled once are left alone: a host with only those keeps its tick, for when one is polled again.
    const polled = all.filter((key) => key.established);
    if (all.length === 0) {
      this.#hosts.delete(host);
      this.#parts.report(host, undefined);
      return;
    }
    const capacity = this.#capacity;
    // Due: not fresh any more when the tick's pollers come, and not refilled for this tick yet.
    const dueBy = tick + intervalMs / 4;
    const due = polled.filter((key) => key.freshUntil <= dueBy && !key.filling && timers.refreshed.get(key.key) !== tick);
    for (const [key, refreshedFor] of timers.refreshed) if (refreshedFor < tick) timers.refreshed.delete(key);
    const minGap = this.minGapMs;
    // Stalest first: the one whose stored answer's fill started earliest (told by the shared
    // tier, so every instance ranks alike).
    const stalestFirst = due.sort((a, b) => a.startedAt - b.startedAt || (a.key < b.key ? -1 : 1));
    // Above the budget, what it has already given established keys in the window under way, or
    // owes them (fills running or queued), is not the plan's. Planned as free, it pushed the
    // plan's last window past the tick, and with every slot taken it stayed there: the same few
    // keys reached their pollers a tick late, every tick. (New queries' grants are not counted:
    // they take only what the plan leaves. Under the budget every due key goes in its slot, and
    // what the window owes drains through the spare ones.)
    const windowStarts = Array.from({ length: this.#windows }, (_, index) => {
      const startAt = tick - index * windowMs - lead;
      return startAt - (startAt % windowMs);
    });
    const current = at - (at % windowMs);
    const taken = polled.filter((key) => key.filling || key.startedAt >= current).length;
    const above = stalestFirst.length > capacity;
    const used = above ? occupiedSlots(windowStarts, current, taken, fills) : windowStarts.map(() => 0);
    const free = used.reduce((sum, count, index) => (windowStarts[index]! + windowMs > at ? sum + fills - count : sum), 0);
    const chosen = stalestFirst.slice(0, Math.min(capacity, free));
    for (const left of stalestFirst.slice(chosen.length)) this.#parts.stretch(left.key, tick + intervalMs / 2);
    if (above) {
      // Above the budget, the stalest in the earliest window: the next plan finds them in the
      // order they were chosen, behind the keys left out, so the plan is a round-robin and
      // every key waits as long. (Placed by pollers, the same keys took the earliest window, were
      // the stalest of their tick the next time, and came first, forever.)
      chosen.reverse();
    } else {
      // Most pollers in the last window before the tick; ties by key so slots stay put tick after tick.
      chosen.sort((a, b) => b.weight - a.weight || (a.key < b.key ? -1 : 1));
    }
    timers.established = polled.length > 0;
    timers.reserved = new Map();
    for (const key of chosen) {
      const earliest = key.startedAt + minGap;
      let window = used.findIndex((count, index) => count < fills && windowStarts[index]! + windowMs > at && tick - index * windowMs - lead >= earliest);
      let startAt: number;
      if (window === -1) {
        // No free slot that far from the last fill: as soon as allowed (the budget has the last word).
        startAt = earliest;
      } else {
        used[window]! += 1;
        startAt = tick - window * windowMs - lead;
      }
      const windowStart = startAt - (startAt % windowMs);
      timers.reserved.set(windowStart, (timers.reserved.get(windowStart) ?? 0) + 1);
      this.#arm(timers, startAt, () => {
        timers.refreshed.set(key.key, tick);
        this.#parts.refresh(key.key, dueBy);
      });
    }
    timers.stretch = Math.max(1, polled.length / capacity);
    this.#parts.report(host, polled.length === 0 ? undefined : {
      keys: polled.reduce((sum, key) => sum + key.weight, 0),
      groups: polled.length,
      callsPerMinute: Math.round((Math.min(polled.length, capacity) * 60_000) / intervalMs),
      stretch: Math.round(timers.stretch * 100) / 100,
    });
    // The next plan comes once this tick's pollers have been answered (an eighth of an interval).
    const { prepare } = this.#parts;
    const next = prepare ? () => void this.#prepared(host, timers, prepare) : () => this.#plan(host, timers);
    timers.tick = clock.setTimeout(next, Math.max(1, tick + intervalMs / 8 - at));
  }

  async #prepared(host: string, timers: HostTimers, prepare: (host: string) => Promise<void>): Promise<void> {
    await prepare(host);
    if (this.#closed || this.#hosts.get(host) !== timers) return;
    // A re-plan may have come meanwhile: this plan takes its place.
    this.#clear(timers);
    this.#plan(host, timers);
  }
}
