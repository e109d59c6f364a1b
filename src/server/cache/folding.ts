/**
 * Query folding: where the spec makes a narrower answer a pure function of a wider one, one
 * upstream fill of the wider query answers every narrower query of its fold group exactly.
 *
 * A fold group is a route and every parameter that decides which rows qualify (`host`, `section`,
 * `author`, `exclude_people`, `sort_by`, `path`, `by_type`); those are never derived. Inside a
 * group, queries differ only in what folds: a smaller `limit`, flags that only add fields, a
 * subset of summary `keys` or of toppages `metrics`. The rules and the spec line each rests on
 * are in docs/upstream-assumptions.md ("Query folding"); test/folding.node.test.ts proves each
 * one equal to the simulator's direct answer.
 */
import { canonicalQuery, LIMITS, parseQuery, routes, type RouteName } from '../../api/index.ts';
import { memoizeByQuery } from '../../internal/memo.ts';

/** What a query asks for inside its group: the part a wider query can cover. */
export interface FoldShape {
  limit?: number;
  flags: ReadonlySet<string>;
  /** Summary `keys` or toppages `metrics`, sorted; undefined: the parameter is absent. */
  list?: readonly string[];
}

export interface FoldMember {
  /** Route and the parameters that select rows: equal for every query of the group. */
  group: string;
  shape: FoldShape;
}

type Json = Record<string, unknown>;

interface FoldRule {
  limit: boolean;
  flags: readonly string[];
  list?: 'keys' | 'metrics';
  /** A query this rule cannot fold even though the route folds (undefined = it can). */
  refuse?: (params: Json) => boolean;
  derive(wide: Json, narrow: FoldShape): Json;
}

/** Flags that add fields and nothing else (spec 4.1 and 4.5: "1 adds the …"). */
const ADDING_FLAGS = ['all_platforms', 'loyalty', 'now_on', 'types'] as const;

/** Stats fields each flag adds (spec 2.2 and 4.1: the breakdowns and the recirculation list). */
const STATS_ADDED_BY: Record<string, readonly string[]> = {
  all_platforms: ['platform', 'platform_engaged'],
  loyalty: ['loyalty'],
  now_on: ['now_on'],
};

function withoutFlagFields(stats: unknown, narrow: FoldShape): unknown {
  if (stats === null || typeof stats !== 'object') return stats;
  const copy = { ...(stats as Json) };
  for (const [flag, fields] of Object.entries(STATS_ADDED_BY))
    if (!narrow.flags.has(flag)) for (const field of fields) delete copy[field];
  return copy;
}

/** The top `limit` entries of a count map, highest first, ties by name: the simulator's order. */
function topEntries(map: unknown, limit: number | undefined): unknown {
  if (map === null || typeof map !== 'object' || limit === undefined) return map;
  const entries = Object.entries(map as Record<string, number>).sort(
    (a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
  );
  return Object.fromEntries(entries.slice(0, limit));
}

const RULES: Partial<Record<RouteName, FoldRule>> = {
  toppages: {
    limit: true,
    flags: ADDING_FLAGS,
    list: 'metrics',
    derive(wide, narrow) {
      const pages = (wide.pages as Json[]).slice(0, narrow.limit).map((page) => {
        const copy: Json = { ...page, stats: withoutFlagFields(page.stats, narrow) };
        if (!narrow.flags.has('types')) delete copy.type;
        if (narrow.list === undefined) delete copy.metrics;
        else if (copy.metrics !== undefined) {
          const metrics = copy.metrics as Json;
          copy.metrics = Object.fromEntries(
            narrow.list.filter((name) => Object.hasOwn(metrics, name)).map((name) => [name, metrics[name]]),
          );
        }
        return copy;
      });
      return { ...wide, pages };
    },
  },
  quickstats: {
    limit: false,
    flags: ADDING_FLAGS,
    derive(wide, narrow) {
      const data: Json = { ...(wide.data as Json) };
      data.stats = withoutFlagFields(data.stats, narrow);
      if (!narrow.flags.has('types')) delete data.type;
      return { ...wide, data };
    },
  },
  summary: {
    limit: false,
    flags: [],
    list: 'keys',
    derive(wide, narrow) {
      return Object.fromEntries(
        narrow.list!.filter((key) => Object.hasOwn(wide, key)).map((key) => [key, wide[key]]),
      );
    },
  },
  referrers: {
    limit: true,
    flags: [],
    // by_type=1 changes the shape, which the spec does not show (4.3); no default limit is given.
    refuse: (params) => params.by_type === 1 || params.limit === undefined,
    derive(wide, narrow) {
      return { ...wide, referrers: topEntries(wide.referrers, narrow.limit) };
    },
  },
  top_geo: {
    limit: true,
    flags: [],
    // No default limit is given (4.4): a query without one is neither derived nor derived from.
    refuse: (params) => params.limit === undefined,
    derive(wide, narrow) {
      const geo: Json = { ...(wide.geo as Json) };
      for (const segment of ['regions', 'countries', 'cities', 'metro_codes'])
        geo[segment] = topEntries(geo[segment], narrow.limit);
      return { ...wide, geo };
    },
  },
};

/** The fold group and shape of a canonical query; undefined when it never folds. */
export function foldMember(route: RouteName, query: string): FoldMember | undefined {
  return RULES[route] ? foldMemberOf(route, query) : undefined;
}

/** Memoised: the refresh plan asks it for every planned key at every tick. */
const foldMemberOf = memoizeByQuery((route: RouteName, query: string): FoldMember | undefined => {
  const rule = RULES[route]!;
  const parsed = parseQuery(route, new URLSearchParams(query));
  if (!parsed.success) return undefined;
  const params = parsed.params as Json;
  if (rule.refuse?.(params)) return undefined;
  const base: Json = { ...params };
  delete base.limit;
  for (const flag of rule.flags) delete base[flag];
  if (rule.list) delete base[rule.list];
  const flags = new Set(rule.flags.filter((flag) => params[flag] === 1));
  const list = rule.list ? (params[rule.list] as string[] | undefined) : undefined;
  return {
    group: `${routes[route].path}?${canonicalQuery(base)}`,
    shape: { limit: rule.limit ? (params.limit as number) : undefined, flags, list },
  };
});

/** Whether an answer to `wide` holds everything `narrow` asks for. */
export function covers(wide: FoldShape, narrow: FoldShape): boolean {
  if (narrow.limit !== undefined && (wide.limit === undefined || wide.limit < narrow.limit)) return false;
  for (const flag of narrow.flags) if (!wide.flags.has(flag)) return false;
  if (narrow.list === undefined) return true;
  return wide.list !== undefined && narrow.list.every((item) => wide.list!.includes(item));
}

/** The narrowest shape covering both, or undefined past our bounds (limit ≤ 100, ≤ 20 list items). */
export function union(a: FoldShape, b: FoldShape): FoldShape | undefined {
  const limit = a.limit === undefined ? b.limit : Math.max(a.limit, b.limit ?? 0);
  const list =
    a.list === undefined
      ? b.list
      : b.list === undefined
        ? a.list
        : [...new Set([...a.list, ...b.list])].sort();
  if ((limit ?? 0) > LIMITS.listLimit || (list?.length ?? 0) > LIMITS.listItems) return undefined;
  return { limit, flags: new Set([...a.flags, ...b.flags]), list };
}

/** The canonical query of a group's member with this shape (group is `path?base-query`). */
export function shapeQuery(route: RouteName, group: string, shape: FoldShape): string {
  const rule = RULES[route]!;
  const params: Json = Object.fromEntries(new URLSearchParams(group.slice(group.indexOf('?') + 1)));
  if (shape.limit !== undefined) params.limit = shape.limit;
  for (const flag of shape.flags) params[flag] = 1;
  if (rule.list && shape.list !== undefined) params[rule.list] = shape.list;
  return canonicalQuery(params);
}

/** The answer to a narrower query of the group, from the answer to a wider one that covers it. */
export function deriveAnswer(route: RouteName, wide: unknown, narrow: FoldShape): unknown {
  return RULES[route]!.derive(wide as Json, narrow);
}
