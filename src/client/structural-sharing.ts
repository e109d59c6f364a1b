/**
 * Returns `previous` wherever `next` is deeply equal to it, so unchanged data (and unchanged
 * parts of changed data) keep their object identity and `Object.is` tells what changed.
 * Same idea as TanStack Query's `replaceEqualDeep`, for the JSON values a response parses into.
 */
export function replaceEqualDeep<T>(previous: unknown, next: T): T {
  if (Object.is(previous, next)) return previous as T;
  const bothArrays = Array.isArray(previous) && Array.isArray(next);
  if (!bothArrays && !(isPlainObject(previous) && isPlainObject(next))) return next;

  const before = previous as Record<string, unknown>;
  const after = next as Record<string, unknown>;
  const keys = bothArrays ? [...(next as unknown[]).keys()].map(String) : Object.keys(after);
  const beforeSize = bothArrays ? (previous as unknown[]).length : Object.keys(before).length;
  const copy: Record<string, unknown> = bothArrays ? ([] as unknown as Record<string, unknown>) : {};
  let reused = 0;
  for (const key of keys) {
    const value = replaceEqualDeep(before[key], after[key]);
    copy[key] = value;
    if (Object.is(value, before[key]) && Object.hasOwn(before, key)) reused++;
  }
  return (beforeSize === keys.length && reused === beforeSize ? previous : copy) as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
