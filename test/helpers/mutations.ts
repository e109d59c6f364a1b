/**
 * Seeded mutations of a JSON body, for the property tests of lenient reading (the contract, the
 * cache, the elements): at a random path, a deletion, a null, a value of another type, or an
 * unknown field added. Isomorphic: the Node and the browser tests share it. A failing mutation
 * is replayed from its seed and trial number, which every assertion message carries.
 */

/** A tiny seeded generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Container = Record<string, unknown> | unknown[];
type Place = { container: Container; key: string | number; path: string };

/** Every value inside `value` with its container, key and JSON path. */
export function places(value: unknown, path = '$', found: Place[] = []): Place[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      found.push({ container: value, key: index, path: `${path}[${index}]` });
      places(item, `${path}[${index}]`, found);
    });
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      found.push({ container: value as Record<string, unknown>, key, path: `${path}.${key}` });
      places(item, `${path}.${key}`, found);
    }
  }
  return found;
}

/** Values of every JSON type, some of them shaped like parts of our bodies. */
const REPLACEMENTS: readonly unknown[] = [
  '12',
  '',
  'x',
  null,
  true,
  false,
  [],
  {},
  3.5,
  -1,
  0,
  { people: 1 },
  [1, 'x'],
  { avg: 2 },
];

export interface Mutation {
  body: unknown;
  /** What was done where, for the assertion message. */
  description: string;
}

/** One seeded mutation of a copy of `body`. */
export function mutate(body: unknown, next: () => number): Mutation {
  const copy = structuredClone(body);
  const spots = places(copy);
  if (spots.length === 0) return { body: copy, description: 'nothing to mutate' };
  const { container, key, path } = spots[Math.floor(next() * spots.length)]!;
  const roll = next();
  if (roll < 0.25 && !Array.isArray(container)) {
    delete container[key as string];
    return { body: copy, description: `deleted ${path}` };
  }
  if (roll < 0.4) {
    (container as Record<string | number, unknown>)[key] = null;
    return { body: copy, description: `${path} = null` };
  }
  const target = (container as Record<string | number, unknown>)[key];
  if (roll < 0.55 && target && typeof target === 'object' && !Array.isArray(target)) {
    (target as Record<string, unknown>).unknown_field = structuredClone(
      REPLACEMENTS[Math.floor(next() * REPLACEMENTS.length)],
    );
    return { body: copy, description: `${path}.unknown_field added` };
  }
  const replacement = structuredClone(REPLACEMENTS[Math.floor(next() * REPLACEMENTS.length)]);
  (container as Record<string | number, unknown>)[key] = replacement;
  return { body: copy, description: `${path} = ${JSON.stringify(replacement)}` };
}
