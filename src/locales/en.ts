/**
 * Every word the elements show or say, in English: the catalog every other language copies. Its
 * type is the contract of a translation (`Terms`), so a language missing a term, or giving a
 * sentence the wrong arguments, does not compile. A term with a count takes a `Count` and picks
 * its plural form through `Intl.PluralRules` (`plurals`); numbers arrive formatted in the locale.
 *
 * One section per element, its terms prefixed (`counter…` for <live-counter>, `pages…` for
 * <top-pages>, …), plus the card's and the shared words: an element bundles the English of its
 * own sections only, which keeps the card elements small; `en` is all of them.
 */
import { plurals, type Count } from '../internal/translations.ts';

const plural = plurals('en');

/** The card every element draws, and words several elements share. */
export const cardTerms = {
  loading: 'Loading…',
  updated: (age: string) => `Updated ${age}.`,
  outOfDate: (age: string) => `Out of date: last updated ${age}.`,
  paused: 'Paused while this page is hidden or offline.',
  pausedUpdated: (age: string) => `Paused; updated ${age}.`,
  sourceMissing: (path: string) => `No data source: src must be the address of a ${path} resource.`,
  sourceInvalid: (path: string) =>
    `The data source is not a valid address: src must be the address of a ${path} resource.`,
  sourceWrong: (path: string) => `src must be the address of a ${path} resource.`,
  sourceOne: (path: string) => `src takes one address: src must be the address of a ${path} resource.`,
  errorUnreachable: 'The data source could not be reached.',
  errorInvalidData: 'The data source sent data in an unexpected shape.',
  errorUnknownSource: 'This address is not a data source this widget knows.',
  errorBusy: 'The data source is busy; retrying shortly.',
  errorUnavailable: (status: number) => `The data source is unavailable (HTTP ${status}).`,
  /** The cache endpoint's 502 `upstream_invalid`: the service answered, but with a body nothing could be shown from. */
  errorUpstreamInvalid: (status: number) =>
    `The analytics service sent an answer that could not be read (HTTP ${status}).`,
  errorNotFound: 'The data source was not found (HTTP 404).',
  errorRefused: (status: number) => `The data source refused the request (HTTP ${status}).`,
  /** The cache endpoint's own explanation of a refusal, which is not translated. */
  errorExplained: (reason: string) => reason,
  /** Read out in place of "—" where the answer lacks a value. */
  noData: 'no data',
};

/**
 * Where visitors come from and what they use, as the stats object names them (spec 2.2): the
 * traffic sources, platforms and loyalty, and the empty referrer (dark social). The elements
 * that break visitors down by them share these (<summary-stats> its new and returning visitors).
 */
/** The lists of shares (src/internal/share-list.ts: geo-list, referrer-bars, traffic-sources, platform-split). */
export const shareListTerms = {
  visitorsUnit: (count: Count) => plural(count, { one: 'visitor', other: 'visitors' }),
};

export const trafficTerms = {
  sourceDirect: 'Direct',
  sourceSearch: 'Search',
  sourceSocial: 'Social',
  sourceLinks: 'Links',
  sourceInternal: 'Internal',
  sourceSubscriptions: 'Subscriptions',
  platformDesktop: 'Desktop',
  platformMobile: 'Mobile',
  platformTablet: 'Tablet',
  platformApp: 'App',
  platformOther: 'Other',
  loyaltyNew: 'New',
  loyaltyReturning: 'Returning',
  loyaltyLoyal: 'Loyal',
  referrersNone: 'Dark social (no referrer)',
};

/** Several sites in one element (the network view) and the freeze control of a list: newsroom features (src/newsroom.ts). */
export const networkTerms = {
  /** The sites whose last data stays in the merge while their requests fail ("a.example and b.example"). */
  partial: (sites: string) => `Partial: no fresh data from ${sites}.`,
  sourceTooMany: (max: number) => `src takes at most ${max} addresses, one per site.`,
  freeze: 'Freeze',
  freezeWaiting: (count: Count) =>
    count.value === 0
      ? 'No update waiting'
      : plural(count, { one: `${count} update waiting`, other: `${count} updates waiting` }),
  freezeOn: 'Frozen: rows stay still while updates arrive.',
  freezeOff: 'Showing the latest update.',
};

/** <live-counter> */
export const liveCounterTerms = {
  counterPeople: 'People on the site now',
  counterRead: 'People reading now',
  counterWrite: 'People writing now',
  counterIdle: 'Idle visitors now',
  counterNew: 'New visitors now',
  counterArticle: 'People on articles now',
  counterRecirc: 'Recirculated visitors now',
  counterDirect: 'Visitors from direct traffic now',
  counterLinks: 'Visitors from links now',
  counterSearch: 'Visitors from search now',
  counterSocial: 'Visitors from social networks now',
  counterInternal: 'Visitors from internal links now',
  counterSubscr: 'Visitors from subscriptions now',
  counterVisits: 'Visits',
  counterPages: 'Pages being read now',
  counterNoMetric: (metric: string) => `This data has no “${metric}” figure.`,
  counterUp: (size: string) => `up ${size} since the previous update`,
  counterDown: (size: string) => `down ${size} since the previous update`,
  counterSame: 'no change since the previous update',
  counterTrend: (updates: Count, first: string, last: string, low: string, high: string) =>
    `Trend over the last ${updates} updates: from ${first} to ${last}, lowest ${low}, highest ${high}.`,
  counterAnnouncement: (label: string, value: string) => `${label}: ${value}`,
};

/** <live-counter compare="typical"> */
export const typicalTerms = {
  typicalAbove: (share: string) => `${share} above typical`,
  typicalBelow: (share: string) => `${share} below typical`,
  typicalSame: 'about typical',
  /** Completes the sentence for screen readers: "18 % above typical for this time of day". */
  typicalContext: 'for this time of day',
  typicalSparkline: (from: string, to: string, low: string, high: string) =>
    `Today since midnight: from ${from} to ${to} now, lowest ${low}, highest ${high}.`,
};

/** <top-pages> */
export const topPagesTerms = {
  pagesLabel: 'Top pages now',
  pagesArticlesLabel: 'Top articles now',
  pagesEmpty: 'No pages are being read right now.',
  pagesRank: 'Rank',
  pagesPage: 'Page',
  pagesPeople: 'People',
  pagesNew: 'New',
  /** Read after the rank, so they start with a comma. */
  pagesSameRank: ', no change',
  pagesRankUp: (places: Count) => `, up ${places}`,
  pagesRankDown: (places: Count) => `, down ${places}`,
  pagesAnnouncement: (title: string) => `Top page now: ${title}`,
  /** Before a row's site name in a merge of several sites, for screen readers. */
  pagesSite: 'Site',
};

/** The detail columns of <top-pages> and its custom metrics: a newsroom feature. */
export const topPagesColumnTerms = {
  pagesSections: 'Sections',
  pagesAuthors: 'Authors',
  pagesEngagedTime: 'Engaged time',
  pagesSources: 'Sources',
  pagesReferrers: 'Referrers',
  pagesPlatforms: 'Platforms',
  pagesLoyalty: 'Loyalty',
  pagesType: 'Type',
  pagesReadNext: 'Read next',
  /** The two page types of `types=1` (spec 4.1). */
  pagesTypeArticle: 'Article',
  pagesTypeLanding: 'Landing page',
  /** How many sites send readers to a page, then the top ones ("Google 39, Bing 19"), if any. */
  pagesReferrerCount: (count: Count, top: string) =>
    plural(count, { one: `${count} referrer`, other: `${count} referrers` }) + (top && `: ${top}`),
  pagesMetricAverage: (value: string) => `avg ${value}`,
  pagesMetricSum: (value: string) => `sum ${value}`,
};

/** An opened row of <top-pages>, the page's own live numbers: a newsroom feature. */
export const pageDetailTerms = {
  /** The accessible name of a row's open button. */
  detailOpen: (title: string) => `Live numbers of ${title}`,
  detailOpened: (title: string) => `Showing live numbers of ${title}`,
  detailClosed: (title: string) => `Closed live numbers of ${title}`,
  detailPeople: 'People on this page now',
  detailSources: 'Where they came from',
  detailPlatforms: 'Platforms',
  detailReferrers: 'Top referrers',
};

/** <geo-list> */
export const geoListTerms = {
  geoCountries: 'Visitors by country',
  geoRegions: 'Visitors by region',
  geoCities: 'Visitors by city',
  geoMetroCodes: 'Visitors by metro area',
  geoMetroArea: (code: string) => `Metro area ${code}`,
  geoEmpty: 'No visitors with a known location right now.',
  geoAnnouncement: (place: string) => `Most visitors now from ${place}`,
};

/** <referrer-bars> */
export const referrerBarsTerms = {
  referrersLabel: 'Top referrers now',
  referrersGroupedLabel: 'Visitors by kind of referrer',
  referrersEmpty: 'No referred visitors right now.',
  referrersSearch: 'Search engines',
  referrersSocial: 'Social networks',
  referrersNews: 'News aggregators',
  referrersAi: 'AI assistants',
  referrersDark: 'Dark social',
  referrersOther: 'Other sites',
  referrersAnnouncement: (name: string) => `Top referrer now: ${name}`,
};

/** <traffic-sources> */
export const trafficSourcesTerms = {
  sourcesLabel: 'Visitors by traffic source',
  sourcesEmpty: 'Nobody from these sources right now.',
  sourcesAnnouncement: (source: string) => `Most visitors now from ${source.toLowerCase()}`,
};

/** <platform-split> */
export const platformSplitTerms = {
  splitPlatform: 'Visitors by platform',
  splitPlatformEngaged: 'Engaged visitors by platform',
  splitLoyalty: 'New, returning and loyal visitors',
  splitEmpty: 'Nobody to break down right now.',
  splitAnnouncement: (group: string) => `Largest group now: ${group}`,
};

/** <engagement-histogram> */
export const engagementHistogramTerms = {
  histogramEngagedTime: 'Engaged time of visitors now',
  histogramEngagedVisit: 'Engaged minutes per visit',
  histogramVisit: 'Minutes per visit',
  histogramWritingVisit: 'Writing minutes per visit',
  histogramScroll: 'How far visitors scroll',
  histogramDomload: 'Page load time (DOM ready)',
  histogramEmpty: 'No values to show right now.',
  histogramUpTo: (value: string) => `up to ${value}`,
  histogramOver: (value: string) => `over ${value}`,
  histogramMedian: 'Median',
  histogramAverage: 'Average',
  histogramValues: (count: Count) => plural(count, { one: `${count} value`, other: `${count} values` }),
  histogramShowTable: 'Show table',
  histogramHideTable: 'Hide table',
  histogramRange: 'Range',
  histogramCount: 'Values',
  histogramShare: 'Share',
  histogramAnnouncement: (label: string, median: string) => `${label}: median ${median}`,
};

/** Who a metric counts, as a noun phrase ("people reading"). */
const CHART_WHO: Record<string, string> = {
  people: 'people',
  read: 'people reading',
  write: 'people writing',
  idle: 'idle visitors',
  new: 'new visitors',
  direct: 'people from direct traffic',
  links: 'people from links',
  search: 'people from search',
  social: 'people from social networks',
  internal: 'people from internal links',
  subscr: 'people from subscriptions',
};
const chartWho = (metric: string) =>
  CHART_WHO[metric] ?? (metric.startsWith('platform_') ? `people on platform ${metric.slice(9)}` : metric);

/** <traffic-chart>: numbers, times and weekdays arrive formatted in the element's locale. */
export const trafficChartTerms = {
  chartLabel: (metric: string, range: string) => {
    const subject =
      metric === 'people'
        ? 'People on the site'
        : chartWho(metric).replace(/^./, (first) => first.toUpperCase());
    return `${subject} ${range === '7d' ? 'over the last 7 days' : range === '24h' ? 'over the last 24 hours' : 'today'}`;
  },
  chartToday: 'Today',
  /** The line and column of the recorded values when the range is not today. */
  chartRecorded: 'Recorded',
  chartNowLegend: 'Now',
  chartMedian: 'Typical (median)',
  chartBand: 'Typical range (10th–90th percentile)',
  /** "1,240 people now" */
  chartNow: (value: string, metric: string) => `${value} ${chartWho(metric)} now`,
  /** "1,240 people now, 18 % above a typical Monday at 14:05." */
  chartSummary: (now: string, comparison: string, footing: string) =>
    `${now}${comparison && `, ${comparison}`}${footing ? ` (${footing})` : ''}.`,
  chartAbove: (share: string, weekday: string, time: string) =>
    `${share} above a typical ${weekday} at ${time}`,
  chartBelow: (share: string, weekday: string, time: string) =>
    `${share} below a typical ${weekday} at ${time}`,
  chartSame: (weekday: string, time: string) => `about the same as a typical ${weekday} at ${time}`,
  chartNoTypical: 'no typical day recorded yet for this time',
  /** Said when the band stands on fewer than 4 weeks. */
  chartWeeks: (weeks: Count) =>
    plural(weeks, {
      one: `typical from ${weeks} week of history`,
      other: `typical from ${weeks} weeks of history`,
    }),
  chartHistoryLoading: 'Loading the day so far…',
  chartHistoryError: (message: string) => `The day so far cannot be shown: ${message}`,
  chartTableToggle: 'Show the data as a table',
  chartCaption7d: 'The last 7 days, every 6 hours, against the typical band',
  chartCaption24h: 'The last 24 hours by hour against the typical band',
  chartCaptionToday: (weekday: string) => `Today by hour against a typical ${weekday}`,
  chartTime: 'Time',
  chartTypical: 'Typical',
  chartTypicalRange: 'Typical range',
  chartRange: (low: string, high: string) => `${low} to ${high}`,
  chartNoData: 'no data',
};

/** <summary-stats> */
export const summaryStatsTerms = {
  summaryLabel: 'Visitor statistics now',
  summaryEmpty: 'No values reported right now.',
  summaryMeasurements: 'Measurements',
  summaryField: 'Field',
  summaryMin: 'Min',
  summaryAverage: 'Average',
  summaryDeviation: 'Std dev',
  summaryDeviationLong: 'Standard deviation',
  summaryMax: 'Max',
  summaryVisitors: 'Visitors',
  summaryValue: 'Value',
  summaryNoValue: '(none)',
  summaryOtherValues: (count: Count) =>
    plural(count, { one: `${count} other value`, other: `${count} other values` }),
  summaryPagetimer: 'DOM load time',
  summaryTimeSpent: 'Time on page',
  summaryWindowHeight: 'Window height',
  summaryScrollTop: 'Scroll offset',
  summaryPageHeight: 'Page height',
  summaryRead: 'Reading',
  summaryWrite: 'Writing',
  summaryIdle: 'Idle',
  summaryDomain: 'Domain',
  summaryUid: 'Account',
  summaryHost: 'Reported host',
  summaryTitle: 'Page title',
  summaryNew: 'New visitor',
  summaryPath: 'Path',
  summaryReferrer: 'Referrer',
  summaryToken: 'Page session',
  summaryUser: 'User token',
};

/** <headline-tests> */
export const headlineTestsTerms = {
  testsLabel: 'Headline tests',
  testsEmpty: 'No headline tests in this range.',
  testsLoaded: (count: Count) =>
    plural(count, { one: `${count} headline test loaded`, other: `${count} headline tests loaded` }),
  testsSummary: (tests: Count, variants: Count, start: string, end: string, zone: string) =>
    `${plural(tests, { one: `${tests} test`, other: `${tests} tests` })}, ${plural(variants, { one: `${variants} variant`, other: `${variants} variants` })}, ${start} to ${end} (${zone})`,
  testsStatusDraft: 'Draft',
  testsStatusActive: 'Active',
  testsStatusCompleted: 'Completed',
  testsStatusArchived: 'Archived',
  testsTypeHeadline: 'Headline',
  testsCreated: (date: string) => `Created ${date}`,
  testsCompleted: (date: string) => `Completed ${date}`,
  testsVariant: 'Variant',
  testsClickThrough: 'Click-through rate',
  testsEngagement: 'Engagement',
  testsProbability: 'Probability best',
  testsWinner: 'Winner',
  testsPages: 'Pages of headline tests',
  testsPrevious: 'Previous',
  testsNext: 'Next',
  testsPage: (page: string, pages: string) => `Page ${page} of ${pages}`,
  testsDownload: (variants: Count) =>
    plural(variants, {
      one: `Download CSV (${variants} variant)`,
      other: `Download CSV (${variants} variants)`,
    }),
  /** Column headers of the CSV download, in its column order. */
  testsCsvHeaders: [
    'Experiment ID',
    'Status',
    'Type',
    'Path',
    'Created',
    'Completed',
    'Winning variant',
    'Variant ID',
    'Headline',
    'CTR mean',
    'CTR low',
    'CTR high',
    'Engagement mean',
    'Engagement low',
    'Engagement high',
    'Probability best',
  ] as readonly string[],
};

/** The board page (`/board/`) and its builder. */
export const boardTerms = {
  boardTitle: 'Live audience',
  boardSites: (count: Count) => plural(count, { one: `${count} site`, other: `${count} sites` }),
  boardUnknownParam: (name: string) => `Unknown setting “${name}” ignored.`,
  /** `allowed`: the values, as a list in the language. */
  boardBadValue: (name: string, value: string, allowed: string) =>
    `“${value}” is not a value of ${name} (one of ${allowed}); ignored.`,
  boardSiteNotServed: (site: string) => `Site “${site}” is not served here; left out.`,
  boardNumbersHidden: (cards: string) =>
    `With numbers hidden, only ranks and titles show: ${cards} left out.`,
  boardBadLang: (lang: string) => `“${lang}” is not a language tag; ignored.`,
  boardBadRotate: (value: string, min: number, max: number) =>
    `rotate must be a number of seconds from ${min} to ${max}, not “${value}”; not rotating.`,
  boardRotateNeedsSites: 'rotate needs several sites to rotate between; not rotating.',
  boardNoSites: 'This endpoint serves no site.',
  boardConnecting: 'Connecting to the cache…',
  boardRetrying: (seconds: Count) => `The cache cannot be reached; trying again in ${seconds} s.`,
  boardCardPages: 'Most read now',
  boardCardCounter: 'People on the site now',
  boardCardReferrers: 'Top referrers',
  boardCardGeo: 'Where readers are',
  boardCardSources: 'Where they came from',
  boardCardPlatforms: 'Platforms',
  boardSetUp: 'Set up this board',
  builderTitle: 'Set up a board',
  builderIntro:
    "Choose what the board shows; the board's address keeps the choice, so a TV or a kiosk browser needs only that address.",
  builderSites: 'Sites (several make one merged ranking)',
  builderSitesLoading: 'Loading the sites this endpoint serves…',
  builderCards: 'Cards',
  builderCardPages: 'Most read pages',
  builderCardCounter: 'People on the site',
  builderCardReferrers: 'Top referrers',
  builderCardGeo: 'Countries',
  builderCardSources: 'Traffic sources (one site at a time)',
  builderCardPlatforms: 'Platforms (one site at a time)',
  builderDisplay: 'Display',
  builderTitleField: 'Title',
  builderTheme: 'Theme',
  builderThemeDark: 'Dark',
  builderThemeLight: 'Light',
  builderThemeAuto: 'Follow the system',
  builderSize: 'Size',
  builderSizeS: 'Small (more rows)',
  builderSizeM: 'Medium',
  builderSizeL: 'Large (fewer rows, read from further)',
  builderLanguage: 'Language',
  builderHideNumbers: 'Hide numbers (ranks and titles only)',
  builderRotate: 'Rotate between sites every',
  builderRotateUnit: 'seconds (empty: no rotation)',
  builderOpen: 'Open the board',
};

/** The whole catalog: what a translation must give. Elements take only their sections (the English fallback they bundle). */
export type Terms = typeof cardTerms &
  typeof shareListTerms &
  typeof trafficTerms &
  typeof networkTerms &
  typeof liveCounterTerms &
  typeof typicalTerms &
  typeof topPagesTerms &
  typeof topPagesColumnTerms &
  typeof pageDetailTerms &
  typeof geoListTerms &
  typeof referrerBarsTerms &
  typeof trafficSourcesTerms &
  typeof platformSplitTerms &
  typeof engagementHistogramTerms &
  typeof trafficChartTerms &
  typeof summaryStatsTerms &
  typeof headlineTestsTerms &
  typeof boardTerms;

export const en: Terms = /* @__PURE__ */ Object.assign(
  {},
  cardTerms,
  shareListTerms,
  trafficTerms,
  networkTerms,
  liveCounterTerms,
  typicalTerms,
  topPagesTerms,
  topPagesColumnTerms,
  pageDetailTerms,
  geoListTerms,
  referrerBarsTerms,
  trafficSourcesTerms,
  platformSplitTerms,
  engagementHistogramTerms,
  trafficChartTerms,
  summaryStatsTerms,
  headlineTestsTerms,
  boardTerms,
);

/** The terms that are plain text (no arguments). */
export type TextTerm = { [K in keyof Terms]: Terms[K] extends string ? K : never }[keyof Terms];
