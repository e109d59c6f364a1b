/**
 * Upstream calls all clients together may start for one site's queries nobody polls, in any
 * sliding minute: at most `limit` (60 by default), so the queries readers poll keep at least
 * 183 − 60 = 123 of the site's calls in every minute, however many addresses ask. The
 * per-address meter (new-query-meter.ts) stops one address; a script with a new address on every
 * request (IPv6 gives plenty) passes it, and while a site's dashboard was hidden it spent the
 * site's minute, which the dashboard then found full when it came back.
 *
 * "New" is the meter's notion (`FillCache.startsNewQuery`): no servable copy and nobody polling
 * it, so a tab shown again and the queries of open dashboards never count. A dashboard opening
 * on a cold cache does count: 30 or so queries, within the default.
 *
 * A widget asks its query again at the next tick; a one-off never does. So past the cap, a
 * query refused once and asked again at least ¾ of an interval later (as `isEstablished` counts
 * a poll) is let in: a dashboard that opens while a script holds the cap gets its data one tick
 * late instead of never (refused first-come, it lost every freed slot to a script asking five
 * times a second). Its refusal says to ask again in one interval. A script that asks each query
 * twice, that far apart, passes as a widget: the rule costs it twice the requests and a wait, and
 * pinned query shapes (query-shapes.ts) are the defence that does not depend on behaviour.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../runtime/clock.ts';

/** A sliding minute: closed at both ends, as the budget counts it (budget/host-budget.ts). */
const MINUTE_MS = 60_000;
/** Refused queries remembered until asked again (per process; the oldest are forgotten first). */
const REFUSED_KEYS = 10_000;
/** A query asked again more than this many intervals after its refusal is a new ask again. */
const ASKED_AGAIN_WITHIN = 4;

/** The cap: `limit` new queries per `windowMs`; widgets poll every `intervalMs`. */
export interface CapShape {
  limit: number;
  windowMs: number;
  intervalMs: number;
}

/** A new query may start, or waits `waitMs` and its refusal is remembered as made at `refusedAt`. */
export type CapAnswer = { start: true } | { start: false; waitMs: number; refusedAt: number };

/**
 * Whether one more new query may start now, given when the site's new queries started
 * (ascending) and when this query was refused, if it was.
 *
 * Fewer than `limit` in the `windowMs` that ends now: it starts. (A window of a minute and the
 * longest wait for a slot: a query's call is granted at most that wait after its start, or
 * never, so its site's grants for new queries in any sliding minute stay within `limit`.) A query refused at least ¾ of an
 * interval ago, and at most `ASKED_AGAIN_WITHIN` intervals ago, is a widget polling: it starts.
 * Refused sooner, it waits out the rest of the ¾ interval; else this is its first refusal, and
 * it waits one interval.
 */
export function newQueryCap(
  started: readonly number[],
  refusedAt: number | undefined,
  now: number,
  { limit, windowMs, intervalMs }: CapShape,
): CapAnswer {
  const inWindow = started.filter((at) => at >= now - windowMs).length;
  if (inWindow < limit) return { start: true };
  if (refusedAt === undefined || now - refusedAt > ASKED_AGAIN_WITHIN * intervalMs)
    return { start: false, waitMs: intervalMs, refusedAt: now };
  const askedAgainAt = refusedAt + (intervalMs * 3) / 4;
  return now >= askedAgainAt ? { start: true } : { start: false, waitMs: askedAgainAt - now, refusedAt };
}

export class NewQuerySiteCap {
  readonly #shape: CapShape;
  readonly #clock: Clock;
  /** Per site, when its new queries started within the window. */
  readonly #started = new Map<string, number[]>();
  /** Per cache key, when it was refused (its site's name is in the key). */
  readonly #refused = new LRUCache<string, number>({ max: REFUSED_KEYS });

  /**
   * `limit`: this process's share of the site's cap (the cap divided between the instances that
   * share a budget); `maxWaitMs`: how long a fill may wait for its budget slot; `intervalMs`: how
   * often widgets poll.
   */
  constructor(limit: number, maxWaitMs: number, intervalMs: number, clock: Clock) {
    this.#shape = { limit: Math.max(1, Math.floor(limit)), windowMs: MINUTE_MS + maxWaitMs, intervalMs };
    this.#clock = clock;
  }

  /**
   * `undefined` when `key`, a new query of `site`, may start its upstream call now (call
   * `count` once it does), else how long to wait; a refusal is remembered.
   */
  refusal(site: string, key: string): number | undefined {
    const answer = newQueryCap(
      this.#started.get(site) ?? [],
      this.#refused.get(key),
      this.#clock.now(),
      this.#shape,
    );
    if (answer.start) return undefined;
    this.#refused.set(key, answer.refusedAt);
    return answer.waitMs;
  }

  /** Counts `key`, a new query of `site`, started now; what has left the window is forgotten. */
  count(site: string, key: string): void {
    const now = this.#clock.now();
    const started = (this.#started.get(site) ?? []).filter((at) => at >= now - this.#shape.windowMs);
    started.push(now);
    this.#started.set(site, started.slice(-this.#shape.limit));
    this.#refused.delete(key);
  }
}
