/**
 * Reading the statistics the service sends in more than one form, free of zod so elements can
 * use it: histograms sent whole, as `{avg}` alone or as a bare number (older answers), and summary
 * statistics under either spelling (docs/upstream-assumptions.md, "Summary").
 */
import type { Histogram, HistogramFields } from './responses.ts';

/** A histogram as an object; a bare number is its average. */
export function histogramFields(histogram: Histogram | undefined): HistogramFields | undefined {
  return typeof histogram === 'number' ? { avg: histogram } : histogram;
}

/** The statistics of a numeric summary member, each undefined when the answer lacks it. */
export interface SummaryStatistics {
  readonly observations?: number;
  readonly nonzero?: number;
  readonly min?: number;
  readonly max?: number;
  readonly sum?: number;
  readonly sumOfSquares?: number;
  readonly median?: number;
  readonly upperHinge?: number;
  readonly lowerHinge?: number;
}

/**
 * Every public answer spells them `nzObservations` and `sumOfSquares` (and sends `median`,
 * `upperHinge`, `lowerHinge`); our first reading of the spec guessed `nonzero` and `sum_squares`.
 * Both are read, the service's first.
 */
export function summaryStatistics(data: Readonly<Record<string, number>>): SummaryStatistics {
  return {
    observations: data.observations,
    nonzero: data.nzObservations ?? data.nonzero,
    min: data.min,
    max: data.max,
    sum: data.sum,
    sumOfSquares: data.sumOfSquares ?? data.sum_squares,
    median: data.median,
    upperHinge: data.upperHinge,
    lowerHinge: data.lowerHinge,
  };
}

/**
 * Whether a summary member holds numeric statistics rather than counts of values: the service
 * names the type `numeric` or `string`; without a type, by its statistics (a categorical value
 * may well be the word "observations", but not several statistic names at once).
 */
export function isNumericMember(member: {
  readonly data: Readonly<Record<string, number>>;
  readonly type?: string;
}): boolean {
  if (member.type === 'numeric' || member.type === 'string') return member.type === 'numeric';
  return 'observations' in member.data && ('sum' in member.data || 'min' in member.data);
}
