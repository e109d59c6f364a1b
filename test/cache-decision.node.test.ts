/**
 * `decide`, what a lookup does with a key, as a table: the key's copy (its age against the 3 s
 * interval and the 30 s stale window), what holds its next fill back, when the plan's refill
 * of it is armed, and the time in; the decision out. test/server-*.node.test.ts run the same
 * rules through a real handler.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  awaitedEntry,
  decide,
  plannedRefill,
  servable,
  staleDetail,
  type EntryState,
} from '../src/server/cache/decision.ts';

const NOW = 1_800_000_000_000;
const WINDOWS = { liveTtlMs: 3000, staleWindowMs: 30_000 };

/** A live key with nothing holding it back, its copy fetched `age` ms ago and fresh for `fresh` ms more. */
function entry(age: number | undefined, fresh: number, more: Partial<EntryState> = {}): EntryState {
  const stored = age === undefined ? undefined : { fetchedAt: NOW - age, freshUntil: NOW + fresh };
  return { stored, live: true, failures: 0, retryAt: 0, cooldownUntil: 0, waitingForBudget: false, ...more };
}

describe('decide: what a lookup does with a key', () => {
  const rows: [string, EntryState, ReturnType<typeof decide>][] = [
    ['fresh copy: a hit', entry(1000, 2000), { kind: 'hit' }],
    [
      'fresh copy, even in backoff: a hit',
      entry(1000, 1, { retryAt: NOW + 5000, failures: 2 }),
      { kind: 'hit' },
    ],
    ['fresh until now exactly: no longer a hit', entry(3000, 0), { kind: 'refill' }],
    ['stale copy one interval old: answered stale while it refills', entry(4000, -1000), { kind: 'refill' }],
    ['stale copy past two intervals: waits for first paint', entry(6001, -3001), { kind: 'first-paint' }],
    ['stale copy at two intervals exactly: no wait yet', entry(6000, -3000), { kind: 'refill' }],
    [
      'old copy of a failing key: no first-paint wait',
      entry(10_000, -7000, { failures: 1 }),
      { kind: 'refill' },
    ],
    ['old raw-data copy: no first-paint wait', entry(10_000, -7000, { live: false }), { kind: 'refill' }],
    [
      'stale copy in backoff: stale for the upstream error',
      entry(4000, -1000, { retryAt: NOW + 500 }),
      { kind: 'stale', detail: 'upstream-error' },
    ],
    [
      'stale copy in backoff after an unreadable answer',
      entry(4000, -1000, { retryAt: NOW + 500, invalid: true }),
      { kind: 'stale', detail: 'upstream-invalid' },
    ],
    [
      'stale copy while the host cools down: rate-limited first',
      entry(4000, -1000, { retryAt: NOW + 500, cooldownUntil: NOW + 9000 }),
      { kind: 'stale', detail: 'rate-limited' },
    ],
    [
      'old copy in backoff: stale, not the first-paint wait',
      entry(10_000, -7000, { retryAt: NOW + 1 }),
      { kind: 'stale', detail: 'upstream-error' },
    ],
    ['backoff just over: refills', entry(4000, -1000, { retryAt: NOW }), { kind: 'refill' }],
    [
      "stale copy, the plan's refill armed within half an interval: stale, left to it",
      entry(3400, -400, { plannedRefillAt: NOW + 1499 }),
      { kind: 'stale', detail: 'refreshing' },
    ],
    [
      "stale copy, the plan's refill due and not started yet: stale, left to it",
      entry(3400, -400, { plannedRefillAt: NOW - 5 }),
      { kind: 'stale', detail: 'refreshing' },
    ],
    [
      "stale copy, the plan's refill half an interval away: refills",
      entry(3400, -400, { plannedRefillAt: NOW + 1500 }),
      { kind: 'refill' },
    ],
    [
      "copy past two intervals, the plan's refill armed soon: first paint first",
      entry(6001, -3001, { plannedRefillAt: NOW + 100 }),
      { kind: 'first-paint' },
    ],
    [
      "stale copy in backoff, the plan's refill armed: the backoff is the reason",
      entry(4000, -1000, { retryAt: NOW + 500, plannedRefillAt: NOW + 100 }),
      { kind: 'stale', detail: 'upstream-error' },
    ],
    [
      'copy at the end of the stale window: still served',
      entry(33_000, -30_000, { failures: 1 }),
      { kind: 'refill' },
    ],
    ['copy past the stale window: a fill', entry(33_001, -30_001), { kind: 'fill' }],
    ['no copy: a fill', entry(undefined, 0), { kind: 'fill' }],
    [
      'no copy, in backoff: unavailable until it ends',
      entry(undefined, 0, { retryAt: NOW + 1500 }),
      { kind: 'unavailable', retryAfterMs: 1500 },
    ],
    [
      'no copy, host cooling down longer than the backoff: the later wins',
      entry(undefined, 0, { retryAt: NOW + 1500, cooldownUntil: NOW + 60_000 }),
      { kind: 'unavailable', retryAfterMs: 60_000 },
    ],
    [
      'copy past the stale window, in backoff: unavailable',
      entry(40_000, -37_000, { retryAt: NOW + 200 }),
      { kind: 'unavailable', retryAfterMs: 200 },
    ],
  ];
  for (const [name, state, expected] of rows)
    test(name, () => assert.deepEqual(decide(state, NOW, WINDOWS), expected));
});

describe('staleDetail: why a copy is served stale', () => {
  const rows: [string, Partial<EntryState>, ReturnType<typeof staleDetail>][] = [
    ['a fill is running', {}, 'refreshing'],
    ['a fill waits for a budget slot', { waitingForBudget: true }, 'budget'],
    ['the key backs off', { retryAt: NOW + 1, waitingForBudget: true }, 'upstream-error'],
    ['the key backs off after an unreadable answer', { retryAt: NOW + 1, invalid: true }, 'upstream-invalid'],
    [
      'the host cools down, whatever the key does',
      { cooldownUntil: NOW + 1, retryAt: NOW + 1, invalid: true },
      'rate-limited',
    ],
    ['a cooldown that ended is no reason', { cooldownUntil: NOW, retryAt: NOW }, 'refreshing'],
  ];
  for (const [name, more, expected] of rows)
    test(name, () => assert.equal(staleDetail(entry(4000, -1000, more), NOW), expected));
});

describe('servable: whether a copy may still be served', () => {
  const rows: [string, freshUntil: number, expected: boolean][] = [
    ['fresh', NOW + 1, true],
    ['just run out', NOW, true],
    ['at the end of its stale window', NOW - WINDOWS.staleWindowMs, true],
    ['past it', NOW - WINDOWS.staleWindowMs - 1, false],
  ];
  for (const [name, freshUntil, expected] of rows)
    test(name, () => assert.equal(servable({ freshUntil }, NOW, WINDOWS.staleWindowMs), expected));
});

describe('plannedRefill: what a planned refill does when its timer fires', () => {
  const GAP = 2000;
  const DUE = NOW + 1900;
  /** A copy whose fill started `ago` ms ago, fresh an interval from then. */
  const copy = (ago: number) => ({ startedAt: NOW - ago, freshUntil: NOW - ago + 3000 });
  const rows: [string, { startedAt: number; freshUntil: number }, ReturnType<typeof plannedRefill>][] = [
    ['fresh past its pollers', copy(1000), 'fresh'],
    ['not fresh past them, the gap passed', copy(2500), 'start'],
    ['the gap ends exactly now', copy(2000), 'start'],
    // Seed 4929: another instance's fill, adopted since this instance's plan, 1.24 s before.
    ['not fresh past them, inside the gap', copy(1240), 'held'],
    ['fresh past them and inside the gap', { startedAt: NOW - 100, freshUntil: NOW + 2000 }, 'fresh'],
  ];
  for (const [name, stored, expected] of rows)
    test(name, () => assert.equal(plannedRefill(stored, DUE, NOW, GAP), expected));
});

describe("awaitedEntry: whether a fill waiting for another instance's takes the tier's entry", () => {
  /** An entry fetched `age` ms ago and fresh for `fresh` ms more. */
  const copy = (age: number, fresh: number) => ({ fetchedAt: NOW - age, freshUntil: NOW + fresh });
  const rows: [string, ReturnType<typeof copy> | undefined, { fetchedAt: number } | undefined, boolean][] = [
    ['nothing in the tier yet', undefined, undefined, false],
    ['a fresh entry, no copy here', copy(100, 2900), undefined, true],
    ['a fresh entry newer than the copy it replaces', copy(100, 2900), { fetchedAt: NOW - 4000 }, true],
    ['the copy it replaces, still in the tier', copy(4000, -1000), { fetchedAt: NOW - 4000 }, false],
    ['a fresh entry, yet not newer', copy(100, 2900), { fetchedAt: NOW - 100 }, false],
    // Seed 5867: a restarted instance, no copy of its own, and the tier's entry from before its outage.
    ['an old entry, no copy here', copy(63_000, -60_000), undefined, false],
    ['newer than the copy it replaces, but not fresh', copy(5000, -2000), { fetchedAt: NOW - 9000 }, false],
    ['fresh until now exactly: no longer', copy(3000, 0), undefined, false],
  ];
  for (const [name, entry, replaced, expected] of rows)
    test(name, () => assert.equal(awaitedEntry(entry, replaced, NOW), expected));
});
