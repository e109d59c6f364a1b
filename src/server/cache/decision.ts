/**
 * What a lookup does with a key, decided from the key's state and the time alone: no I/O, no
 * clock (the time is an argument), so every case is a row of a table
 * (test/cache-decision.node.test.ts). The cache acts on the answer (key-lookup.ts).
 */
import type { CacheStatus, StaleDetail, StoredResponse } from '../../runtime/stored-response.ts';

/** A key as a lookup sees it: its stored copy, if any, and what holds its next fill back. */
export interface EntryState {
  stored: Pick<StoredResponse, 'freshUntil' | 'fetchedAt'> | undefined;
  /** A live route (quickstats, toppages…): its copies age by the interval; raw data does not wait for first paint. */
  live: boolean;
  /** Failed fills in a row: a failing upstream is not worth the first-paint wait. */
  failures: number;
  /** No fill for this key before then (its backoff). */
  retryAt: number;
  /** No fill for the key's host before then (the upstream's rate limit). */
  cooldownUntil: number;
  /** The last fill's answer could not be read. */
  invalid?: boolean;
  /** A fill is queued for a budget slot. */
  waitingForBudget: boolean;
  /** When the refresh plan's refill of the key is armed to start, if it is. */
  plannedRefillAt?: number;
}

/** The cache's windows, from its options. */
export interface Windows {
  /** How long a live answer is fresh (the interval). */
  liveTtlMs: number;
  /** How long past fresh a copy is still served, as stale. */
  staleWindowMs: number;
}

export type Decision =
  /** Fresh: answer the copy. */
  | { kind: 'hit' }
  /**
   * Not fresh, and no fill may start (backoff or cooldown) or the plan's refill starts soon:
   * answer the copy as stale, for this reason.
   */
  | { kind: 'stale'; detail: StaleDetail }
  /**
   * Not fresh: start a fill in the background and answer the copy as stale at once. Its reason is
   * read once the fill started (`staleDetail`), since starting it may queue it for the budget.
   */
  | { kind: 'refill' }
  /** A copy older than two intervals of a healthy live key: wait a moment for the fill (first paint), else answer the copy as stale. */
  | { kind: 'first-paint' }
  /** Nothing servable and nothing holds a fill back: wait for one. */
  | { kind: 'fill' }
  /** Nothing servable and no fill may start: 503 (or 502 when the last answer was unreadable). */
  | { kind: 'unavailable'; retryAfterMs: number };

/**
 * Whether a copy may still be served: fresh, or stale until its stale window ends (then it is
 * gone, and a poll waits for a fill or is refused).
 */
export const servable = (
  stored: Pick<StoredResponse, 'freshUntil'>,
  now: number,
  staleWindowMs: number,
): boolean => now <= stored.freshUntil + staleWindowMs;

export function decide(entry: EntryState, now: number, windows: Windows): Decision {
  const { stored } = entry;
  if (stored && now < stored.freshUntil) return { kind: 'hit' };
  const blockedUntil = Math.max(entry.retryAt, entry.cooldownUntil);
  if (stored && servable(stored, now, windows.staleWindowMs)) {
    if (blockedUntil > now) return { kind: 'stale', detail: staleDetail(entry, now) };
    // Fresh at first paint: a copy older than two intervals is worth a short wait while the upstream is healthy.
    if (entry.live && entry.failures === 0 && now - stored.fetchedAt > 2 * windows.liveTtlMs)
      return { kind: 'first-paint' };
    // The plan's refill starts within half an interval: the poll leaves the refill to it. (Started
    // now, off the plan, the refill came as the copy ran out at the page's next poll, and the
    // planned one fell inside the least gap after it, tick after tick: seed 1051.)
    if (entry.plannedRefillAt !== undefined && entry.plannedRefillAt - now < windows.liveTtlMs / 2)
      return { kind: 'stale', detail: 'refreshing' };
    return { kind: 'refill' };
  }
  if (blockedUntil > now) return { kind: 'unavailable', retryAfterMs: blockedUntil - now };
  return { kind: 'fill' };
}

/** Why a copy is served stale: the host's rate limit first, then the key's backoff, then a queued or running fill. */
export function staleDetail(
  entry: Omit<EntryState, 'stored' | 'live' | 'failures'>,
  now: number,
): StaleDetail {
  if (entry.cooldownUntil > now) return 'rate-limited';
  if (entry.retryAt > now) return entry.invalid ? 'upstream-invalid' : 'upstream-error';
  return entry.waitingForBudget ? 'budget' : 'refreshing';
}

/** What a lookup answers, once the cache acted on its decision. */
export type Lookup =
  | { kind: 'stored'; stored: StoredResponse; status: CacheStatus }
  | {
      kind: 'unavailable';
      retryAfterMs: number;
      invalid: boolean;
      /** What happened, as a stale copy answering instead says it (`rate-limited`: the site cools down). */
      detail: StaleDetail;
    };

/** What a planned refill does when its timer fires (`Filler.refreshPlanned`). */
export type PlannedRefill = 'start' | 'fresh' | 'held';

/**
 * A planned refill starts unless the copy is fresh past `dueBy` (when the pollers it serves
 * come: another fill served them since the plan), or is `held` by the least gap: its fill
 * started less than that ago.
 */
export function plannedRefill(
  stored: Pick<StoredResponse, 'startedAt' | 'freshUntil'>,
  dueBy: number,
  now: number,
  minGapMs: number,
): PlannedRefill {
  if (stored.freshUntil > dueBy) return 'fresh';
  return now - stored.startedAt < minGapMs ? 'held' : 'start';
}

/**
 * Whether a fill waiting for another instance's takes the tier's entry as that fill: only a
 * fresh one newer than the copy it replaces. (A restarted instance with no copy took the tier's
 * 63 s old entry, written before the tier went away, for the fill it waited for, and its pollers
 * were answered it as a miss with `max-age=0`: seed 5867. Waited on past it, the fill ends in
 * the other instance's fresh entry or at `maxWaitMs`, where the lookup answers the tier's copy
 * as stale.)
 */
export function awaitedEntry<Entry extends Pick<StoredResponse, 'fetchedAt' | 'freshUntil'>>(
  entry: Entry | undefined,
  replaced: Pick<StoredResponse, 'fetchedAt'> | undefined,
  now: number,
): entry is Entry {
  return entry !== undefined && entry.fetchedAt > (replaced?.fetchedAt ?? 0) && now < entry.freshUntil;
}
