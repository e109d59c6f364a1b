/**
 * When a key's pollers come, and which budget window its refill takes for them. Pure decisions
 * for the refresh plan (refresh-plan.ts).
 *
 * Pages poll on their own clock's 3 s grid: a page whose clock runs behind the server's polls
 * that much after every tick. A refill in the last window before the tick is fresh until just
 * before the next one, so a page 1 s late found it run out at its poll, refilled it off the
 * plan, and read stale answers 88 times in 90 (the plan took that fill as fresh enough for the
 * tick and skipped it). So each key's refill takes a window whose answer all its pollers read
 * fresh, landed and not run out, the one they read youngest first: for pages on time that is
 * the last window before the tick, as before; for a page 1 s late, the window that ends 1 s
 * after the tick before.
 */

/** How long after the tick a key's earliest and latest pollers come: 0 and 0 on time. */
export interface PollerLateness {
  earliest: number;
  latest: number;
}

export const ON_TIME: PollerLateness = { earliest: 0, latest: 0 };

/** The step a poll's lateness is counted in: a tenth of a second. */
const LATENESS_STEP = 100;

/**
 * How long after the tick a poll at `at` comes, to a tenth of a second (instances tell one
 * another this, one tier member per page, and a page's polls keep its bound up only if they
 * count alike). A poll in the last eighth of an interval before a tick is early for that tick
 * (a clock a little ahead), not late for the one before.
 */
export function pollLateness(at: number, intervalMs: number): number {
  const phase = at % intervalMs;
  return phase < intervalMs - intervalMs / 8 ? Math.round(phase / LATENESS_STEP) * LATENESS_STEP : 0;
}

/** One bound of a key's pollers' lateness, and when a poll that early (or late) last came. */
export interface LatenessSeen {
  lateBy: number;
  at: number;
}

export interface PollsSeen {
  earliest: LatenessSeen;
  latest: LatenessSeen;
}

/** How long a bound of a key's pollers holds without a poll that early (or late): an interval, and an eighth for timers. */
const heldMs = (intervalMs: number) => intervalMs + intervalMs / 8;

/**
 * The key's pollers after a poll `lateBy` late at `at` (here, or told by another instance): the
 * earliest and the latest in about the last interval. A page keeps its bound up by polling
 * every interval; once it stops, the next poll sets that bound afresh.
 */
export function afterPoll(
  previous: PollsSeen | undefined,
  lateBy: number,
  at: number,
  intervalMs: number,
): PollsSeen {
  const seen = { lateBy, at };
  const keep = (kept: LatenessSeen | undefined, beaten: (kept: LatenessSeen) => boolean) =>
    kept && !beaten(kept) && at - kept.at <= heldMs(intervalMs) ? kept : seen;
  return {
    earliest: keep(previous?.earliest, (kept) => lateBy <= kept.lateBy),
    latest: keep(previous?.latest, (kept) => lateBy >= kept.lateBy),
  };
}

/**
 * The key's pollers as a plan made at `now` counts them: a bound no poll has kept up lately is
 * dropped (an instance no longer asked for a key kept a page's first poll, made off its grid
 * when it opened, and planned for it for minutes); with neither, on time.
 */
export function pollersAt(seen: PollsSeen | undefined, now: number, intervalMs: number): PollerLateness {
  const held = (bound: LatenessSeen | undefined) =>
    bound && now - bound.at <= heldMs(intervalMs) ? bound.lateBy : undefined;
  const earliest = held(seen?.earliest);
  const latest = held(seen?.latest);
  if (earliest === undefined && latest === undefined) return ON_TIME;
  return { earliest: earliest ?? latest!, latest: latest ?? earliest! };
}

/** How much a page's polls wander around its grid (timers, the network): a thirtieth of an interval, 100 ms. */
const pollJitter = (intervalMs: number) => intervalMs / 30;

/** What the choice of a window needs: the interval, the budget's windows, and the refill's lead. */
export interface WindowShape {
  intervalMs: number;
  windowMs: number;
  /** Windows per interval; window `index` ends `index` windows before the tick. */
  windows: number;
  /** How long before its window ends a refill starts. */
  lead: number;
}

/** How long a refill takes to land, at most: its lead is 1.5 upstream latencies and 100 ms. */
const landingMs = (lead: number) => (lead * 2) / 3;

/**
 * How long after window `index`'s refill starts a poller `lateBy` late comes: the age of the
 * answer it reads then, once that refill has landed.
 */
export const sinceRefill = (
  lateBy: number,
  index: number,
  { intervalMs, windowMs, lead }: WindowShape,
): number => (lateBy + index * windowMs + lead) % intervalMs;

/** The youngest answer the key's earliest and latest pollers read from window `index`'s refills. */
const firstRead = (pollers: PollerLateness, index: number, shape: WindowShape): number =>
  Math.min(sinceRefill(pollers.earliest, index, shape), sinceRefill(pollers.latest, index, shape));

/** The oldest answer the key's earliest and latest pollers read from window `index`'s refills. */
const oldestRead = (pollers: PollerLateness, index: number, shape: WindowShape): number =>
  Math.max(sinceRefill(pollers.earliest, index, shape), sinceRefill(pollers.latest, index, shape));

/** How long a refill of window `index` may start late and still land before the first of the key's pollers after it. */
export const slackAfterSlot = (pollers: PollerLateness, index: number, shape: WindowShape): number =>
  firstRead(pollers, index, shape) - landingMs(shape.lead);

/** How much sooner than counted a poll may come: its lateness is rounded to the nearest step. */
const ROUNDED_BY = LATENESS_STEP / 2;

/**
 * How much sooner than its slot window `index`'s refill starts, so that it starts a whole lead
 * before the first of the key's pollers after the slot, as counted less `ROUNDED_BY`; not
 * before the window begins. (From its slot, a page polling 38 ms before the window's end,
 * 1.962 s after the tick and counted as 2 s, met a refill 362 ms old, and an answer 363 ms slow
 * landed after the poll: seed 1762.)
 */
export const startSooner = (pollers: PollerLateness, index: number, shape: WindowShape): number =>
  Math.max(
    0,
    Math.min(shape.windowMs - shape.lead, shape.lead + ROUNDED_BY - firstRead(pollers, index, shape)),
  );

/**
 * The windows whose refills every poller of the key reads fresh, the one whose answer they read
 * youngest first: each comes after a refill has landed (a poller during the landing reads the
 * answer before it, an interval old) and before its answer, started sooner if need be
 * (`startSooner`), runs out.
 */
export function freshWindows(pollers: PollerLateness, shape: WindowShape): number[] {
  const fresh = (index: number) =>
    slackAfterSlot(pollers, index, shape) >= 0 &&
    oldestRead(pollers, index, shape) + startSooner(pollers, index, shape) + pollJitter(shape.intervalMs) <
      shape.intervalMs;
  return Array.from({ length: shape.windows }, (_, index) => index)
    .filter(fresh)
    .sort((a, b) => oldestRead(pollers, a, shape) - oldestRead(pollers, b, shape));
}

/** The windows in the order a key's refill takes them: the fresh ones, then the others from the tick back. */
export function windowOrder(pollers: PollerLateness, shape: WindowShape): number[] {
  const fresh = freshWindows(pollers, shape);
  const rest = Array.from({ length: shape.windows }, (_, index) => index).filter(
    (index) => !fresh.includes(index),
  );
  return [...fresh, ...rest];
}

/**
 * Until when a refill in window `index` for `tick` must find the stored answer fresh to be
 * skipped: when the last poller it serves comes, and its timers' jitter. The same margin
 * judges a window fresh (`freshWindows`), so a refill in a fresh window leaves its key not due:
 * with a quarter of an interval, a refill two windows before the tick was due again at once,
 * and another instance's slot for the key in a later window refilled it a second time.
 */
export const dueBy = (tick: number, index: number, pollers: PollerLateness, shape: WindowShape): number =>
  tick -
  index * shape.windowMs -
  shape.lead +
  oldestRead(pollers, index, shape) +
  pollJitter(shape.intervalMs);
