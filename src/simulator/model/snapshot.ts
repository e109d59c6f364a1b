/**
 * The state of a site at one 3-second step, computed directly from (seed, site, step): each page's
 * concurrents follow the daily curve, a publication bump and smooth noise, and every breakdown is a
 * whole-number split of those concurrents, so the parts always add up to `people`.
 */
import type { FullHistogram } from '../../api/index.ts';
import { BREAKS, bellHistogram } from './histogram.ts';
import { hash, jitter, roundAt, smooth, split, unit } from './random.ts';
import type { Page, Site } from './site.ts';
import { REFERRERS, SOURCES, VIDEO_STATES, type Source } from './vocabulary.ts';

/** Real-time data advances every 3 s (spec 1 and 8). */
export const STEP_MS = 3000;

/** `site`: the audience of the pages; `video`: the viewers of their videos (a `video@` host). */
export type View = 'site' | 'video';

export interface PageState {
  page: Page;
  people: number;
  sources: Record<Source, number>;
  platform: number[];
  platformEngaged: number[];
  /** new, returning, loyal. */
  loyalty: number[];
  read: number;
  write: number;
  idle: number;
  visits: number;
  crowd: number;
  recirc: number;
  performance: number | null;
  readonly histograms: {
    engaged_visit: FullHistogram;
    engaged_time: FullHistogram;
    writing_visit: FullHistogram;
    domload: FullHistogram;
    scroll: FullHistogram;
    visit: FullHistogram;
  };
  /** Coordinates for everything derived later from this state. */
  key: number;
}

export interface Snapshot {
  site: Site;
  view: View;
  step: number;
  /** Pages with at least one person, in catalogue order. */
  pages: PageState[];
  people: number;
}

const HOUR_MS = 3_600_000;

/** Share of the daily peak online at a local hour: a morning, a lunch and an evening bump. */
export function dailyCurve(hour: number): number {
  const bump = (center: number, width: number) =>
    Math.exp(-((((hour - center + 36) % 24) - 12) ** 2) / (2 * width * width));
  return 0.12 + 0.55 * bump(8, 1.8) + 0.45 * bump(13, 1.5) + 0.7 * bump(20.5, 2.2);
}

/** Articles get a bump after their (daily) publication hour that fades over a few hours. */
export function pageFreshness(site: Site, page: Page, hour: number): number {
  if (!page.isArticle) return 2;
  const publishedHour = 24 * unit(hash(site.key, page.index), 30);
  return 1 + 3 * Math.exp(-((hour - publishedHour + 24) % 24) / 3);
}

/** Concurrents of a page at a step, before the video view is applied. */
function pagePeople(site: Site, page: Page, step: number, totalPopularity: number): number {
  const seconds = step * (STEP_MS / 1000);
  const hour = ((((step * STEP_MS) / HOUR_MS + site.utcOffsetHours) % 24) + 24) % 24;
  const key = hash(site.key, page.index);
  const freshness = pageFreshness(site, page, hour);
  const slow = 0.3 + 1.4 * smooth(hash(key, 31), seconds / 1200);
  const fast = 0.85 + 0.3 * smooth(hash(key, 32), seconds / 30);
  const expected =
    (site.peakPeople * dailyCurve(hour) * page.popularity * freshness * slow * fast) / (totalPopularity * 2);
  return roundAt(expected, key, step, 33);
}

/** People watching the page's video, a subset of its `people`. */
export function videoViewers(site: Site, page: Page, people: number, step: number): number {
  return page.videoShare === 0 ? 0 : roundAt(people * page.videoShare, site.key, page.index, step, 34);
}

/** A smooth drift in [-0.5, 0.5) of one trait of a page state (`salt`) over the steps. */
function drift(key: number, salt: number, step: number): number {
  return smooth(hash(key, salt), step / 100) - 0.5;
}

/** A page's state; its histograms, the costly part that most pages never show, are made on first use. */
class LazyPageState implements PageState {
  declare page: Page;
  declare people: number;
  declare sources: Record<Source, number>;
  declare platform: number[];
  declare platformEngaged: number[];
  declare loyalty: number[];
  declare read: number;
  declare write: number;
  declare idle: number;
  declare visits: number;
  declare crowd: number;
  declare recirc: number;
  declare performance: number | null;
  declare key: number;
  readonly #step: number;
  #histograms?: PageState['histograms'];

  constructor(fields: Omit<PageState, 'histograms'>, step: number) {
    Object.assign(this, fields);
    this.#step = step;
  }

  get histograms(): PageState['histograms'] {
    const { page, people, key } = this;
    const step = this.#step;
    this.#histograms ??= {
      engaged_visit: bellHistogram(
        BREAKS.visitMinutes,
        people,
        page.engagement / 2 + drift(key, 49, step),
        1.6,
      ),
      engaged_time: bellHistogram(
        BREAKS.engagedSeconds,
        people,
        page.engagement + 2 * drift(key, 50, step),
        2,
      ),
      writing_visit: bellHistogram(BREAKS.visitMinutes, people, 0, 0.5),
      domload: bellHistogram(BREAKS.domloadSeconds, people, page.loadSpeed + drift(key, 51, step), 1.2),
      scroll: bellHistogram(BREAKS.scrollTenths, people, page.scrollDepth + drift(key, 52, step), 1.8),
      visit: bellHistogram(BREAKS.visitMinutes, people, page.engagement / 2 + 1 + drift(key, 53, step), 1.8),
    };
    return this.#histograms;
  }
}

function pageState(site: Site, page: Page, people: number, step: number, view: View): PageState {
  const key = hash(site.key, page.index, view === 'video' ? 1 : 0);
  const [direct = 0, links = 0, search = 0, social = 0, internal = 0, subscr = 0] = split(
    people,
    jitter(page.sourceWeights, 0.15, key, step, 40),
  );
  const platform = split(people, jitter(page.platformWeights, 0.1, key, step, 41));
  const [read = 0, write = 0, idle = 0] = split(people, jitter(page.activityWeights, 0.2, key, step, 42));
  return new LazyPageState(
    {
      page,
      people,
      sources: { direct, links, search, social, internal, subscr },
      platform,
      platformEngaged: split(people - idle, platform),
      loyalty: split(people, jitter(page.loyaltyWeights, 0.1, key, step, 43)),
      read,
      write,
      idle,
      visits: people + roundAt(people * 0.6 * unit(key, step, 44), key, step, 45),
      crowd: roundAt(people * 0.08, key, step, 46),
      recirc: Math.min(people, roundAt(people * page.recirculation, key, step, 47)),
      performance:
        page.performance === null
          ? null
          : Math.min(100, Math.round(page.performance + 10 * drift(key, 48, step))),
      key,
    },
    step,
  );
}

export function computeSnapshot(site: Site, step: number, view: View): Snapshot {
  const totalPopularity = site.pages.reduce((sum, page) => sum + page.popularity, 0);
  const pages: PageState[] = [];
  let people = 0;
  for (const page of site.pages) {
    let count = pagePeople(site, page, step, totalPopularity);
    if (view === 'video') count = videoViewers(site, page, count, step);
    if (count === 0) continue;
    pages.push(pageState(site, page, count, step, view));
    people += count;
  }
  return { site, view, step, pages, people };
}

/** Referrer name with the site's host filled in. */
export function referrerName(site: Site, template: string): string {
  return template.replace('{host}', site.host);
}

/** The page's concurrents by referrer, grouped by traffic source; zero counts left out. */
export function pageReferrers(
  site: Site,
  state: PageState,
  step: number,
): Record<Source, Map<string, number>> {
  const result = {} as Record<Source, Map<string, number>>;
  SOURCES.forEach((source, sourceIndex) => {
    const names = REFERRERS[source];
    // Earlier names are the bigger referrers site-wide; each page varies around that.
    const weights = names.map(
      (_, index) => (1 / (index + 1) ** 1.1) * (0.3 + unit(state.key, 60, sourceIndex, index)),
    );
    const counts = split(state.sources[source], jitter(weights, 0.2, state.key, step, 61 + sourceIndex));
    const map = new Map<string, number>();
    names.forEach((name, index) => {
      if (counts[index]! > 0) map.set(referrerName(site, name), counts[index]!);
    });
    result[source] = map;
  });
  return result;
}

/** Video viewers of a page by player state. */
export function videoStates(state: PageState, viewers: number, step: number): Record<string, number> {
  const counts = split(viewers, jitter([60, 15, 5, 12, 8], 0.3, state.key, step, 70));
  return Object.fromEntries(VIDEO_STATES.map((name, index) => [name, counts[index]!]));
}
