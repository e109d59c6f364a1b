/**
 * The per-host slot count on its own clock: 3 a window, a burst of up to 9 only while the last
 * minute used under half its calls, and never more than 183 calls in any sliding minute however
 * the calls come.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { clockWithNow } from '../src/runtime/clock.ts';
import {
  aloneHoldMs,
  BudgetClosedError,
  crossedWindowWaitMs,
  HostBudget,
  WindowSlots,
  type SlotAnswer,
} from '../src/server/budget/host-budget.ts';
import { SharedSlots } from '../src/server/budget/shared-slots.ts';
import type { SharedTier } from '../src/server/tier/shared-tier.ts';
import { Coordinator } from '../src/server/workers/coordinator.ts';
import { capturedLogger, maxInSlidingWindow } from './helpers/cache-harness.node.ts';
import { VirtualClock } from './helpers/virtual-clock.node.ts';

const T0 = 1_800_000_000_000;

/** `SharedTier.takeSlot` answered by `coordinator` at once, as the primary answers a worker's `IpcTier`. */
const takeSlotOf =
  (coordinator: Coordinator): SharedTier['takeSlot'] =>
  async (host, fills, windowMs, burst, newQueryWindow) =>
    coordinator.answer({ pulseTier: 1, op: 'takeSlot', host, fills, windowMs, burst, newQueryWindow })
      .result as SlotAnswer;

/** A shared tier's budget: a `Coordinator` on `now`'s clock answers while `link.up`, nothing otherwise. */
function losableTier(now: () => number): { tier: SharedTier; link: { up: boolean } } {
  const link = { up: true };
  const coordinator = new Coordinator(1 << 20, clockWithNow(now));
  const takeSlot = takeSlotOf(coordinator);
  const tier = {
    get online() {
      return link.up;
    },
    takeSlot: async (...ask: Parameters<SharedTier['takeSlot']>) => (link.up ? takeSlot(...ask) : undefined),
    calm: async (host: string, ms: number) => {
      if (link.up) coordinator.answer({ pulseTier: 1, op: 'calm', host, ms });
    },
  } as unknown as SharedTier;
  return { tier, link };
}

function grantsAt(slots: WindowSlots, at: number, asks: number): number {
  let granted = 0;
  for (let ask = 0; ask < asks; ask += 1) if (slots.take('example.com', at).granted) granted += 1;
  return granted;
}

describe('window slots', () => {
  test('a cold host may burst to 9 in one window; a share without a burst never does', () => {
    assert.equal(grantsAt(new WindowSlots(3, 1000, 9), T0 + 300, 20), 9);
    assert.equal(
      grantsAt(new WindowSlots(1, 50), T0 + 10, 5),
      1,
      "an instance's share of a shared budget: no burst",
    );
  });

  test('greedy callers every 10 ms for three minutes: never more than 183 in any sliding minute', () => {
    const slots = new WindowSlots(3, 1000, 9);
    const sent: number[] = [];
    for (let at = T0; at < T0 + 180_000; at += 10) {
      while (slots.take('example.com', at).granted) sent.push(at);
    }
    assert.ok(
      maxInSlidingWindow(sent, 60_000) <= 183,
      `${maxInSlidingWindow(sent, 60_000)} in one sliding minute`,
    );
    assert.ok(sent.length >= 3 * 180 - 9, `${sent.length}: the budget is spent, not starved`);
  });

  test('once the minute is half used, 3 a window again', () => {
    const slots = new WindowSlots(3, 1000, 9);
    for (let second = 0; second < 40; second += 1) grantsAt(slots, T0 + second * 1000, 3);
    assert.equal(grantsAt(slots, T0 + 40_000, 20), 3);
  });
});

describe("a new query's ask that crossed into another window", () => {
  // [its share's window start, the counter's now, the wait]; windows of 1000 ms.
  const cases: [string, number, number, number][] = [
    ['in its own window', 1000, 1999, 0],
    ['just across the next window start', 1000, 2000, 500],
    ['1 ms across', 1000, 2001, 499],
    ['half a window into the next one: the clocks disagree', 1000, 2500, 0],
    ['two windows on, early', 1000, 3100, 400],
    ['the counter behind, late in its window', 1000, 999, 0],
    ['the counter behind, early in its window', 1000, 200, 300],
  ];
  for (const [name, shareWindow, now, wait] of cases)
    test(name, () => assert.equal(crossedWindowWaitMs(shareWindow, now, 1000), wait));

  test('a new query asked as its window ends waits for a window that has room, and the refills reserved in the next one get their slots (seed 25994)', async () => {
    const clock = new VirtualClock(T0);
    const takeSlot = takeSlotOf(new Coordinator(1 << 20, clock));
    // The tier answers 1 ms after an ask, on the same clock: one made at 999 ms is counted in the next window.
    const tier = {
      online: true,
      takeSlot: async (...ask: Parameters<SharedTier['takeSlot']>) => {
        await clock.sleep(1);
        return takeSlot(...ask);
      },
    } as unknown as SharedTier;
    const slots = new SharedSlots(tier, 3, 1000, 3, 2, capturedLogger('silent').logger);
    // The plan left one slot for new queries in every other window; the others it reserved whole.
    const budget = new HostBudget(slots, clock, (_site, now) => {
      const windowStart = now - (now % 1000);
      return {
        slots: ((windowStart - T0) / 1000) % 2 === 0 ? 1 : 0,
        windowStart,
        windowEnd: windowStart + 1000,
      };
    });
    const grants: { kind: string; at: number }[] = [];
    const ask = (kind: 'new' | 'refill') =>
      void budget
        .acquire(
          'example.com',
          () => true,
          undefined,
          () => kind === 'refill',
        )
        .then((at) => grants.push({ kind, at: at! - T0 }));
    await clock.runUntil(T0 + 999);
    ask('new');
    // While the new query waits for half a window: the refills need not wait with it.
    await clock.runUntil(T0 + 1200);
    for (let refill = 0; refill < 3; refill += 1) ask('refill');
    await clock.runUntil(T0 + 2500);
    assert.deepEqual(grants, [
      { kind: 'refill', at: 1201 },
      { kind: 'refill', at: 1202 },
      { kind: 'refill', at: 1203 },
      { kind: 'new', at: 2001 },
    ]);
    budget.close();
  });
});

describe('going alone after a burst', () => {
  test("aloneHoldMs: nothing while the minute went at the windows' rate, a burst waited out", () => {
    const steady = Array.from({ length: 180 }, (_, index) => T0 + Math.floor(index / 3) * 1000);
    const burst = [
      ...Array(21).fill(T0),
      ...Array.from({ length: 90 }, (_, index) => T0 + 1000 + Math.floor(index / 3) * 1000),
    ];
    const cases: [name: string, sent: number[], now: number, expected: number][] = [
      ['no calls', [], T0, 0],
      ['3 a window for a minute', steady, T0 + 60_000, 0],
      // 111 calls in the minute from the burst: room for alone calls in 60 − 31 − 5 windows only.
      ['a burst of 21 half a minute ago, then 3 a window', burst, T0 + 31_000, 5000],
      ['the same burst, a minute on', burst, T0 + 61_000, 0],
    ];
    for (const [name, sent, now, expected] of cases)
      assert.equal(aloneHoldMs(sent, now, 3, 1000), expected, name);
  });

  test('three instances lose the tier half a minute after a cold burst: never more than 183 in a sliding minute', async () => {
    const { logger } = capturedLogger('silent');
    let now = T0;
    const { tier, link } = losableTier(() => now);
    const instances = [0, 1, 2].map(() => new SharedSlots(tier, 3, 1000, 9, 3, logger));
    const sent: number[] = [];
    // A cold dashboard bursts at once; then every instance asks greedily every 10 ms, the first
    // one most (it took the last slot before the tier went: only it heard the tier's last word).
    for (; now < T0 + 150_000; now += 10) {
      link.up = now < T0 + 30_000 || now >= T0 + 120_000;
      for (const slots of instances) {
        while (true) {
          const answer = await slots.take('example.com', now);
          if (!answer.granted) break;
          sent.push(now);
        }
      }
    }
    assert.equal(sent.filter((at) => at === T0).length, 9, 'the cold burst');
    // Without the hold: 237.
    assert.ok(
      maxInSlidingWindow(sent, 60_000) <= 183,
      `${maxInSlidingWindow(sent, 60_000)} in one sliding minute`,
    );
  });
});

describe('host budget', () => {
  test('a video@ host counts against its site, as the service counts it: one budget and one cooldown for both', async () => {
    const now = T0 + 100;
    const budget = new HostBudget(
      new WindowSlots(3, 1000),
      clockWithNow(() => now),
    );
    const granted: string[] = [];
    for (const host of [
      'example.com',
      'video@example.com',
      'example.com',
      'video@example.com',
      'news.example.org',
    ]) {
      budget
        .acquire(host, () => true)
        .then(
          () => granted.push(host),
          () => undefined,
        );
    }
    await turn();
    await turn();
    assert.deepEqual(
      granted.sort(),
      ['example.com', 'example.com', 'news.example.org', 'video@example.com'],
      'three a window for example.com, whichever of its hosts asks; another site has its own',
    );
    budget.cooldown('video@example.com', now + 5000);
    assert.equal(budget.cooldownUntil('example.com'), now + 5000);
    assert.equal(budget.cooldownUntil('news.example.org'), 0);
    budget.close();
  });

  test('back on the tier, an instance waits out only the windows it granted in alone', async () => {
    const { logger } = capturedLogger('debug');
    const { tier, link } = losableTier(() => T0);
    const slots = new SharedSlots(tier, 3, 1000, 9, 2, logger);
    const take = (at: number) => slots.take('example.com', T0 + at);
    // The tier lost: the first ask holds until the window after next, then slots are granted alone.
    link.up = false;
    assert.equal((await take(100)).granted, false);
    assert.equal((await take(5050)).granted, true, 'alone');
    // Back 250 ms after that alone slot: held until the window after next (the tier never saw it).
    link.up = true;
    assert.deepEqual(await take(5300), { granted: false, waitMs: 1700, coolingDown: false });
    assert.equal((await take(7000)).granted, true, 'shared again');
    // Lost again, and this time nothing granted alone before it is back: no wait. (Held on every
    // return, an instance polled nowhere since the tier came back made its first refill wait two
    // windows, and its pollers read data a tick old: simulation seed 150.)
    link.up = false;
    assert.equal((await take(20_100)).granted, false, 'going alone holds');
    link.up = true;
    const back = await take(60_100);
    assert.equal(back.granted, true, `granted at once, 40 s after the last ask: ${JSON.stringify(back)}`);
  });

  test('back on the tier after granting alone, an instance calms it: one that joined meanwhile does not burst either', async () => {
    const { logger } = capturedLogger('silent');
    let now = T0;
    const { tier, link } = losableTier(() => now);
    const veteran = new SharedSlots(tier, 3, 1000, 9, 2, logger);
    link.up = false;
    assert.equal((await veteran.take('example.com', now)).granted, false, 'going alone holds');
    now = T0 + 5050;
    assert.equal((await veteran.take('example.com', now)).granted, true, 'alone');
    // The tier back (empty, as after a restart), and an instance started meanwhile: the tier's
    // minute lacks the call made alone, so neither bursts on it.
    link.up = true;
    now = T0 + 10_000;
    assert.equal((await veteran.take('example.com', now)).granted, true, 'shared again');
    const newcomer = new SharedSlots(tier, 3, 1000, 9, 2, logger);
    now = T0 + 12_000;
    let granted = 0;
    while ((await newcomer.take('example.com', now)).granted) granted += 1;
    // Without the calm on the tier: 9, the newcomer's burst.
    assert.equal(granted, 3);
  });

  test('closing while the shared tier is asked for a slot: no slot is counted alone and no call is made', async () => {
    const { logger, logs } = capturedLogger('debug');
    // A worker's tier: closing it answers every question under way with "offline", as IpcTier does.
    let answer: (slot: SlotAnswer | undefined) => void = () => undefined;
    const tier = {
      takeSlot: () => new Promise<SlotAnswer | undefined>((resolve) => (answer = resolve)),
    } as unknown as SharedTier;
    const budget = new HostBudget(
      new SharedSlots(tier, 3, 1000, 9, 3, logger),
      clockWithNow(() => T0),
    );
    const acquired = budget.acquire('example.com', () => true);
    await turn();
    budget.close();
    answer(undefined);
    await assert.rejects(acquired, BudgetClosedError);
    await turn();
    assert.deepEqual(
      logs.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'budget slot granted'),
      [],
      'a slot taken alone would count a call the closing instance never makes',
    );
  });

  test('new queries queue behind established ones and take only the slots the plan leaves', async () => {
    const clock = new VirtualClock(T0);
    // The plan reserved the 2nd and 3rd second of each tick for established refills: new queries get the 1st.
    const reserved = (windowStart: number) => (((windowStart - T0) / 1000) % 3 === 0 ? 0 : 3);
    // No burst: the order is what is tested.
    const budget = new HostBudget(new WindowSlots(3, 1000), clock, (_site, now) => {
      const windowStart = now - (now % 1000);
      return { slots: 3 - reserved(windowStart), windowStart, windowEnd: windowStart + 1000 };
    });
    const grants: { kind: string; at: number }[] = [];
    const ask = (kind: 'new' | 'established') =>
      budget
        .acquire(
          'example.com',
          () => true,
          undefined,
          () => kind === 'established',
        )
        .then(
          (at) => grants.push({ kind, at: at! }),
          () => undefined,
        );
    // Twenty new queries first, then the six established refills, all at the start of the tick.
    for (let index = 0; index < 20; index += 1) void ask('new');
    for (let index = 0; index < 6; index += 1) void ask('established');
    await clock.runUntil(T0 + 2999);
    const second = (at: number) => Math.floor((at - T0) / 1000);
    // The first new query was granted as it came (the first second is not reserved); every one queued after it waits behind the established ones.
    assert.deepEqual(
      grants.filter(({ kind }) => kind === 'established').map(({ at }) => second(at)),
      [0, 0, 1, 1, 1, 2],
      'established first, whatever came before them',
    );
    assert.deepEqual(
      grants.filter(({ kind }) => kind === 'new').map(({ at }) => second(at)),
      [0],
      'the next two seconds are reserved',
    );
    await clock.runUntil(T0 + 3999);
    assert.deepEqual(
      grants.filter(({ kind }) => kind === 'new').map(({ at }) => second(at)),
      [0, 3, 3, 3],
      'the next unreserved second: three',
    );
    budget.close();
  });

  test('an established waiter is not held back by the wait of new queries for an unreserved window', async () => {
    const clock = new VirtualClock(T0);
    const budget = new HostBudget(new WindowSlots(3, 1000, 9), clock, (_site, now) => {
      const windowStart = now - (now % 1000);
      return { slots: 0, windowStart, windowEnd: windowStart + 1000 };
    });
    const granted: number[] = [];
    void budget
      .acquire(
        'example.com',
        () => true,
        undefined,
        () => false,
      )
      .catch(() => undefined);
    await clock.runUntil(T0 + 400);
    void budget.acquire('example.com', () => true).then((at) => granted.push(at!));
    await clock.runUntil(T0 + 400);
    assert.deepEqual(granted, [T0 + 400], 'granted at once');
    budget.close();
  });
});
