/**
 * Whether a plan's keys can all have a slot (src/server/plan/window-matching.ts), as tables.
 * Windows are counted back from the tick, as in the plan: 0 ends at the tick.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { leavesRoom, unplaceable } from '../src/server/plan/window-matching.ts';

const can = (...windows: number[]) => new Set(windows);

describe('window matching', () => {
  test('unplaceable: the most keys confined to some windows beyond their room', () => {
    const table: [name: string, keys: Set<number>[], room: number[], unplaced: number][] = [
      ['no keys', [], [3, 3, 3], 0],
      ['every key anywhere, fewer keys than slots', [can(0, 1, 2), can(0, 1, 2)], [1, 0, 1], 0],
      ['every key anywhere, more keys than slots', [can(0, 1, 2), can(0, 1, 2), can(0, 1, 2)], [1, 0, 1], 1],
      ['two keys confined to a window with one slot', [can(1), can(1), can(0, 1, 2)], [3, 1, 3], 1],
      ['two keys confined to two windows with one slot each', [can(0, 1), can(0, 1)], [1, 1, 0], 0],
      ['three keys confined to two windows with one slot each', [can(0, 1), can(1), can(0)], [1, 1, 3], 1],
      ['a key that can take no window is not counted', [can(), can(2)], [0, 0, 1], 0],
      ['a full window left to keys that can go elsewhere', [can(0, 2), can(0, 2)], [0, 3, 2], 0],
    ];
    for (const [name, keys, room, unplaced] of table) assert.equal(unplaceable(keys, room), unplaced, name);
  });

  test('leavesRoom: a slot that leaves the keys after it as many slots as they could have had', () => {
    // Seed 2756's plan: a wide query the least gap holds back can start in windows 0 and 1,
    // window 0 is full, and window 1 has one slot left, which the key before it must leave.
    const table: [
      name: string,
      own: Set<number>,
      rest: Set<number>[],
      room: number[],
      taken: number,
      leaves: boolean,
    ][] = [
      ['the last slot a held-back key after it needs', can(0, 1, 2), [can(0, 1)], [0, 1, 3], 1, false],
      ['a slot in a window the key after it cannot take', can(0, 1, 2), [can(0, 1)], [0, 1, 3], 2, true],
      ['one of two slots the key after it could take', can(0, 1, 2), [can(0, 1)], [0, 2, 3], 1, true],
      ['no key after it', can(1), [], [0, 1, 0], 1, true],
      // When not every key can have a slot anyway, a key takes one if the keys after it lose
      // no more than it gains: as many placed in all.
      [
        'too many keys for the slots: the key itself placed instead of one after it',
        can(1),
        [can(1), can(1)],
        [0, 1, 0],
        1,
        true,
      ],
      [
        'too many keys for the slots, and a slot the others cannot take',
        can(0, 1),
        [can(1), can(1)],
        [1, 1, 0],
        0,
        true,
      ],
      [
        'too many keys for the slots, and the last slot two after it need',
        can(0, 1),
        [can(1), can(1)],
        [1, 1, 0],
        1,
        false,
      ],
    ];
    for (const [name, own, rest, room, taken, leaves] of table)
      assert.equal(leavesRoom(own, rest, room, taken), leaves, name);
  });
});
