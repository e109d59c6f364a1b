/** A seeded pseudo-random stream (mulberry32): the same seed, the same numbers, in the same order. */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = (seed ^ 0x9e3779b9) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A whole number in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `count` distinct items, in the order drawn. */
  sample<T>(items: readonly T[], count: number): T[] {
    const left = [...items];
    const drawn: T[] = [];
    while (drawn.length < count && left.length > 0)
      drawn.push(left.splice(Math.floor(this.next() * left.length), 1)[0]!);
    return drawn;
  }

  /** An independent stream for one part of the world, so adding draws elsewhere does not move it. */
  fork(label: number): Random {
    return new Random(Math.floor(this.next() * 4294967296) ^ Math.imul(label, 0x85ebca6b));
  }
}
