/**
 * Whether a plan's keys can all have a slot: each key can take some of the budget windows, and
 * each window has room for so many refills. Pure decisions for the refresh plan
 * (refresh-plan.ts), which places keys one by one, each in the first window of its order that
 * `leavesRoom` for the keys after it.
 */

/**
 * How many of `keys` no placement can give a slot: each key is the set of windows it can take,
 * `room` the free slots of each window. That is the most keys confined to some windows beyond
 * the room those windows have (Hall's theorem); a key that can take no window is not counted.
 */
export function unplaceable(keys: readonly ReadonlySet<number>[], room: readonly number[]): number {
  let most = 0;
  for (let windows = 1; windows < 1 << room.length; windows += 1) {
    const inside = (index: number) => ((windows >> index) & 1) === 1;
    const confined = keys.filter((key) => key.size > 0 && [...key].every(inside)).length;
    const slots = room.reduce((sum, free, index) => (inside(index) ? sum + free : sum), 0);
    most = Math.max(most, confined - slots);
  }
  return most;
}

/**
 * Whether a key that can take `own` windows, taking a slot of window `taken`, leaves the keys
 * after it (`rest`) as many slots as they could have had with it: as many keys placed in all.
 */
export function leavesRoom(
  own: ReadonlySet<number>,
  rest: readonly ReadonlySet<number>[],
  room: readonly number[],
  taken: number,
): boolean {
  const after = room.map((free, index) => (index === taken ? free - 1 : free));
  return unplaceable(rest, after) <= unplaceable([own, ...rest], room);
}
