/**
 * Histograms of spec 2.1. Bucket i counts values in (breaks[i-1], breaks[i]]; the first bucket is
 * everything up to breaks[0] and the last everything above the last break, so `hist` has
 * breaks.length + 1 buckets. median, avg and sum are computed from one representative value per
 * bucket, so they agree with `hist` exactly.
 */
import type { FullHistogram } from '../../api/index.ts';
import { split } from './random.ts';

export const BREAKS = {
  /** Minutes (engaged_visit, writing_visit, visit). */
  visitMinutes: [1, 2, 3, 4, 5, 6, 10, 15, 30],
  /** Seconds (engaged_time). */
  engagedSeconds: [0, 15, 30, 45, 60, 120, 180, 240, 300, 600, 900],
  /** Seconds (top pages domload, "1 to 10 and above"). */
  domloadSeconds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  /** Milliseconds (quickstats domload, "1000 to 30000"). */
  domloadMilliseconds: [1000, 2000, 3000, 4000, 5000, 7500, 10000, 15000, 20000, 30000],
  /** Tenths of the page (scroll, "0 to 8"). */
  scrollTenths: [0, 1, 2, 3, 4, 5, 6, 7, 8],
} as const satisfies Record<string, readonly number[]>;

/** Lower and upper bound of bucket `index`: the open ends are closed at 0 and 1.5 × the last break. */
export function bucketBounds(breaks: readonly number[], index: number): [number, number] {
  const last = breaks[breaks.length - 1]!;
  const low = index === 0 ? Math.min(0, breaks[0]!) : breaks[index - 1]!;
  const high = index === breaks.length ? last * 1.5 : breaks[index]!;
  return [low, high];
}

function representative(breaks: readonly number[], index: number): number {
  const [low, high] = bucketBounds(breaks, index);
  return (low + high) / 2;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The histogram object for bucket counts over `breaks`. */
export function histogramOf(breaks: readonly number[], hist: number[]): FullHistogram {
  let numValues = 0;
  let sum = 0;
  for (let index = 0; index < hist.length; index++) {
    numValues += hist[index]!;
    sum += hist[index]! * representative(breaks, index);
  }
  let median = 0;
  let seen = 0;
  for (let index = 0; index < hist.length && numValues > 0; index++) {
    seen += hist[index]!;
    if (seen * 2 >= numValues) {
      median = representative(breaks, index);
      break;
    }
  }
  return {
    breaks: breaks.slice(),
    num_values: numValues,
    median: round2(median),
    hist,
    avg: numValues > 0 ? round2(sum / numValues) : 0,
    sum: round2(sum),
  };
}

/**
 * `count` values spread over the buckets of `breaks` as a bell around bucket `center` (a
 * fractional bucket index) of the given `width` in buckets.
 */
export function bellHistogram(
  breaks: readonly number[],
  count: number,
  center: number,
  width: number,
): FullHistogram {
  const weights = new Array<number>(breaks.length + 1);
  const spread = 2 * width * width;
  for (let index = 0; index <= breaks.length; index++)
    weights[index] = Math.exp(-((index - center) ** 2) / spread);
  return histogramOf(breaks, split(count, weights));
}

/** Bucket-wise sum of histograms with the same breaks. */
export function mergeHistograms(
  breaks: readonly number[],
  histograms: readonly FullHistogram[],
): FullHistogram {
  const hist = new Array<number>(breaks.length + 1).fill(0);
  for (const histogram of histograms) histogram.hist.forEach((count, index) => (hist[index]! += count));
  return histogramOf(breaks, hist);
}
