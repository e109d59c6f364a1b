import { formatDuration, formatUnit } from '../../internal/format.ts';
import type { LocalizeController } from '../../internal/localize.ts';

/**
 * The histograms of the stats object and the unit of their breaks (spec 2.1). Quickstats sends
 * `domload` in milliseconds (breaks 1000 to 30000; top pages would send seconds): this element
 * reads quickstats only, so milliseconds. Scroll breaks count tenths of the page.
 */
export const HISTOGRAMS = {
  engaged_time: { label: 'histogramEngagedTime', unit: 'second' },
  engaged_visit: { label: 'histogramEngagedVisit', unit: 'minute' },
  visit: { label: 'histogramVisit', unit: 'minute' },
  writing_visit: { label: 'histogramWritingVisit', unit: 'minute' },
  scroll: { label: 'histogramScroll', unit: 'tenth' },
  domload: { label: 'histogramDomload', unit: 'millisecond' },
} as const;

export type HistogramName = keyof typeof HISTOGRAMS;
type BreakUnit = (typeof HISTOGRAMS)[HistogramName]['unit'];

/** One bucket: its label and its count. */
export interface Bucket {
  readonly label: string;
  readonly count: number;
}

/** A value in a histogram's unit, as a reader reads it: "45 sec", "2.5 min", "30%", "2.4 sec". */
export function formatBreak(locale: string, unit: BreakUnit, value: number): string {
  switch (unit) {
    case 'second':
      return formatDuration(locale, value);
    case 'minute':
      return formatUnit(locale, value, 'minute');
    case 'tenth':
      return formatUnit(locale, value * 10, 'percent');
    case 'millisecond':
      return formatDuration(locale, value / 1000);
  }
}

/** What drawing a histogram needs: its breaks and its counts (a histogram sent as an average has neither). */
export interface Buckets {
  readonly breaks: readonly number[];
  readonly hist: readonly number[];
}

/**
 * Buckets of a histogram: bucket i counts values in (breaks[i-1], breaks[i]], the first those up
 * to breaks[0], the last those above the last break (docs/upstream-assumptions.md).
 */
export function buckets(histogram: Buckets, unit: BreakUnit, localize: LocalizeController): Bucket[] {
  const { breaks, hist } = histogram;
  const format = (value: number) => formatBreak(localize.locale, unit, value);
  return hist.map((count, index) => {
    const low = breaks[index - 1];
    const high = breaks[index];
    let label: string;
    if (low === undefined) label = high === 0 ? format(0) : localize.term('histogramUpTo', format(high ?? 0));
    else if (high === undefined) label = localize.term('histogramOver', format(low));
    else label = `${format(low)} – ${format(high)}`;
    return { label, count };
  });
}

/**
 * Where `value` falls along the bucket axis, from 0 (start of the first bucket) to 1 (end of the
 * last), interpolating inside its bucket. The open last bucket is taken to end at 1.5 times the
 * last break, as the simulator's midpoints assume.
 */
export function axisPosition(histogram: Buckets, value: number): number {
  const { breaks, hist } = histogram;
  if (hist.length === 0) return 0;
  let index = breaks.findIndex((limit) => value <= limit);
  if (index === -1) index = breaks.length;
  const low = index === 0 ? Math.min(0, breaks[0] ?? 0) : breaks[index - 1]!;
  const high = breaks[index] ?? (breaks.at(-1) ?? 0) * 1.5;
  const within = high > low ? Math.min(1, Math.max(0, (value - low) / (high - low))) : 0.5;
  return Math.min(1, (index + within) / hist.length);
}
