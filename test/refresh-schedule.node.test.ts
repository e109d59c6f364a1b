/**
 * The per-host refresh plan on a mocked clock (node:test mock timers move Date.now and
 * setTimeout together): which keys are refilled before a tick, in which budget window, and how
 * freshness stretches past the budget.
 */
import assert from 'node:assert/strict';
import { ON_TIME } from '../src/server/plan/poller-lateness.ts';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { realClock } from '../src/runtime/clock.ts';
import {
  isEstablished,
  newQuerySlots,
  occupiedSlots,
  polledInTwoTicks,
  type HostPlan,
  type PlannedKey,
} from '../src/server/plan/refresh-plan.ts';
import { RefreshSchedule } from '../src/server/plan/refresh-schedule.ts';

const INTERVAL = 3000;
const WINDOW = 1000;
const LEAD = 250;
/** A tick of the 3 s grid, plus the eighth of an interval after it when each plan is made. */
const T0 = 1_800_000_000_000;

interface Fake {
  keys: Map<string, PlannedKey>;
  refreshed: { key: string; at: number }[];
  stretched: Map<string, number>;
  plans: (HostPlan | undefined)[];
  schedule: RefreshSchedule;
}

interface HostShape {
  /** Pollers of each key, by index: 1 unless told. */
  weight?: (index: number) => number;
  /** How long after its refill's timer a key's upstream call starts (lease and budget round trips): 0 unless told. */
  delay?: (key: string) => number;
  /** How long before its slot ends a refill starts: `LEAD` unless told. */
  lead?: number;
}

/** A host of `count` keys. */
function plan(count: number, { weight = () => 1, delay = () => 0, lead = LEAD }: HostShape = {}): Fake {
  const keys = new Map<string, PlannedKey>();
  for (let index = 0; index < count; index += 1) {
    const key = `k${String(index).padStart(2, '0')}`;
    // Filled together two ticks ago (a millisecond apart, the lower index first); due for this tick.
    keys.set(key, {
      key,
      weight: weight(index),
      startedAt: T0 - 6000 + index,
      freshUntil: T0 - LEAD,
      established: true,
      filling: false,
      pollers: ON_TIME,
    });
  }
  const fake: Fake = { keys, refreshed: [], stretched: new Map(), plans: [], schedule: undefined! };
  fake.schedule = new RefreshSchedule({
    intervalMs: INTERVAL,
    windowMs: WINDOW,
    fills: 3,
    // The real clock's timers and time, both mocked by node:test below.
    clock: realClock,
    polled: () => [...keys.values()],
    lead: () => lead,
    refresh: (key, dueBy, tick) => {
      assert.ok(dueBy > Date.now(), "a refill starts before its tick's pollers come");
      assert.ok(tick % INTERVAL === 0 && tick > Date.now() && tick <= dueBy, 'it is told the tick it serves');
      fake.refreshed.push({ key, at: Date.now() });
      const entry = keys.get(key)!;
      const startedAt = Date.now() + delay(key);
      Object.assign(entry, { startedAt, freshUntil: startedAt + INTERVAL });
    },
    stretch: (key, until) => {
      fake.stretched.set(key, until);
      keys.get(key)!.freshUntil = until;
    },
    report: (_host, current) => fake.plans.push(current),
  });
  return fake;
}

/** Moves the mocked clock a millisecond at a time: a timer sees Date.now() at its own due time. */
function advance(ms: number): void {
  for (let step = 0; step < ms; step += 1) mock.timers.tick(1);
}

/** How many refills each key had, in the order of the host's keys. */
const refillsPerKey = (fake: Fake) =>
  [...fake.keys.keys()].map((key) => fake.refreshed.filter((refresh) => refresh.key === key).length);

/** The budget window (0 = the last second before the tick) each refresh started in. */
const windowsBefore = (tick: number, refreshed: Fake['refreshed']) =>
  refreshed.map(({ at }) => Math.floor((tick - at) / WINDOW));

describe('refresh plan', () => {
  beforeEach(() =>
    mock.timers.enable({ apis: ['setTimeout', 'setImmediate', 'Date'], now: T0 - 3000 + 375 }),
  );
  afterEach(() => mock.timers.reset());

  test('6 keys: the 3 with most pollers in the last second before the tick, the other 3 the second before', () => {
    const fake = plan(6, { weight: (index) => (index < 3 ? 1 : 5) });
    fake.schedule.watch('example.com');
    advance(3000 - 375);
    fake.schedule.close();
    assert.equal(fake.refreshed.length, 6);
    assert.ok(
      fake.refreshed.every(({ at }) => at < T0),
      'every refill starts before the tick',
    );
    const byKey = new Map(fake.refreshed.map(({ key, at }) => [key, Math.floor((T0 - at) / WINDOW)]));
    assert.deepEqual(
      ['k03', 'k04', 'k05'].map((key) => byKey.get(key)),
      [0, 0, 0],
      'heavy keys land last, freshest',
    );
    assert.deepEqual(
      ['k00', 'k01', 'k02'].map((key) => byKey.get(key)),
      [1, 1, 1],
    );
    assert.deepEqual(fake.plans[0], { keys: 18, groups: 6, callsPerMinute: 120, stretch: 1 });
  });

  test('9 keys fill the three windows, 3 each, and keep their slots tick after tick', () => {
    const fake = plan(9);
    fake.schedule.watch('example.com');
    advance(3000 - 375);
    const first = new Map(fake.refreshed.map(({ key, at }) => [key, T0 - at]));
    assert.deepEqual(windowsBefore(T0, fake.refreshed).sort(), [0, 0, 0, 1, 1, 1, 2, 2, 2]);
    fake.refreshed.length = 0;
    advance(3000);
    fake.schedule.close();
    assert.equal(fake.refreshed.length, 9, 'each key once a tick');
    for (const { key, at } of fake.refreshed)
      assert.equal(T0 + 3000 - at, first.get(key), `${key} kept its slot`);
  });

  test('12 keys, 9 slots: the stalest 9 go, the other 3 are stretched to the next tick and go first then', () => {
    const fake = plan(12);
    fake.schedule.watch('example.com');
    assert.deepEqual(fake.plans[0], { keys: 12, groups: 12, callsPerMinute: 180, stretch: 1.33 });
    advance(3000 - 375);
    const firstTick = new Set(fake.refreshed.map(({ key }) => key));
    assert.equal(firstTick.size, 9);
    // All were filled in the same tick, so all are as stale: ties go by pollers, then by name.
    assert.deepEqual([...fake.stretched.keys()], ['k09', 'k10', 'k11']);
    assert.ok(
      [...fake.stretched.values()].every((until) => until > T0),
      "still fresh when the tick's pollers come",
    );
    fake.refreshed.length = 0;
    advance(3000);
    fake.schedule.close();
    const secondTick = fake.refreshed.map(({ key }) => key);
    for (const key of ['k09', 'k10', 'k11'])
      assert.ok(secondTick.includes(key), `${key} refreshed on the next tick`);
    assert.ok(Math.max(...windowsBefore(T0 + 3000, fake.refreshed).map((window) => window)) <= 2);
  });

  test('15 keys, 9 slots, 10 ticks: every key refilled 6 times (the earliest window is not "stalest")', () => {
    const fake = plan(15);
    fake.schedule.watch('example.com');
    advance(10 * 3000 - 375);
    fake.schedule.close();
    const perKey = refillsPerKey(fake);
    assert.equal(fake.refreshed.length, 90, 'every slot used');
    // Ranked by fetch time, the three keys of each tick's earliest window came first on the next
    // tick, every tick: 10 refills for them, 5 for the rest.
    assert.deepEqual(perKey, new Array(15).fill(6), `refills per key: ${perKey.join(', ')}`);
  });

  test('a key polled since later waits its turn like the others: the plan is a round-robin', () => {
    const fake = plan(12);
    fake.schedule.watch('example.com');
    advance(5 * 3000);
    // Nine more keys: the site now has 21 for 9 slots a tick, 7 ticks for 3 turns each.
    for (let index = 12; index < 21; index += 1) {
      const key = `k${index}`;
      fake.keys.set(key, {
        key,
        weight: 1,
        startedAt: Date.now() - 3000,
        freshUntil: Date.now(),
        established: true,
        filling: false,
        pollers: ON_TIME,
      });
    }
    advance(4 * 3000);
    fake.refreshed.length = 0;
    advance(21 * 3000);
    fake.schedule.close();
    const perKey = refillsPerKey(fake);
    // Ties by fewest fills gave the newcomers every turn they were tied for, for minutes.
    assert.deepEqual(perKey, new Array(21).fill(9), `refills per key in 21 ticks: ${perKey.join(', ')}`);
  });

  test("17 keys, 9 slots: a round-robin too, though one key's calls start sooner after their timers", () => {
    // Seed 254 of the simulation: refills of one window started together, and each started its
    // call after a few milliseconds of lease and tier round trips. The plans ranked the window's
    // keys by those milliseconds, not by staleness, and with keys not a multiple of a window's
    // fills the cut went through them alike tick after tick: 5 keys every 5 s, 12 every 6 s.
    const fake = plan(17, { delay: (key) => (key === 'k16' ? 0 : 2) });
    fake.schedule.watch('example.com');
    advance(5 * 3000);
    fake.refreshed.length = 0;
    advance(17 * 3000);
    fake.schedule.close();
    const perKey = refillsPerKey(fake);
    assert.deepEqual(perKey, new Array(17).fill(9), `refills per key in 17 ticks: ${perKey.join(', ')}`);
  });

  test('ahead of a slow upstream, the earliest window starts at once, and still in turn, the stalest first', () => {
    // A lead of 850 ms puts the earliest window's slot before the plan, made an eighth of an
    // interval after the last tick: its three refills start at once. Set in the order they
    // were placed, the freshest went first, and the next plan's cut went through them alike.
    const fake = plan(12, { lead: 850 });
    fake.schedule.watch('example.com');
    advance(5);
    assert.deepEqual(
      fake.refreshed.map(({ key }) => key),
      ['k00', 'k01', 'k02'],
    );
    advance(3000 - 375 - 5);
    fake.schedule.close();
    assert.deepEqual(
      fake.refreshed.map(({ key }) => key),
      ['k00', 'k01', 'k02', 'k03', 'k04', 'k05', 'k06', 'k07', 'k08'],
    );
  });

  test("a fill still waiting for the budget holds the first slot: the plan's last window stays before the tick", () => {
    const fake = plan(12);
    // Queued since the last tick (the budget owes it the next slot): the plan has 8 slots, not 9.
    Object.assign(fake.keys.get('k00')!, { filling: true });
    fake.schedule.watch('example.com');
    advance(3000 - 375);
    fake.schedule.close();
    assert.equal(fake.refreshed.length, 8);
    assert.ok(!fake.refreshed.some(({ key }) => key === 'k00'), 'a filling key is not planned again');
    assert.deepEqual(windowsBefore(T0, fake.refreshed).sort(), [0, 0, 0, 1, 1, 1, 2, 2]);
  });

  test('a key filled a second ago is not refilled before the tick: two fills stay two thirds of an interval apart', () => {
    const fake = plan(1);
    assert.equal(fake.schedule.minGapMs, 2000, 'the least gap the refills keep, as the fill cache reads it');
    Object.assign(fake.keys.get('k00')!, { startedAt: T0 - 1000, freshUntil: T0 + 2000 });
    fake.schedule.watch('example.com');
    advance(3000 - 375);
    assert.equal(fake.refreshed.length, 0, 'nothing before the tick: it is still fresh for its pollers');
    advance(3000);
    fake.schedule.close();
    assert.equal(fake.refreshed.length, 1);
    // A lead and 50 ms before the tick: a poll on time may come 50 ms sooner than counted.
    assert.equal(T0 + 3000 - fake.refreshed[0]!.at, LEAD + 50, 'then in the last slot of the next tick');
  });

  test('a re-plan in the middle of a tick (a new key) refills none of the others twice', () => {
    const fake = plan(9);
    fake.schedule.watch('example.com');
    advance(3000 - 375 - 2000);
    assert.equal(fake.refreshed.length, 3, 'the earliest window has run');
    fake.keys.set('new', {
      key: 'new',
      weight: 1,
      startedAt: Date.now() - 100,
      freshUntil: Date.now() + 2900,
      established: true,
      filling: false,
      pollers: ON_TIME,
    });
    fake.schedule.replan('example.com');
    advance(2000 + 3000);
    fake.schedule.close();
    const perKey = new Map<string, number>();
    for (const { key, at } of fake.refreshed) if (at < T0) perKey.set(key, (perKey.get(key) ?? 0) + 1);
    assert.deepEqual([...perKey.values()], Array(9).fill(1), 'each of the nine once before the tick');
    assert.equal(fake.refreshed.filter(({ key }) => key === 'new').length, 1, 'the new key on the next tick');
  });

  test('a host nobody polls has no plan and no gauges', () => {
    const fake = plan(0);
    fake.schedule.watch('example.com');
    assert.deepEqual(fake.plans, [undefined]);
    fake.schedule.close();
  });
});

test("occupiedSlots: what the budget gave or owes fills the plan's windows from the one under way on", () => {
  const windows = [3000, 2000, 1000]; // listed from the tick back: the last window first
  const cases: [current: number, taken: number, fills: number, expected: number[]][] = [
    [1000, 0, 3, [0, 0, 0]],
    [1000, 2, 3, [0, 0, 2]],
    [1000, 3, 3, [0, 0, 3]],
    [1000, 5, 3, [0, 2, 3]],
    [1000, 10, 3, [3, 3, 3]],
    // The plan's first window has passed: what is owed lands in the ones still to come.
    [2000, 4, 3, [1, 3, 0]],
  ];
  for (const [current, taken, fills, expected] of cases)
    assert.deepEqual(
      occupiedSlots(windows, current, taken, fills),
      expected,
      `current ${current}, taken ${taken}`,
    );
});

describe('established queries come first', () => {
  beforeEach(() =>
    mock.timers.enable({ apis: ['setTimeout', 'setImmediate', 'Date'], now: T0 - 3000 + 375 }),
  );
  afterEach(() => mock.timers.reset());

  test('established: polled again three quarters of an interval after its polling began', () => {
    const table: [since: number | undefined, lastPolled: number, established: boolean][] = [
      [undefined, 10_000, false],
      [10_000, 10_000, false],
      [10_000, 12_249, false],
      [10_000, 12_250, true],
      [10_000, 13_000, true],
    ];
    for (const [since, lastPolled, expected] of table)
      assert.equal(isEstablished(since, lastPolled, INTERVAL), expected, `${since} → ${lastPolled}`);
  });

  test('across instances: a key told polled in two ticks is established', () => {
    const table: [polls: string[], established: string[]][] = [
      [[], []],
      [['600 /live/toppages/v3/?author=x1&host=example.com'], []],
      [['600 /a?x=1', '600 /a?x=1', '600 /b?y=1 2'], []],
      [['600 /a?x=1', '601 /a?x=1', '601 /b?y=1 2'], ['/a?x=1']],
      [
        ['599 /a?x=1', '601 /a?x=1', '600 /b?y=1 2', '601 /b?y=1 2'],
        ['/a?x=1', '/b?y=1 2'],
      ],
    ];
    for (const [polls, established] of table)
      assert.deepEqual([...polledInTwoTicks(polls)], established, polls.join(', '));
  });

  test('new queries share what the reserved refills leave of a window, split between instances', () => {
    const table: [fills: number, reserved: number, instances: number, slots: number][] = [
      [3, 0, 1, 3],
      [3, 1, 1, 2],
      [3, 3, 1, 0],
      [3, 4, 1, 0],
      [3, 0, 2, 1],
      [3, 1, 2, 1],
      [3, 2, 2, 0],
      [3, 0, 3, 1],
    ];
    for (const [fills, reserved, instances, slots] of table)
      assert.equal(
        newQuerySlots(fills, reserved, instances),
        slots,
        `${fills} - ${reserved} over ${instances}`,
      );
  });

  test('6 established keys and 20 new ones: only the 6 are refilled, in the two windows they reserve', () => {
    const fake = plan(6);
    for (let index = 0; index < 20; index += 1) {
      const key = `toppages?author=x${index}`;
      // Each polled once, a moment ago: due before the tick, as the established ones are.
      fake.keys.set(key, {
        key,
        weight: 1,
        startedAt: T0 - 6000,
        freshUntil: T0 - LEAD,
        established: false,
        filling: false,
        pollers: ON_TIME,
      });
    }
    fake.schedule.watch('example.com');
    const windows = [T0 - 3000, T0 - 2000, T0 - 1000].map(
      (at) => fake.schedule.reserved('example.com', at + 500)?.reserved,
    );
    assert.deepEqual(windows, [0, 3, 3], 'the first second after the tick is left to new queries');
    assert.deepEqual(fake.plans[0], { keys: 6, groups: 6, callsPerMinute: 120, stretch: 1 });
    advance(3000 - 375);
    fake.schedule.close();
    assert.deepEqual(fake.refreshed.map(({ key }) => key).sort(), ['k00', 'k01', 'k02', 'k03', 'k04', 'k05']);
    assert.equal(
      fake.stretched.size,
      0,
      'new keys are not stretched either: they are left alone until polled again',
    );
  });

  test('a window the plan has not dealt yet is reserved whole until the plan made in it deals it', () => {
    const fake = plan(6);
    fake.schedule.watch('example.com');
    // The first second after the tick is the next plan's, made an eighth of an interval into it.
    assert.equal(
      fake.schedule.reserved('example.com', T0 + 100)?.reserved,
      3,
      'no new query before the plan',
    );
    advance(3000);
    assert.equal(
      fake.schedule.reserved('example.com', T0 + 500)?.reserved,
      0,
      'the plan left it to new queries',
    );
    fake.schedule.close();
  });

  test('a host with only new keys has no reservation: nothing holds back a cold dashboard', () => {
    const fake = plan(0);
    fake.keys.set('once', {
      key: 'once',
      weight: 1,
      startedAt: T0 - 6000,
      freshUntil: T0 - LEAD,
      established: false,
      filling: false,
      pollers: ON_TIME,
    });
    fake.schedule.watch('example.com');
    assert.equal(fake.schedule.reserved('example.com', T0 - 500), undefined);
    advance(3000 - 375);
    fake.schedule.close();
    assert.deepEqual(fake.refreshed, []);
    assert.deepEqual(fake.plans, [undefined], 'no gauges for keys polled once');
  });
});
