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
    const hour = (((minute / 60 + site.utcOffsetHours) % 24) + 24) % 24;
    let weight = 0;
    for (const page of site.pages)
      weight += page.popularity * pageFreshness(site, page, hour) * (view === 'video' ? page.videoShare : 1);
    // slow and fast noise of the model average 1 over a page's day.
    people[minute] = (site.peakPeople * dailyCurve(hour) * weight) / (totalPopularity * 2);
  }
  const mix = (weightsOf: (page: Site['pages'][number]) => readonly number[], index: number) =>
    site.pages.reduce((sum, page) => sum + page.popularity * normalised(weightsOf(page))[index]!, 0) /
    totalPopularity;
  const shares = { people: 1 } as Record<HistoryMetric, number>;
  (['read', 'write', 'idle'] as const).forEach(
    (metric, index) => (shares[metric] = mix((page) => page.activityWeights, index)),
  );
  shares.new = mix((page) => page.loyaltyWeights, 0);
  SOURCES.forEach((source, index) => (shares[source] = mix((page) => page.sourceWeights, index)));
  PLATFORMS.forEach(
    (letter, index) => (shares[`platform_${letter}`] = mix((page) => page.platformWeights, index)),
  );
  return { people, shares };
}

/** Days of people kept per site: what a 35-day history with its 4-week band reads. */
const KEPT_DAYS = 40;

/** A site's history reader: `read(metric, from, minutes)` gives one value per minute. */
export function siteHistory(
  site: Site,
  view: View,
): (metric: HistoryMetric, from: number, minutes: number) => Float64Array {
  let curve: SiteCurve | undefined;
  const noiseKey = hash(site.key, view === 'video' ? 1 : 0, 70);
  // People per minute of a UTC day, noise included: computed once per day, shared by every metric.
  const days = new Map<number, Float64Array>();
  const peopleOf = (day: number): Float64Array => {
    let people = days.get(day);
    if (!people) {
      curve ??= siteCurve(site, view);
      people = new Float64Array(MINUTES_PER_DAY);
      // A calmer or busier day, and the wander of the audience within it.
      const level = 0.94 + 0.12 * unit(noiseKey, day);
      for (let minute = 0; minute < MINUTES_PER_DAY; minute++) {
        people[minute] =
          curve.people[minute]! *
          level *
          (0.9 + 0.2 * smooth(noiseKey, (day * MINUTES_PER_DAY + minute) / 20));
      }
      if (days.size >= KEPT_DAYS) days.delete(days.keys().next().value!);
      days.set(day, people);
    }
    return people;
  };
  return (metric, from, minutes) => {
    const values = new Float64Array(minutes);
    const first = Math.floor(from / MINUTE_MS);
    for (let i = 0; i < minutes; ) {
      const day = Math.floor((first + i) / MINUTES_PER_DAY);
      const people = peopleOf(day);
      const share = curve!.shares[metric];
      const start = first + i - day * MINUTES_PER_DAY;
      const count = Math.min(MINUTES_PER_DAY - start, minutes - i);
      for (let m = 0; m < count; m++) values[i + m] = Math.round(people[start + m]! * share);
      i += count;
    }
    return values;
  };
}
