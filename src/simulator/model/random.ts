/**
 * Stateless deterministic randomness: every number the model produces is a hash of the seed and
 * of where it is used (page, step, field), so any step can be computed without replaying the
 * previous ones and two simulators with the same seed agree.
 */

/** 32-bit avalanche of one value into a running hash (murmur3 finaliser). */
function mix(hash: number, value: number): number {
  let h = Math.imul(hash ^ value, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const HASH_START = 0x9e3779b9;
const TWO_TO_32 = 4294967296;

/** The hash of `values`, as a running hash: `hash(...a, b)` is `mix(hashOf(a), b)`. */
function hashOf(values: readonly number[]): number {
  let h = HASH_START;
  for (let index = 0; index < values.length; index++) h = mix(h, values[index]! | 0);
  return h;
}

/** Unsigned 32-bit hash of a list of integers (non-integers are truncated). */
export function hash(...values: number[]): number {
  return hashOf(values);
}

/** Uniform number in [0, 1) for the given coordinates. */
export function unit(...values: number[]): number {
  return hashOf(values) / TWO_TO_32;
}

/** A stable integer for a string (FNV-1a), to use text as a hash coordinate. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Smooth value noise in [0, 1): random knots at integer `x`, eased between them. */
export function smooth(key: number, x: number): number {
  const knot = Math.floor(x);
  const t = x - knot;
  const eased = t * t * (3 - 2 * t);
  const keyed = mix(HASH_START, key | 0);
  const a = mix(keyed, knot | 0) / TWO_TO_32;
  return a + (mix(keyed, (knot + 1) | 0) / TWO_TO_32 - a) * eased;
}

/** Picks one item of a non-empty list. */
export function pick<T>(items: readonly T[], ...coordinates: number[]): T {
  return items[hashOf(coordinates) % items.length]!;
}

/**
 * Splits a whole number into whole parts proportional to `weights` that add up exactly to
 * `total` (largest remainder; ties go to the earlier weight so the result is deterministic).
 */
export function split(total: number, weights: readonly number[]): number[] {
  let sum = 0;
  for (const weight of weights) sum += weight;
  if (total <= 0 || sum <= 0) return weights.map(() => 0);
  const parts = new Array<number>(weights.length);
  const rests = new Array<number>(weights.length);
  let left = total;
  for (let index = 0; index < weights.length; index++) {
    const exact = (total * weights[index]!) / sum;
    parts[index] = Math.floor(exact);
    rests[index] = exact - parts[index]!;
    left -= parts[index]!;
  }
  // Fewer units are left than there are weights, so picking the largest rest each time is cheap.
  for (; left > 0; left--) {
    let best = 0;
    for (let index = 1; index < rests.length; index++) if (rests[index]! > rests[best]!) best = index;
    parts[best]! += 1;
    rests[best] = -1;
  }
  return parts;
}

/** Rounds `value` up or down with probability given by its fraction, deterministically. */
export function roundAt(value: number, ...coordinates: number[]): number {
  const floor = Math.floor(value);
  return floor + (hashOf(coordinates) / TWO_TO_32 < value - floor ? 1 : 0);
}

/** Multiplies each weight by a factor in [1 - amount, 1 + amount] drawn at the coordinates. */
export function jitter(weights: readonly number[], amount: number, ...coordinates: number[]): number[] {
  // The coordinates' running hash once; each weight's index is mixed into it (as unit(...coordinates, index)).
  const at = hashOf(coordinates);
  return weights.map((weight, index) => weight * (1 - amount + 2 * amount * (mix(at, index) / TWO_TO_32)));
}
