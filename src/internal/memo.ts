/**
 * Memoises a pure function of one key. Forgets everything once it holds `limit` results, so
 * memory stays bounded while the values that repeat from one tick to the next (the same titles,
 * paths, counts and percentages) cost a lookup instead of an `Intl` call or a URL parse.
 */
export function memoize<K, V>(compute: (key: K) => V, limit = 2000): (key: K) => V {
  const results = new Map<K, V>();
  return (key) => {
    let result = results.get(key);
    if (result === undefined && !results.has(key)) {
      if (results.size >= limit) results.clear();
      result = compute(key);
      results.set(key, result);
    }
    return result as V;
  };
}

/**
 * Distinct query strings the server and the simulator remember validated: a newsroom's
 * dashboards ask a few hundred. A URL may be 4 kB, so a client sending only new ones holds at
 * most about 8 MB (UTF-16) per memo.
 */
const MEMO_QUERIES = 1000;

/**
 * Memoises a pure function of a route's name and its query string (without the `?`), for the
 * validations that the same queries repeat every 3 s; at most {@link MEMO_QUERIES} of them.
 */
export function memoizeByQuery<R extends string, V>(
  compute: (route: R, query: string) => V,
): (route: R, query: string) => V {
  // One string key: a route's name never holds a '?'.
  const byKey = memoize((key: string) => {
    const queryAt = key.indexOf('?');
    return compute(key.slice(0, queryAt) as R, key.slice(queryAt + 1));
  }, MEMO_QUERIES);
  return (route, query) => byKey(`${route}?${query}`);
}
