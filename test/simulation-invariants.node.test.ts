/**
 * The simulation's fairness check compares each query with its peers over the spans it was
 * refreshed in (`refreshedSpans`, `meanRefreshInterval` in test/simulation/invariants.ts):
 * tested here as tables, since a check that measures the wrong span fails good seeds (6226)
 * or passes bad ones.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { meanRefreshInterval, refreshedSpans } from './simulation/invariants.ts';

/** Refills every `every` ms from `from`, `count` of them. */
const refills = (from: number, every: number, count: number) =>
  Array.from({ length: count }, (_, index) => from + index * every);

describe('refreshedSpans: where a query was refreshed steadily', () => {
  const rows: [string, number[], { from: number; to: number }[]][] = [
    ['no refills', [], []],
    ['one refill: no gap', [5000], []],
    ['steady', refills(0, 4000, 4), [{ from: 0, to: 12_000 }]],
    [
      'a gap of 10 ticks splits it',
      [0, 4000, 34_000, 38_000],
      [
        { from: 0, to: 4000 },
        { from: 34_000, to: 38_000 },
      ],
    ],
    ['a gap just under 10 ticks does not', [0, 29_999, 33_999], [{ from: 0, to: 33_999 }]],
    // Seed 6226: folded into another dashboard's wide query from 69 s to 417 s.
    [
      'folded in between',
      [...refills(33_000, 4000, 10), ...refills(417_000, 4000, 3)],
      [
        { from: 33_000, to: 69_000 },
        { from: 417_000, to: 425_000 },
      ],
    ],
  ];
  for (const [name, times, expected] of rows)
    test(name, () => assert.deepEqual(refreshedSpans(times), expected));
});

describe('meanRefreshInterval: the mean gap inside spans', () => {
  const steady = refills(0, 4000, 30);
  const rows: [string, number[], { from: number; to: number }[], number | undefined][] = [
    ['all of it', steady, [{ from: 0, to: 116_000 }], 4000],
    ['fewer than 10 gaps inside: none', steady, [{ from: 0, to: 36_000 }], undefined],
    ['10 gaps inside', steady, [{ from: 0, to: 40_000 }], 4000],
    [
      'a gap across a span end is left out',
      [0, ...refills(2000, 3000, 12)],
      [{ from: 1000, to: 40_000 }],
      3000,
    ],
    [
      // Peers refreshed every 8 s while two dashboards were open and every 4 s otherwise, over
      // the spans of a query folded while both were: every 4 s, as that query.
      'only the spans',
      [...refills(0, 4000, 15), ...refills(60_000, 8000, 10), ...refills(140_000, 4000, 15)],
      [
        { from: 0, to: 56_000 },
        { from: 140_000, to: 196_000 },
      ],
      4000,
    ],
    [
      'gaps of 10 ticks or more are no interval',
      [...refills(0, 31_000, 12)],
      [{ from: 0, to: 400_000 }],
      undefined,
    ],
  ];
  for (const [name, times, spans, expected] of rows)
    test(name, () => assert.equal(meanRefreshInterval(times, spans), expected));
});
