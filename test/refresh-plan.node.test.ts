/**
 * `planRefills`, the refresh plan as a pure function, as a table: the time, the budget's shape
 * (3 fills per 1 s window, 3 windows per 3 s interval: 9 slots) and the host's keys in, the
 * refills (the budget window before the tick each starts in), the stretched keys and the report
 * out. test/refresh-schedule.node.test.ts runs the plan on a clock, tick after tick.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ON_TIME } from '../src/server/plan/poller-lateness.ts';
import { planRefills, type PlannedKey, type PlanInput } from '../src/server/plan/refresh-plan.ts';

const INTERVAL = 3000;
const WINDOW = 1000;
const LEAD = 250;
/** A tick of the 3 s grid; plans are made an eighth of an interval after the one before it. */
const TICK = 1_800_000_000_000;
const AT = TICK - INTERVAL + INTERVAL / 8;

/** `count` keys filled together two ticks ago (a millisecond apart, the lower index first): due. */
function keys(
  count: number,
  change: (key: PlannedKey, index: number) => Partial<PlannedKey> = () => ({}),
): PlannedKey[] {
  return Array.from({ length: count }, (_, index) => {
    const key: PlannedKey = {
      key: `k${String(index).padStart(2, '0')}`,
      weight: 1,
      startedAt: TICK - 6000 + index,
      freshUntil: TICK - 3000 + index,
      established: true,
      filling: false,
      pollers: ON_TIME,
    };
    return { ...key, ...change(key, index) };
  });
}

const input = (planned: PlannedKey[], more: Partial<PlanInput> = {}): PlanInput => ({
  at: AT,
  intervalMs: INTERVAL,
  windowMs: WINDOW,
  fills: 3,
  lead: LEAD,
  keys: planned,
  refreshed: new Map(),
  ...more,
});

/**
 * Each refill, in the order they start, as `key@window`, the window counted back from the tick
 * (0: the slot that ends at the tick, less the lead), `key@window-<ms>` when it starts that long
 * before its window's slot (a later turn), or `key@<ms from the tick>` when it starts off the
 * windows' slots.
 */
function slots(planned: PlanInput): string[] {
  const plan = planRefills(planned);
  return plan.refills.map(({ key, startAt }) => {
    const before = plan.tick - planned.lead - startAt;
    const window = Math.floor(before / WINDOW);
    const early = before % WINDOW;
    if (window < 0 || early >= WINDOW - planned.lead) return `${key}@${startAt - plan.tick}ms`;
    return early === 0 ? `${key}@${window}` : `${key}@${window}-${early}ms`;
  });
}

/** The plan's reservations, as [window counted back from the tick, refills], the earliest window first. */
function reservations(plan: { reserved: ReadonlyMap<number, number> }): [number, number][] {
  return [...plan.reserved]
    .map(([start, count]): [number, number] => [(TICK - WINDOW - start) / WINDOW, count])
    .sort(([a], [b]) => b - a);
}

describe('planRefills: which keys are refilled before the tick, and in which window', () => {
  const cases: { name: string; input: PlanInput; refills: string[]; stretched?: string[] }[] = [
    {
      name: 'under the budget, the keys with most pollers in the last window, then by name',
      input: input(keys(6, (_, index) => ({ weight: index < 3 ? 1 : 5 }))),
      refills: ['k00@1', 'k01@1', 'k02@1', 'k03@0-50ms', 'k04@0-50ms', 'k05@0-50ms'],
    },
    {
      name: "a key still fresh when the tick's pollers come is not due",
      input: input(keys(3, (_, index) => (index === 1 ? { freshUntil: TICK + INTERVAL } : {}))),
      refills: ['k00@0-50ms', 'k02@0-50ms'],
    },
    {
      // Its page's clock runs 1 s behind: the window that ends 1 s after the tick before (the
      // plan's earliest) lands just before that page polls, and is fresh until it polls again.
      name: 'a key whose poller comes 1 s after the tick takes the window ending 1 s after the tick before',
      input: input(keys(3, (_, index) => (index === 1 ? { pollers: { earliest: 1000, latest: 1000 } } : {}))),
      refills: ['k01@2-50ms', 'k00@0-50ms', 'k02@0-50ms'],
    },
    {
      // Refilled off the plan when its page polled after the tick before: fresh past the
      // earliest window's pollers, not past the next poll. The window after serves that one.
      name: 'a key whose poller comes 1 s after the tick, fresh past its poll before it: due in a later window',
      input: input(
        keys(3, (_, index) =>
          index === 1
            ? { pollers: { earliest: 1000, latest: 1000 }, freshUntil: TICK - INTERVAL + 1800 }
            : {},
        ),
      ),
      refills: ['k00@0-50ms', 'k02@0-50ms', 'k01@0'],
    },
    {
      name: 'a key whose poller comes 1 s after the tick is not due while its answer outlasts its poll after the tick',
      input: input(
        keys(3, (_, index) =>
          index === 1 ? { pollers: { earliest: 1000, latest: 1000 }, freshUntil: TICK + 1800 } : {},
        ),
      ),
      refills: ['k00@0-50ms', 'k02@0-50ms'],
    },
    {
      // Window 0 serves both: the poller on time 0.4 s after the refill starts, the late one 1.4 s.
      // Window 2 would leave the one on time data 2.4 s old.
      name: 'a key polled on time and 1 s late keeps the last window before the tick',
      input: input(keys(3, (_, index) => (index === 1 ? { pollers: { earliest: 0, latest: 1000 } } : {}))),
      refills: ['k00@0-50ms', 'k01@0-50ms', 'k02@0-50ms'],
    },
    {
      // Polled on time and 1.7 s late, k03 reads fresh only from the last window before the
      // tick; the keys on time read fresh from any, so one of them gives its place up.
      name: 'the key with the fewest fresh windows chooses first, before keys with more pollers',
      input: input(
        keys(4, (_, index) => (index === 3 ? { pollers: { earliest: 228, latest: 1737 } } : { weight: 5 })),
      ),
      refills: ['k02@1', 'k00@0-50ms', 'k01@0-50ms', 'k03@0'],
    },
    {
      name: 'a key already refilled for this tick by a plan before is not due',
      input: input(keys(3), { refreshed: new Map([['k02', TICK]]) }),
      refills: ['k00@0-50ms', 'k01@0-50ms'],
    },
    {
      // Its fill (started by a poller after the last tick, or queued since) lands fresh only
      // until just past this tick: the tick's later pollers would find it stale.
      name: 'a key filling now counts as refilled now: due, in a slot the least gap after now',
      input: input(
        keys(2, (_, index) => (index === 0 ? { filling: true, pollers: { earliest: 0, latest: 375 } } : {})),
      ),
      refills: ['k00@0-50ms', 'k01@0-50ms'],
    },
    {
      // Left out of the plan, it was neither refilled nor stretched, and a poller late in the
      // tick refilled it off the plan every tick (seed 88: wide queries every 3 s, the others 8).
      name: 'above the budget, a key filling now is the freshest: last in the round-robin, stretched',
      input: input(
        keys(12, (_, index) => (index === 0 ? { filling: true, pollers: { earliest: 0, latest: 375 } } : {})),
      ),
      refills: [
        'k01@2-500ms',
        'k02@2-250ms',
        'k03@1-500ms',
        'k04@1-250ms',
        'k05@1',
        'k06@0-500ms',
        'k07@0-250ms',
        'k08@0',
      ],
      stretched: ['k09', 'k10', 'k11', 'k00'],
    },
    {
      name: 'a refill for an older tick does not hold the key back',
      input: input(keys(1), { refreshed: new Map([['k00', TICK - INTERVAL]]) }),
      refills: ['k00@0-50ms'],
    },
    {
      // In turn, a quarter of a second apart: started together, the order their fills began in
      // was not their staleness, and the next plan's cut went through a window's keys alike
      // every tick (seed 254: 5 keys refreshed every 5 s, 12 every 6 s).
      name: 'above the budget, the 9 stalest in 9 slots, the stalest in the earliest window and first in each; the rest stretched',
      input: input(keys(12)),
      refills: [
        'k00@2-500ms',
        'k01@2-250ms',
        'k02@2',
        'k03@1-500ms',
        'k04@1-250ms',
        'k05@1',
        'k06@0-500ms',
        'k07@0-250ms',
        'k08@0',
      ],
      stretched: ['k09', 'k10', 'k11'],
    },
    {
      name: 'above the budget, fills of the window under way hold its slots: 3 this second, so 6 slots',
      input: input(
        keys(12, (_, index) =>
          index >= 9
            ? { startedAt: AT - 100, freshUntil: AT - 100 + INTERVAL, pollers: { earliest: 0, latest: 300 } }
            : {},
        ),
      ),
      refills: ['k00@1-500ms', 'k01@1-250ms', 'k02@1', 'k03@0-500ms', 'k04@0-250ms', 'k05@0'],
      stretched: ['k06', 'k07', 'k08', 'k09', 'k10', 'k11'],
    },
    {
      // Re-planned 1.1 s before the tick: k01 was filled 2.1 s before it (its answer then failed
      // to freshen it), and two fills of one key are at least two thirds of an interval apart.
      name: 'a key filled less than the least gap before its slot starts as soon as the gap allows',
      input: input(
        keys(2, (_, index) => (index === 1 ? { startedAt: TICK - 2100, freshUntil: TICK - 100 } : {})),
        { at: TICK - 1100 },
      ),
      refills: ['k00@0-50ms', 'k01@-100ms'],
    },
    {
      // k03's backoff ends 10 ms after its slot in window 1 would start: it starts then, off the
      // windows' slots. (Started in its slot, inside the backoff, the refill was dropped, and the
      // page's next poll read a copy 147 s old: seed 986.)
      name: "a refill does not start inside its key's backoff",
      input: input(keys(4, (_, index) => (index < 3 ? { weight: 5 } : { retryAt: TICK - 1240 }))),
      refills: ['k03@-1240ms', 'k00@0-50ms', 'k01@0-50ms', 'k02@0-50ms'],
    },
    {
      // k06 was filled 3.6 s before the tick: the least gap holds its refill to 1.6 s before it,
      // in window 1 whether it takes window 1 or 2, so it can take windows 0 and 1, and the keys
      // before it leave it a slot in window 1: k05 takes window 2. (Placed in window 2 and
      // started in window 1, it made window 1's fourth refill, and the budget pushed window 0's
      // last one past the tick: seed 2756.)
      name: 'the keys before a key the least gap holds back leave it a slot in a window it can start in',
      input: input(
        keys(7, (_, index) =>
          index === 6 ? { startedAt: TICK - 3600, freshUntil: TICK - 600 } : { weight: 5 },
        ),
      ),
      refills: ['k05@2', 'k03@1', 'k04@1', 'k06@1', 'k00@0-50ms', 'k01@0-50ms', 'k02@0-50ms'],
    },
    {
      // Five keys a page 2 s late polls, all filled 4 s before the tick (a cold start): none may
      // start before 2 s before it, in window 1, which has three slots. The two that choose it
      // last start with the others, counted in window 0: the budget grants them there, or at
      // once while the minute may burst, and the page's next poll reads all five fresh.
      name: 'a refill held back into a full window counts in the next one with room',
      input: input(
        keys(5, () => ({
          startedAt: TICK - 4000,
          freshUntil: TICK - 1000,
          pollers: { earliest: 2000, latest: 2000 },
        })),
      ),
      refills: ['k03@-2000ms', 'k04@-2000ms', 'k00@1-50ms', 'k01@1-50ms', 'k02@1-50ms'],
    },
    {
      // Its backoff lasts past the tick: k03 keeps the slot it has without one, so its window
      // stays reserved for when the service answers again (seed 367), and the plan's refills all
      // start before the tick.
      name: 'a key whose backoff lasts past the tick keeps its slot',
      input: input(keys(4, (_, index) => (index < 3 ? { weight: 5 } : { retryAt: TICK + 5000 }))),
      refills: ['k03@1', 'k00@0-50ms', 'k01@0-50ms', 'k02@0-50ms'],
    },
    {
      // Made 0.6 s before the tick (a poll re-planned the site): only the last window is open.
      name: 'under the budget, a plan made after two windows passed refills 3 and stretches none',
      input: input(keys(6), { at: TICK - 600 }),
      refills: ['k00@0-50ms', 'k01@0-50ms', 'k02@0-50ms'],
    },
  ];
  for (const { name, input: planned, refills, stretched = [] } of cases) {
    test(name, () => {
      assert.deepEqual(slots(planned), refills);
      assert.deepEqual(planRefills(planned).stretched, stretched);
    });
  }
});

describe('planRefills: the tick, the stretch and the report', () => {
  test('the tick is the next one a refill can still reach: past its lead, the one after', () => {
    assert.equal(planRefills(input(keys(1))).tick, TICK);
    assert.equal(planRefills(input(keys(1), { at: TICK - LEAD })).tick, TICK + INTERVAL);
    assert.equal(planRefills(input(keys(1), { at: TICK - LEAD - 1 })).tick, TICK);
  });

  const reports: [string, PlanInput, ReturnType<typeof planRefills>['report'], number][] = [
    [
      '6 keys of 18 pollers fit: 120 calls a minute, no stretch',
      input(keys(6, (_, index) => ({ weight: index < 3 ? 1 : 5 }))),
      { keys: 18, groups: 6, callsPerMinute: 120, stretch: 1 },
      1,
    ],
    [
      '18 keys for 9 slots: 180 calls a minute, every key refreshed every other tick',
      input(keys(18)),
      { keys: 18, groups: 18, callsPerMinute: 180, stretch: 2 },
      2,
    ],
    ['no established key: no report, no stretch', input([]), undefined, 1],
  ];
  for (const [name, planned, report, stretch] of reports) {
    test(name, () => {
      const plan = planRefills(planned);
      assert.deepEqual(plan.report, report);
      assert.equal(plan.stretch, stretch);
    });
  }

  test('stretched keys are fresh until half an interval past the tick, whoever polls them; the next plan an eighth after it; reservations per window', () => {
    // Above the budget, a round-robin: a key a late page polls waits its turn like the others.
    const plan = planRefills(
      input(keys(11, (_, index) => (index === 10 ? { pollers: { earliest: 0, latest: 1000 } } : {}))),
    );
    assert.deepEqual(plan.stretched, ['k09', 'k10']);
    assert.equal(plan.stretchedUntil, TICK + INTERVAL / 2);
    assert.equal(plan.nextAt, TICK + INTERVAL / 8);
    assert.deepEqual(new Set(plan.refills.map((refill) => refill.dueBy)), new Set([TICK + INTERVAL / 4]));
    assert.deepEqual(reservations(plan), [
      [2, 3],
      [1, 3],
      [0, 3],
    ]);
  });

  test('a refill held back into a full window is reserved in the window it counts in', () => {
    // The case 'a refill held back into a full window counts in the next one with room': k03 and
    // k04 start in window 1 with its three, and the budget grants them in window 0. Reserved
    // where they start, they left window 0's slots to new queries, which took the slots the
    // budget gave them. (Seed 4113: the refill planned in that window came after the tick.)
    const plan = planRefills(
      input(
        keys(5, () => ({
          startedAt: TICK - 4000,
          freshUntil: TICK - 1000,
          pollers: { earliest: 2000, latest: 2000 },
        })),
      ),
    );
    assert.deepEqual(reservations(plan), [
      [2, 0],
      [1, 3],
      [0, 2],
    ]);
  });

  test('every window of the plan has a reservation, 0 where it left the window to new queries', () => {
    const plan = planRefills(input(keys(6)));
    assert.deepEqual(reservations(plan), [
      [2, 0],
      [1, 3],
      [0, 3],
    ]);
  });
});
