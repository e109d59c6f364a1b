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

import {
  dueBy,
  freshWindows,
  slackAfterSlot,
  startSooner,
  type PollerLateness,
  type WindowShape,
  windowOrder,
} from './poller-lateness.ts';
import { leavesRoom } from './window-matching.ts';

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
  /**
   * When that fill's upstream call went out, or when the fill began until it has (its answer is
   * fresh an interval from its call); the plan's time if unknown.
   */
  fillingSince?: number;
  /** How long after the tick its earliest and latest pollers come (`PollerLateness`). */
  pollers: PollerLateness;
  /** Until when it backs off after failed fills: none of its fills starts before then. */
  retryAt?: number;
}

/**
 * Polled again at least three quarters of an interval after its polling began: a dashboard's
 * second poll, not a one-off (however long the one-off then waits for its fill).
 */
export function isEstablished(
  pollingSince: number | undefined,
  lastPolledAt: number,
  intervalMs: number,
): boolean {
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
export function occupiedSlots(
  windowStarts: readonly number[],
  current: number,
  taken: number,
  fills: number,
): number[] {
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

/**
 * The least time between two fills of one key, planned or not: a key moves at most one window
 * earlier per tick, and its fills are at least two thirds of an interval apart. Once a key sits
 * in its slot, its fills are one interval apart.
 */
export function leastRefillGap(intervalMs: number, windowMs: number): number {
  return Math.max(intervalMs - windowMs, (intervalMs * 2) / 3);
}

/** How a plan judges one key: where it is due, until when, and which windows it takes. */
interface KeyRule {
  /** The windows the key may take, in the order it takes them: none when it is not due. */
  windows(key: PlannedKey): readonly number[];
  dueBy(key: PlannedKey, index: number): number;
  /** How long its refill may start after its slot and still land in time. */
  slack(key: PlannedKey, index: number): number;
  /** How much sooner than its slot its refill starts (`startSooner`). */
  sooner(key: PlannedKey, index: number): number;
  /** How many windows its pollers read fresh from: the fewest choose first. */
  choices(key: PlannedKey): number;
}

/** What a plan is made from: the time, the budget's shape, and the host's established keys. */
export interface PlanInput {
  at: number;
  intervalMs: number;
  windowMs: number;
  /** Upstream calls the budget allows per window. */
  fills: number;
  /** How long before its slot ends a refill must start to land in time (from upstream latency). */
  lead: number;
  /** The host's established keys that have a stored answer. */
  keys: readonly PlannedKey[];
  /** Keys whose refill has started, and the tick it was for: a re-plan for that tick leaves them be. */
  refreshed: ReadonlyMap<string, number>;
}

/** One planned refill: `key` starts at `startAt`, unless its stored answer is fresh past `dueBy` by then. */
export interface Refill {
  key: string;
  startAt: number;
  /** When the latest poller it serves comes, and a margin (`dueBy` in poller-lateness.ts). */
  dueBy: number;
}

export interface RefreshPlan {
  /** The tick the plan serves: the next one a refill can still reach. */
  tick: number;
  /**
   * In the order they start. A start already past when the plan is made (the earliest window's,
   * ahead of a slow upstream) comes at once, and such refills must still start in this order.
   */
  refills: Refill[];
  /** Due keys the budget has no slot for: their freshness is pushed to `stretchedUntil`. */
  stretched: string[];
  stretchedUntil: number;
  /**
   * Refills per budget window start, each counted in the window the budget grants it in, for
   * every window of the plan (0: none, the window is left to new queries): what
   * `RefreshSchedule.reserved` answers.
   */
  reserved: Map<number, number>;
  /** Refresh interval / tick interval: 1 while every key fits in the budget. */
  stretch: number;
  report: HostPlan | undefined;
  /** When the next plan is made: once this tick's pollers have been answered (an eighth of an interval). */
  nextAt: number;
}

/** The windows of the budget in one interval. */
export const windowsPerInterval = (intervalMs: number, windowMs: number): number =>
  Math.max(1, Math.floor(intervalMs / windowMs));

/** The refreshes one interval's budget carries. */
export const refreshCapacity = (fills: number, intervalMs: number, windowMs: number): number =>
  Math.max(1, Math.floor((fills * intervalMs) / windowMs));

/** The plan of one host for its next tick, from what it is given alone. */
export function planRefills({
  at,
  intervalMs,
  windowMs,
  fills,
  lead,
  keys,
  refreshed,
}: PlanInput): RefreshPlan {
  let tick = Math.ceil(at / intervalMs) * intervalMs;
  if (tick - lead <= at) tick += intervalMs;
  const capacity = refreshCapacity(fills, intervalMs, windowMs);
  const shape: WindowShape = {
    intervalMs,
    windowMs,
    windows: windowsPerInterval(intervalMs, windowMs),
    lead,
  };
  // A key whose fill is under way counts as refilled when that fill began (its call, once out):
  // due when its answer is not fresh past the pollers (a fill a poller started after the tick,
  // off the plan), and then the freshest in the round-robin. Left out of the plan, such a key
  // was neither refilled nor stretched, its next skewed poller refilled it off the plan again,
  // and a wide query polled late in the tick was refreshed every tick while the others waited
  // their turn.
  // (Counted as begun when the plan was made, a fill a page 215 ms late began at its poll was
  // taken as fresh past its next poll, and the page refilled it off the plan every tick: seed 47.)
  const started = keys.map((key) => {
    if (!key.filling) return key;
    const since = key.fillingSince ?? at;
    return { ...key, startedAt: since, freshUntil: since + intervalMs };
  });
  const indexes = Array.from({ length: shape.windows }, (_, index) => index);
  // Above the budget, a round-robin: every key due unless fresh a quarter of an interval past
  // the tick, windows in time order from the tick back, whoever polls. Its turns come alike for
  // all (planned for its late page, a key was due sooner after each refill and took turns every
  // 4.5 s while the others waited 5.7: seed 235), and it rests on the stalest starting first.
  const roundRobin: KeyRule = {
    windows: (key) => (key.freshUntil <= tick + intervalMs / 4 ? indexes : []),
    dueBy: () => tick + intervalMs / 4,
    slack: () => 0,
    sooner: () => 0,
    choices: () => shape.windows,
  };
  // Under it, for its pollers: the windows a key may take are those of its order (`windowOrder`)
  // where it is due, that is where its stored answer is not fresh any more when the last
  // poller that window serves comes (`dueBy`). (Judged by its first window alone, a late page's
  // key it refilled off the plan at its poll was fresh past that window's pollers, left out,
  // and run out at the page's next poll.)
  const forPollers: KeyRule = {
    windows: (key) =>
      windowOrder(key.pollers, shape).filter(
        (index) => key.freshUntil <= dueBy(tick, index, key.pollers, shape),
      ),
    dueBy: (key, index) => dueBy(tick, index, key.pollers, shape),
    slack: (key, index) => Math.max(0, slackAfterSlot(key.pollers, index, shape)),
    sooner: (key, index) => startSooner(key.pollers, index, shape),
    choices: (key) => freshWindows(key.pollers, shape).length,
  };
  const dueAs = (rule: KeyRule) =>
    started.filter((key) => rule.windows(key).length > 0 && refreshed.get(key.key) !== tick);
  const above = dueAs(roundRobin).length > capacity;
  const rule = above ? roundRobin : forPollers;
  const due = dueAs(rule);
  const minGap = leastRefillGap(intervalMs, windowMs);
  // A refill starts the least gap after its key's last fill, and not inside a backoff that ends
  // before the tick. (Placed 10 ms before its backoff ended, a refill was dropped, and the
  // page's next poll read a copy 147 s old: seed 986.) A backoff past the tick leaves the key
  // its slot, blocked, so its windows stay reserved for when the service answers (seed 367),
  // and every refill of a plan still starts before the next plan.
  const backoffBefore = ({ retryAt = 0 }: PlannedKey) => (retryAt < tick ? retryAt : 0);
  const earliest = (key: PlannedKey) => Math.max(key.startedAt + minGap, backoffBefore(key));
  // Stalest first: the one whose stored answer's fill started earliest (told by the shared
  // tier, so every instance ranks alike).
  const stalestFirst = due.sort((a, b) => a.startedAt - b.startedAt || (a.key < b.key ? -1 : 1));
  // Above the budget, what it has already given established keys in the window under way, or
  // owes them (fills running or queued), is not the plan's. Planned as free, it pushed the
  // plan's last window past the tick, and with every slot taken it stayed there: the same few
  // keys reached their pollers a tick late, every tick. (New queries' grants are not counted:
  // they take only what the plan leaves. Under the budget every due key goes in its slot, and
  // what the window owes drains through the spare ones.)
  const windowStarts = Array.from({ length: shape.windows }, (_, index) => {
    const startAt = tick - index * windowMs - lead;
    return startAt - (startAt % windowMs);
  });
  const current = at - (at % windowMs);
  const taken = above ? keys.filter((key) => key.filling || key.startedAt >= current).length : 0;
  const used = occupiedSlots(windowStarts, current, taken, fills);
  // A window not ended yet can still take a refill.
  const open = (index: number) => windowStarts[index]! + windowMs > at;
  const free = used.reduce((sum, count, index) => (open(index) ? sum + fills - count : sum), 0);
  const chosen = stalestFirst.slice(0, Math.min(capacity, free));
  // Stretched: the keys the budget has no slot for. Under it, a key left out only because the
  // plan came after its windows had passed (a re-plan late in the interval, on an instance that
  // learned of the key late) is left as it is: its poller reads another instance's refill from
  // the tier, or the stale copy, marked stale, while it is refilled. (Stretched, an instance
  // served its own 3.7 s old copy as fresh while another had refilled the key: seed 523.)
  const stretched = stalestFirst.slice(above ? chosen.length : capacity).map((key) => key.key);
  // Above the budget, a window's refills start in turn, the stalest first, spread over the
  // window before its slot. Started together, their order was their timers' and a few
  // milliseconds of lease and tier round trips, not their staleness, and the next plan, ranking
  // by it, cut through the window's keys alike tick after tick: with keys not a multiple of a
  // window's fills, some took turns more often (seed 254: 5 keys every 5 s, 12 every 6 s).
  const turn = above ? Math.floor((windowMs - lead) / fills) : 0;
  // A window whose slot comes too soon after the key's last fill still takes it if, started
  // when the gap allows, it lands before the earliest poller it serves. (Held to its slot, a
  // key a late page polls, once in a later window, came 24 ms short of its own window every
  // tick and stayed where the page read it stale: seed 122.)
  const inTime = (key: PlannedKey, index: number) =>
    tick - index * windowMs - lead + rule.slack(key, index) >= earliest(key);
  const startIn = (key: PlannedKey, index: number) =>
    Math.max(earliest(key), tick - index * windowMs - lead - rule.sooner(key, index) - used[index]! * turn);
  // A refill counts in the window it starts in (`startsIn`), not in its slot's. Held back by the
  // gap into a later one that is full, it counts in the next with room (`takes`), where the
  // budget grants it unless the window may burst (a cold start). (Counted in its slot's window,
  // it made a fourth refill in the next one, and the budget pushed that window's last refill
  // past the tick: seed 2756.)
  const canStart = (key: PlannedKey, index: number) => open(index) && inTime(key, index);
  const startsIn = (key: PlannedKey, index: number) => {
    const startAt = startIn(key, index);
    const at = windowStarts.indexOf(startAt - (startAt % windowMs));
    return at === -1 ? index : at;
  };
  const takes = (key: PlannedKey, index: number) => {
    let at = startsIn(key, index);
    if (at === index) return index;
    while (at > 0 && used[at]! >= fills) at -= 1;
    return at;
  };
  if (above) {
    // Above the budget, the stalest in the earliest window, and in each window the stalest
    // first (`turn`): the next plan finds them in the order they were chosen, behind the keys
    // left out, so the plan is a round-robin and every key waits as long. (Placed by pollers,
    // the same keys took the earliest window, were the stalest of their tick the next time,
    // and came first, forever.)
    chosen.reverse();
  } else {
    // Keys with the fewest fresh windows choose first (`freshWindows`: a query polled on time
    // and 1.7 s late has one, the last before the tick; pollers on time have all three), then
    // the most pollers, in the window they take first; ties by key so slots stay put tick after
    // tick. (Chosen by pollers alone, keys on time filled the one window a late page's keys
    // could read fresh, and that page read them stale: seed 23.)
    const choices = new Map(chosen.map((key) => [key.key, rule.choices(key)]));
    chosen.sort(
      (a, b) => choices.get(a.key)! - choices.get(b.key)! || b.weight - a.weight || (a.key < b.key ? -1 : 1),
    );
  }
  const reserved = new Map<number, number>(windowStarts.map((start) => [start, 0]));
  // A key takes the first window of its order whose slot is free and where its refill, counted
  // where it starts (`takes`), has room, and, under the budget, that leaves the keys after it as
  // many slots as they could have had (`leavesRoom`): a key the least gap holds back can start
  // in fewer windows, and the keys before it leave it one. (Placed in their preferred windows
  // first, keys left a wide query the gap held back no slot, and its refill, at once, made a
  // fourth in window 1: seed 2756. Moved ahead of the others instead, keys held back by the few
  // milliseconds their last fill started after its slot swapped windows every tick, and a page
  // read data 3 s old: seed 2.)
  const startable = chosen.map(
    (key) =>
      new Set(
        rule
          .windows(key)
          .filter((index) => canStart(key, index))
          .map((index) => startsIn(key, index)),
      ),
  );
  const refills = chosen.map((key, place) => {
    const order = rule.windows(key);
    const free = (index: number) =>
      used[index]! < fills && used[takes(key, index)]! < fills && canStart(key, index);
    const room = used.map((count) => fills - count);
    const keepsRoom = (index: number) =>
      above || leavesRoom(startable[place]!, startable.slice(place + 1), room, takes(key, index));
    const window = order.find((index) => free(index) && keepsRoom(index)) ?? order.find(free) ?? -1;
    // No free slot that far from the last fill: as soon as allowed (the budget has the last word).
    const startAt = window === -1 ? earliest(key) : startIn(key, window);
    // Counted, and reserved, in the window the budget grants it in (`takes`). (Reserved where it
    // starts, the full window the gap held it back into showed four and the next one too few; a
    // new query took the slot the budget gave the fourth, and the next window's own refill came
    // after the tick: seed 4113.)
    const counted = window === -1 ? undefined : takes(key, window);
    if (counted !== undefined) used[counted]! += 1;
    const windowStart = counted === undefined ? startAt - (startAt % windowMs) : windowStarts[counted]!;
    reserved.set(windowStart, (reserved.get(windowStart) ?? 0) + 1);
    return {
      key: key.key,
      startAt,
      dueBy: rule.dueBy(key, window === -1 ? order[0]! : window),
    };
  });
  // Stable: keys that start together keep the order they were placed in.
  refills.sort((a, b) => a.startAt - b.startAt);
  const stretch = Math.max(1, keys.length / capacity);
  return {
    tick,
    refills,
    stretched,
    stretchedUntil: tick + intervalMs / 2,
    reserved,
    stretch,
    report:
      keys.length === 0
        ? undefined
        : {
            keys: keys.reduce((sum, key) => sum + key.weight, 0),
            groups: keys.length,
            callsPerMinute: Math.round((Math.min(keys.length, capacity) * 60_000) / intervalMs),
            stretch: Math.round(stretch * 100) / 100,
          },
    nextAt: tick + intervalMs / 8,
  };
}
