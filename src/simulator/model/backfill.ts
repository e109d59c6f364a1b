/**
 * Weeks of history for a simulated site, at once: each minute's expected audience from the
 * model's own daily curve and article freshness (the mean of what stepping the simulation
 * would give), with smooth seeded noise, split by the site's average shares. A day of one site
 * costs 1440 × its pages evaluations once; every minute after that is a lookup, so 35 days
 * for the demo take milliseconds, in Node and in the Storybook page alike.
 */
import type { HistoryMetric } from '../../api/index.ts';
import { hash, smooth, unit } from './random.ts';
import type { Site } from './site.ts';
import { dailyCurve, pageFreshness, type View } from './snapshot.ts';
import { PLATFORMS, SOURCES } from './vocabulary.ts';

const MINUTE_MS = 60_000;
const MINUTES_PER_DAY = 1440;

interface SiteCurve {
  /** Expected people per minute of the UTC day. */
  people: Float64Array;
  /** Share of people per history metric. */
  shares: Record<HistoryMetric, number>;
}

function normalised(weights: readonly number[]): number[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0) || 1;
  return weights.map((weight) => weight / total);
}

function siteCurve(site: Site, view: View): SiteCurve {
  const totalPopularity = site.pages.reduce((sum, page) => sum + page.popularity, 0);
  const people = new Float64Array(MINUTES_PER_DAY);
  for (let minute = 0; minute < MINUTES_PER_DAY; minute++) {
    const hour = ((minute / 60 + site.utcOffsetHours) % 24 + 24) % 24;
    let weight = 0;
    for (const page of site.pages) weight += page.popularity * pageFreshness(site, page, hour) * (view === 'video' ? page.videoShare : 1);
    // slow and fast noise of the model average 1 over a page's day.
    people[minute] = (site.peakPeople * dailyCurve(hour) * weight) / (totalPopularity * 2);
  }
  const mix = (weightsOf: (page: Site['pages'][number]) => readonly number[], index: number) =>
    site.pages.reduce((sum, page) => sum + page.popularity * normalised(weightsOf(page))[index]!, 0) / totalPopularity;
  const shares = { people: 1 } as Record<HistoryMetric, number>;
  (['read', 'write', 'idle'] as const).forEach((metric, index) => (shares[metric] = mix((page) => page.activityWeights, index)));
  shares.new = mix((page) => page.loyaltyWeights, 0);
  SOURCES.forEach((source, index) => (shares[source] = mix((page) => page.sourceWeights, index)));
  PLATFORMS.forEach((letter, index) => (shares[`platform_${letter}`] = mix((page) => page.platformWeights, index)));
  return { people, shares };
}

/** A site's history reader: `read(metric, from, minutes)` gives one value per minute. */
export function siteHistory(site: Site, view: View): (metric: HistoryMetric, from: number, minutes: number) => Float64Array {
  let curve: SiteCurve | undefined;
  const noiseKey = hash(site.key, view === 'video' ? 1 : 0, 70);
  return (metric, from, minutes) => {
    curve ??= siteCurve(site, view);
    const share = curve.shares[metric];
    const values = new Float64Array(minutes);
    for (let i = 0; i < minutes; i++) {
      const minute = Math.floor(from / MINUTE_MS) + i;
      const day = Math.floor(minute / MINUTES_PER_DAY);
      // A calmer or busier day, and the wander of the audience within it.
      const noise = (0.94 + 0.12 * unit(noiseKey, day)) * (0.9 + 0.2 * smooth(noiseKey, minute / 20));
      values[i] = Math.round(curve.people[minute - day * MINUTES_PER_DAY]! * noise * share);
    }
    return values;
  };
}
