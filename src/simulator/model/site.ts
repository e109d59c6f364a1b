/**
 * A simulated site: its fixed catalogue of pages and the traits of each page (audience mix,
 * engagement, custom metric profile). Built once per (seed, host); nothing here moves with time.
 */
import { hash, hashText, pick, unit } from './random.ts';
import {
  AUTHORS,
  LONG_TAIL,
  OBJECTS,
  PLATFORM_WEIGHTS,
  SECTIONS,
  SPECIAL_TITLES,
  SUBJECTS,
  VERBS,
} from './vocabulary.ts';

export type CustomMetricDefinition =
  | { key: string; label: string; type: 'number'; min: number; max: number }
  | { key: string; label: string; type: 'string' | 'enum'; values: readonly string[] };

/** Two sets of custom metrics (spec 4.1: labels of letters and underscores, keys starting with _). */
const METRIC_SETS: readonly (readonly CustomMetricDefinition[])[] = [
  [
    { key: '_pw', label: 'Paywall', type: 'enum', values: ['free', 'metered', 'registration', 'hard'] },
    { key: '_rv', label: 'Reader_value', type: 'number', min: -1, max: 5 },
    {
      key: '_cmp',
      label: 'Campaign',
      type: 'string',
      values: [
        'spring-sale',
        'newsletter-0412',
        'app-promo',
        'partner-xyz',
        'podcast',
        'retargeting',
        '<i>raw</i>',
      ],
    },
  ],
  [
    {
      key: '_sub',
      label: 'Subscriber_state',
      type: 'enum',
      values: ['anonymous', 'registered', 'subscriber'],
    },
    { key: '_rt', label: 'Reading_time', type: 'number', min: 0, max: 30 },
    {
      key: '_ab',
      label: 'AB_bucket',
      type: 'string',
      values: ['control', 'blue-button', 'big-hero', 'short-lede', 'no-ads'],
    },
  ],
];

export interface Page {
  index: number;
  /** Path on the site, starting with `/`. */
  path: string;
  title: string;
  authors: string[];
  sections: string[];
  isArticle: boolean;
  /** Share of the site's audience at equal noise (Zipf-like). */
  popularity: number;
  sourceWeights: number[];
  platformWeights: number[];
  /** new, returning, loyal. */
  loyaltyWeights: number[];
  /** read, write, idle. */
  activityWeights: number[];
  /** Centre bucket of the engaged_time histogram. */
  engagement: number;
  scrollDepth: number;
  loadSpeed: number;
  recirculation: number;
  /** Share of the page's people watching its video; 0 when the page has none. */
  videoShare: number;
  pageHeight: number;
  /** Base performance score, or null when the page reports none. */
  performance: number | null;
}

export interface Site {
  host: string;
  /** Site-wide key used as a hash coordinate. */
  key: number;
  /** Brand appended to some titles, as in "… | Example Daily". */
  brand: string;
  accountId: string;
  /** Concurrents at the daily peak. */
  peakPeople: number;
  /** Offset of the audience's local time from UTC, hours (drives the daily curve). */
  utcOffsetHours: number;
  metrics: readonly CustomMetricDefinition[];
  pages: Page[];
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function brandOf(host: string): string {
  const label = host.split('.').find((part) => part !== 'www' && part !== 'news') ?? host;
  const name = label.charAt(0).toUpperCase() + label.slice(1);
  return host.startsWith('news.') ? `${name} News` : `${name} Daily`;
}

function weights(base: readonly number[], key: number, spread: number): number[] {
  return base.map((weight, index) => weight * (1 - spread + 2 * spread * unit(key, index)));
}

const LANDING_PATHS = ['/', ...SECTIONS.map((section) => `/${slug(section)}/`), '/live/', '/search'];

function articleTitle(key: number, index: number, brand: string): string {
  const special = index % 29 === 7 ? SPECIAL_TITLES[((index - 7) / 29) % SPECIAL_TITLES.length] : undefined;
  if (special !== undefined) return special;
  let title = `${pick(SUBJECTS, key, index, 1)} ${pick(VERBS, key, index, 2)} ${pick(OBJECTS, key, index, 3)}`;
  if (unit(key, index, 4) < 0.06) title += LONG_TAIL;
  if (unit(key, index, 5) < 0.2) title += ` | ${brand}`;
  return title;
}

function makePage(site: Pick<Site, 'key' | 'brand'>, index: number, pageCount: number): Page {
  const key = hash(site.key, index);
  const landingPath = LANDING_PATHS[index];
  const isArticle = landingPath === undefined;
  const section = isArticle ? pick(SECTIONS, key, 10) : (SECTIONS[index - 1] ?? 'News');
  const title = isArticle
    ? articleTitle(site.key, index, site.brand)
    : index === 0
      ? `${site.brand}: home`
      : `${section} | ${site.brand}`;
  const path = isArticle
    ? `/${slug(section)}/${slug(title).slice(0, 60) || 'untitled'}-${1000 + index}${index % 53 === 11 ? '/caf%C3%A9' : ''}`
    : landingPath;
  const authorCount = isArticle ? 1 + (hash(key, 11) % 3 === 0 ? 1 : 0) : 0;
  const authors = [...new Set(Array.from({ length: authorCount }, (_, n) => pick(AUTHORS, key, 12, n)))];
  const sections = isArticle && unit(key, 13) < 0.3 ? [section, pick(SECTIONS, key, 14)] : [section];
  // The home page and section fronts lead; articles follow a Zipf tail in a shuffled order.
  const rank = isArticle ? 1 + (hash(key, 15) % pageCount) : index === 0 ? 0.4 : 2 + index;
  return {
    index,
    path,
    title,
    authors,
    sections: [...new Set(sections)],
    isArticle,
    popularity: 1 / rank ** 0.9,
    sourceWeights: weights(isArticle ? [22, 14, 24, 18, 16, 6] : [55, 5, 15, 5, 15, 5], key + 1, 0.6),
    platformWeights: weights(PLATFORM_WEIGHTS, key + 2, 0.5),
    loyaltyWeights: weights([30, 45, 25], key + 3, 0.5),
    activityWeights: weights([60, 4, 36], key + 4, 0.4),
    engagement: 2 + 5 * unit(key, 16),
    scrollDepth: isArticle ? 2 + 6 * unit(key, 17) : 1 + 2 * unit(key, 17),
    loadSpeed: 0.5 + 3 * unit(key, 18),
    recirculation: isArticle ? 0.05 + 0.25 * unit(key, 19) : 0.02,
    videoShare: unit(key, 20) < 0.35 ? 0.1 + 0.5 * unit(key, 21) : 0,
    pageHeight: Math.round(isArticle ? 3000 + 9000 * unit(key, 22) : 2000 + 4000 * unit(key, 22)),
    performance: unit(key, 23) < 0.1 ? null : Math.round(40 + 60 * unit(key, 24)),
  };
}

export function createSite(seed: number, host: string, position: number): Site {
  const key = hash(seed, hashText(host));
  const brand = brandOf(host);
  const pageCount = 240 + (key % 120);
  const site = { key, brand };
  return {
    host,
    key,
    brand,
    accountId: String(10000 + (key % 90000)),
    peakPeople: 600 + (key % 2400),
    utcOffsetHours: position % 2 === 0 ? -5 : 1,
    metrics: METRIC_SETS[position % METRIC_SETS.length]!,
    pages: Array.from({ length: pageCount }, (_, index) => makePage(site, index, pageCount)),
  };
}
