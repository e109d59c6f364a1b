/**
 * Every reader-visible string of <traffic-chart>, in
 * English, in one typed object so they move into the message catalog (src/locales/) as they are.
 * Numbers, times and weekdays arrive formatted in the element's locale.
 */
const plural = new Intl.PluralRules('en');

/** Who a metric counts, as a noun phrase. */
const WHO: Record<string, string> = {
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
const who = (metric: string) => WHO[metric] ?? (metric.startsWith('platform_') ? `people on platform ${metric.slice(9)}` : metric);

export const trafficChartStrings = {
  defaultLabel: (metric: string, range: string) => {
    const subject = metric === 'people' ? 'People on the site' : who(metric).replace(/^./, (first) => first.toUpperCase());
    return `${subject} ${range === '7d' ? 'over the last 7 days' : range === '24h' ? 'over the last 24 hours' : 'today'}`;
  },
  empty: (metric: string) => `This data has no “${metric}” figure.`,
  legendToday: (range: string) => (range === 'today' ? 'Today' : 'Recorded'),
  legendNow: 'Now',
  legendMedian: 'Typical (median)',
  legendBand: 'Typical range (10th–90th percentile)',
  /** "1,240 people now" */
  now: (value: string, metric: string) => `${value} ${who(metric)} now`,
  /** "1,240 people now, 18 % above a typical Monday at 14:05." */
  summary: (now: string, comparison: string, footing: string) => `${now}, ${comparison}${footing ? ` (${footing})` : ''}.`,
  above: (share: string, weekday: string, time: string) => `${share} above a typical ${weekday} at ${time}`,
  below: (share: string, weekday: string, time: string) => `${share} below a typical ${weekday} at ${time}`,
  same: (weekday: string, time: string) => `about the same as a typical ${weekday} at ${time}`,
  noTypical: 'no typical day recorded yet for this time',
  /** Said when the band stands on fewer than 4 weeks. */
  weeks: (weeks: number) => (weeks === 0 ? '' : `typical from ${weeks} ${plural.select(weeks) === 'one' ? 'week' : 'weeks'} of history`),
  historyLoading: 'Loading the day so far…',
  historyError: (message: string) => `The day so far cannot be shown: ${message}`,
  tableToggle: 'Show the data as a table',
  tableCaption: (range: string, weekday: string) => (range === '7d'
    ? 'The last 7 days, every 6 hours, against the typical band'
    : range === '24h' ? 'The last 24 hours by hour against the typical band' : `Today by hour against a typical ${weekday}`),
  columnTime: 'Time',
  columnToday: (range: string) => (range === 'today' ? 'Today' : 'Recorded'),
  columnMedian: 'Typical',
  columnRange: 'Typical range',
  range: (low: string, high: string) => `${low} to ${high}`,
  noData: 'no data',
} as const;
