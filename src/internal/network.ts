/** Merging the same route's bodies from several sites (the network view). */

/**
 * Adds bodies of one shape key by key: numbers are summed, plain objects merged the same way,
 * anything else (arrays, text, flags) taken from the first body that has it. Referrer and geo
 * counts, by type or segment, add up exactly like this.
 */
export function sumCounts<T>(bodies: readonly T[]): T {
  const present = bodies.filter((body) => body !== undefined && body !== null);
  const [first] = present;
  if (typeof first === 'number') return present.reduce<number>((sum, value) => sum + (typeof value === 'number' ? value : 0), 0) as T;
  if (!isPlainObject(first)) return first as T;
  const keys = new Set(present.flatMap((body) => (isPlainObject(body) ? Object.keys(body) : [])));
  const merged: Record<string, unknown> = {};
  for (const key of keys) merged[key] = sumCounts(present.map((body) => (body as Record<string, unknown>)[key]));
  return merged as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
