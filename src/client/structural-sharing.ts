/**
 * Returns `previous` wherever `next` is deeply equal to it, so unchanged data (and unchanged
 * parts of changed data) keep their object identity and `Object.is` tells what changed.
 * Same idea as TanStack Query's `replaceEqualDeep`, for the JSON values a response parses into.
 */
export function replaceEqualDeep<T>(previous: unknown, next: T): T {
  if (Object.is(previous, next)) return previous as T;
  if (Array.isArray(previous) && Array.isArray(next)) return shareArray(previous, next) as T;
  if (isPlainObject(previous) && isPlainObject(next)) return shareObject(previous, next) as T;
  return next;
}

function shareArray(previous: unknown[], next: unknown[]): unknown[] {
  const copy = new Array<unknown>(next.length);
  let reused = 0;
  for (let index = 0; index < next.length; index++) {
    copy[index] = replaceEqualDeep(previous[index], next[index]);
    if (copy[index] === previous[index] && index < previous.length) reused++;
  }
  return reused === previous.length && previous.length === next.length ? previous : copy;
}

function shareObject(
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  let nextSize = 0;
  let reused = 0;
  for (const key in next) {
    nextSize++;
    const value = replaceEqualDeep(previous[key], next[key]);
    copy[key] = value;
    if (value === previous[key] && Object.hasOwn(previous, key)) reused++;
  }
  let previousSize = 0;
  for (const _key in previous) previousSize++;
  return reused === previousSize && previousSize === nextSize ? previous : copy;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
