/**
 * What the cache says when the upstream's bodies differ from the contract: a body refused (its
 * essential fields missing or of another type) or values dropped from it (an optional field of
 * another type, an unusable list or map entry). Said once per route and shape change, not on
 * every fill: a service that renamed a field would otherwise fill the log every 3 s per key.
 */
import type { Difference, RouteName } from '../api/index.ts';

/** At most this many differences are listed in one log line; the count says how many there were. */
const LISTED = 20;

export interface DriftLine {
  level: 'warn' | 'info';
  message: string;
  fields: Record<string, unknown>;
}

/** One difference as logged: where (a real path, and the pattern it stands for), what was expected and found. */
function logged({ path, pattern, kind, expected, found, dropped }: Difference) {
  return { path, pattern, kind, expected, found, ...(dropped ? { dropped } : {}) };
}

/** Queries remembered per route; past this, the longest unchanged is forgotten. */
const QUERIES_KEPT = 200;

export class ContractDrift {
  /** Per route, the shape of what went wrong in the last body of each query that had something wrong. */
  readonly #wrong = new Map<RouteName, Map<string, string>>();

  /**
   * The line to log for a body of `route` and `query`: refused because of `problem`, or read with
   * `dropped` values. Undefined when another query of the route already showed that shape of
   * difference (so two queries whose bodies differ in different ways do not take turns in the
   * log), and when the body is clean while another query of the route still is not.
   */
  note(
    route: RouteName,
    query: string,
    problem: Difference | undefined,
    dropped: readonly Difference[],
  ): DriftLine | undefined {
    const patterns = new Map<string, Difference>();
    for (const difference of problem ? [problem] : dropped) {
      const key = `${difference.pattern} ${difference.kind} ${difference.expected ?? ''} ${difference.found}`;
      if (!patterns.has(key)) patterns.set(key, difference);
    }
    const now =
      patterns.size === 0
        ? ''
        : `${problem ? 'invalid' : 'dropped'}\n${[...patterns.keys()].sort().join('\n')}`;
    let queries = this.#wrong.get(route);
    if (!queries) this.#wrong.set(route, (queries = new Map()));
    const before = queries.get(query) ?? '';
    if (now === before) return undefined;
    queries.delete(query);
    const known = [...queries.values()].includes(now);
    if (now !== '') {
      queries.set(query, now);
      if (queries.size > QUERIES_KEPT) queries.delete(queries.keys().next().value!);
    }
    if (now === '')
      return queries.size === 0
        ? { level: 'info', message: 'upstream body matches the contract again', fields: { route } }
        : undefined;
    if (known) return undefined;
    if (problem) {
      return {
        level: 'warn',
        message: 'upstream body refused: an essential field is missing or of another type',
        fields: { route, outcome: 'invalid', ...logged(problem) },
      };
    }
    return {
      level: 'warn',
      message: 'upstream body read with values dropped: optional fields of another type or unusable entries',
      fields: {
        route,
        outcome: 'dropped',
        dropped: dropped.length,
        differences: [...patterns.values()].slice(0, LISTED).map(logged),
      },
    };
  }
}
