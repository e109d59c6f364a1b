/**
 * pulse-widgets/classes: every element class, the hub's `configure()`, the events and the types,
 * registering nothing. For apps that choose their own tag names or register when they like:
 *
 *   import { LiveCounter } from 'pulse-widgets/classes';
 *   customElements.define('my-counter', class extends LiveCounter {});
 *
 * Only `*.component.ts` modules may be exported here: `<name>.ts` registers its element.
 */
export {
  LiveCounter,
  COUNTER_METRICS,
  type CounterMetric,
} from './elements/live-counter/live-counter.component.ts';
// Types only (nothing runs): the `compare` property that live-counter-typical.ts gives every counter.
export type { TypicalComparison } from './elements/live-counter/live-counter-typical.ts';
export { TopPages, type TopPagesColumn } from './elements/top-pages/top-pages.component.ts';
export { GeoList, GEO_SEGMENTS, type GeoSegment } from './elements/geo-list/geo-list.component.ts';
export {
  ReferrerBars,
  describeReferrer,
  type ReferrerCategory,
} from './elements/referrer-bars/referrer-bars.component.ts';
export { TrafficSources } from './elements/traffic-sources/traffic-sources.component.ts';
export {
  PlatformSplit,
  BREAKDOWNS,
  type Breakdown,
} from './elements/platform-split/platform-split.component.ts';
export { EngagementHistogram } from './elements/engagement-histogram/engagement-histogram.component.ts';
export { HISTOGRAMS, type HistogramName } from './elements/engagement-histogram/histogram-scale.ts';
export { SummaryStats } from './elements/summary-stats/summary-stats.component.ts';
export { HeadlineTests } from './elements/headline-tests/headline-tests.component.ts';
export { TrafficChart } from './elements/traffic-chart/traffic-chart.component.ts';
export { PulseElement, type Theme, type View } from './internal/pulse-element.ts';
export { PulseDataEvent, PulseErrorEvent } from './internal/events.ts';
export { registerTranslation, plurals, type Count, type Translation } from './internal/translations.ts';
export { en, type Terms } from './locales/en.ts';
export {
  configure,
  getHub,
  type Clock,
  type HubOptions,
  type PollError,
  type PollSnapshot,
} from './client/index.ts';
