/**
 * When a key's pollers come and which budget window its refill takes for them
 * (src/server/plan/poller-lateness.ts), as tables.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  afterPoll,
  dueBy,
  type PollerLateness,
  type PollsSeen,
  pollLateness,
  type WindowShape,
  freshWindows,
  startSooner,
  windowOrder,
} from '../src/server/plan/poller-lateness.ts';

const INTERVAL = 3000;
const TICK = 1_800_000_000_000;
const SHAPE: WindowShape = { intervalMs: INTERVAL, windowMs: 1000, windows: 3, lead: 400 };

describe('poller lateness', () => {
  test('a poll is late by its time past the tick, to a tenth of a second; in the last eighth of an interval before one, on time', () => {
    const table: [at: number, lateBy: number][] = [
      [TICK, 0],
      [TICK + 40, 0],
      [TICK + 60, 100],
      [TICK + 1000, 1000],
      [TICK + 1962, 2000],
      [TICK + 2624, 2600],
      [TICK + 2625, 0],
      [TICK - 100, 0],
    ];
    for (const [at, lateBy] of table)
      assert.equal(pollLateness(at, INTERVAL), lateBy, `poll ${at - TICK} ms past the tick`);
  });

  test("a key's pollers: the earliest and the latest in about the last interval", () => {
    const seen = (earliest: [number, number], latest: [number, number]): PollsSeen => ({
      earliest: { lateBy: earliest[0], at: TICK + earliest[1] },
      latest: { lateBy: latest[0], at: TICK + latest[1] },
    });
    const table: [name: string, previous: PollsSeen | undefined, at: number, next: PollsSeen][] = [
      ['first poll', undefined, 1000, seen([1000, 1000], [1000, 1000])],
      ['a later one: the latest', seen([100, 100], [100, 100]), 1000, seen([100, 100], [1000, 1000])],
      [
        'an earlier one: the earliest',
        seen([1000, 1000], [1000, 1000]),
        3100,
        seen([100, 3100], [1000, 1000]),
      ],
      ['as late again: kept up', seen([100, 3100], [1000, 1000]), 4000, seen([100, 3100], [1000, 4000])],
      [
        'the late page stopped: past an interval and its eighth, the next poll sets the latest afresh',
        seen([100, 3100], [1000, 1000]),
        6100,
        seen([100, 6100], [100, 6100]),
      ],
    ];
    for (const [name, previous, at, next] of table)
      assert.deepEqual(
        afterPoll(previous, pollLateness(TICK + at, INTERVAL), TICK + at, INTERVAL),
        next,
        name,
      );
  });
});

describe('the window a refill takes, and until when it is due', () => {
  const table: [name: string, pollers: PollerLateness, order: number[], dueAfterTick: number[]][] = [
    // Window 0 ends at the tick, window 1 a second before it, window 2 two seconds before it.
    [
      'on time: the last window before the tick first',
      { earliest: 0, latest: 0 },
      [0, 1, 2],
      [100, 100, 100],
    ],
    ['0.4 s late: the same', { earliest: 0, latest: 400 }, [0, 1, 2], [500, 500, 500]],
    // The window ending 1 s after the tick before lands just before the page polls.
    [
      '1 s late: the window ending 1 s after the tick before',
      { earliest: 1000, latest: 1000 },
      [2, 0, 1],
      [1100, 1100, -1900],
    ],
    [
      '2 s late: the window ending 2 s after the tick before',
      { earliest: 2000, latest: 2000 },
      [1, 2, 0],
      [2100, -900, -900],
    ],
    // Window 0's refill is read 0.4 s old on time and 1.4 s old 1 s late; window 2's, 2.4 s old on time.
    [
      'on time and 1 s late: the last window before the tick',
      { earliest: 0, latest: 1000 },
      [0, 1, 2],
      [1100, 1100, 100],
    ],
    // Window 1's refill is read 1.4 s old on time, and its next one 0.4 s old 2 s late.
    [
      'on time and 2 s late: the window a second before the tick',
      { earliest: 0, latest: 2000 },
      [1, 0, 2],
      [2100, 100, 100],
    ],
  ];
  for (const [name, pollers, order, dueAfterTick] of table)
    test(name, () => {
      assert.deepEqual(windowOrder(pollers, SHAPE), order, 'order');
      assert.deepEqual(
        [0, 1, 2].map((index) => dueBy(TICK, index, pollers, SHAPE) - TICK),
        dueAfterTick,
        'due by, per window',
      );
    });
});

test('the windows a key reads fresh from: none whose refill lands as a poller comes', () => {
  const table: [pollers: PollerLateness, fresh: number[]][] = [
    [{ earliest: 0, latest: 0 }, [0, 1, 2]],
    // Window 1's refill starts 1.6 s after the tick and may still be landing at 1.737 s.
    [{ earliest: 1737, latest: 1737 }, [2, 0]],
    [{ earliest: 228, latest: 1737 }, [0, 2]],
    // Window 0's answer has run out at 2.5 s.
    [{ earliest: 0, latest: 2500 }, [1, 2]],
  ];
  for (const [pollers, fresh] of table)
    assert.deepEqual(freshWindows(pollers, SHAPE), fresh, JSON.stringify(pollers));
});

test("a window's refill starts sooner than its slot by what its first poller, 50 ms sooner, leaves short of a lead", () => {
  // Windows end 0, 1 and 2 s before the tick; each refill's slot is a lead before its end. A
  // poll's lateness is rounded to the nearest tenth: it may come 50 ms sooner than counted.
  const table: [pollers: PollerLateness, lead: number, sooner: number[]][] = [
    // On time: the poll may come 50 ms before the last window's end.
    [{ earliest: 0, latest: 0 }, 400, [50, 0, 0]],
    // 2 s late (a poll 1.962 s after the tick): window 1 ends 1 s after the tick before; its
    // refill starts 450 ms before the counted poll (seed 1762).
    [{ earliest: 2000, latest: 2000 }, 400, [0, 50, 0]],
    [{ earliest: 1700, latest: 1700 }, 400, [0, 350, 0]],
    // Two pollers: the first after the slot decides.
    [{ earliest: 0, latest: 2000 }, 400, [50, 50, 0]],
    // A lead of 700 ms: window 1's slot is 300 ms after the window begins, and it starts no sooner.
    [{ earliest: 1600, latest: 1600 }, 700, [0, 300, 0]],
  ];
  for (const [pollers, lead, sooner] of table)
    assert.deepEqual(
      [0, 1, 2].map((index) => startSooner(pollers, index, { ...SHAPE, lead })),
      sooner,
      `${JSON.stringify(pollers)}, lead ${lead} ms`,
    );
});
