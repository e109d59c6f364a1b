/**
 * pulse-widgets: importing this module registers every element: <live-counter>, <top-pages>,
 * <geo-list>, <referrer-bars>, <traffic-sources>, <platform-split>, <engagement-histogram>,
 * <summary-stats> and <headline-tests>. Each element module also registers itself, for pages
 * that need only one.
 */
export { LiveCounter, COUNTER_METRICS, type CounterMetric } from './elements/live-counter/live-counter.ts';
export { TopPages, type TopPagesColumn } from './elements/top-pages/top-pages.ts';
export { GeoList, GEO_SEGMENTS, type GeoSegment } from './elements/geo-list/geo-list.ts';
export { ReferrerBars, describeReferrer, type ReferrerCategory } from './elements/referrer-bars/referrer-bars.ts';
export { TrafficSources } from './elements/traffic-sources/traffic-sources.ts';
export { PlatformSplit, BREAKDOWNS, type Breakdown } from './elements/platform-split/platform-split.ts';
export { EngagementHistogram } from './elements/engagement-histogram/engagement-histogram.ts';
export { HISTOGRAMS, type HistogramName } from './elements/engagement-histogram/histogram-scale.ts';
export { SummaryStats } from './elements/summary-stats/summary-stats.ts';
export { HeadlineTests } from './elements/headline-tests/headline-tests.ts';
export { PulseElement, type Theme, type View } from './internal/pulse-element.ts';
export { PulseDataEvent, PulseErrorEvent } from './internal/events.ts';
export { configure, getHub, type Clock, type HubOptions, type PollError, type PollSnapshot } from './client/index.ts';
