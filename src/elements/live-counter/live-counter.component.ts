import { html, nothing, type CSSResultGroup, type PropertyValues, type TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import type { QuickstatsResponse, RouteName } from '../../api/index.ts';
import type { SourceData } from '../../client/index.ts';
import { formatCount } from '../../internal/format.ts';
import { sumCounts } from '../../internal/network.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { liveCounterStyles } from './live-counter.styles.ts';
import type { TypicalComparison } from './live-counter-typical.ts';

/** Counts of the quickstats `stats` object the counter can show. */
export const COUNTER_METRICS = {
  people: 'People on the site now',
  read: 'People reading now',
  write: 'People writing now',
  idle: 'Idle visitors now',
  new: 'New visitors now',
  article: 'People on articles now',
  recirc: 'Recirculated visitors now',
  direct: 'Visitors from direct traffic now',
  links: 'Visitors from links now',
  search: 'Visitors from search now',
  social: 'Visitors from social networks now',
  internal: 'Visitors from internal links now',
  subscr: 'Visitors from subscriptions now',
  visits: 'Visits',
  pages: 'Pages being read now',
} as const;

export type CounterMetric = keyof typeof COUNTER_METRICS;

/** A change of at least this fraction of the last announced value is worth saying aloud. */
const ANNOUNCE_CHANGE = 0.1;

/**
 * @summary The number of people on the site now, big, with its change since the last update
 * and a sparkline of recent updates. Shows quickstats v4 data.
 *
 * @csspart value - The number.
 * @csspart delta - The change since the previous update, with an arrow and words.
 * @csspart sparkline - The trend line (an `svg` with a text alternative).
 * @csspart compare - With `compare="typical"`: how the number compares with a typical day at this time, in words.
 *
 * @attr {'' | 'typical'} compare - `typical`: says how the number compares with a typical day at this time (from the cache's `/history/v1/`), and the sparkline shows the day so far. Comes with the full bundle (`pulse-widgets.js`, `src/index.ts`) or `live-counter-typical.ts` imported before the counters are made.
 * @prop {'' | 'typical'} compare - `typical`: says how the number compares with a typical day at this time (from the cache's `/history/v1/`), and the sparkline shows the day so far. Comes with the full bundle (`pulse-widgets.js`, `src/index.ts`) or `live-counter-typical.ts` imported before the counters are made.
 *
 * @cssproperty --pulse-counter-size - Font size of the number.
 * @cssproperty --pulse-sparkline-color - Colour of the trend line.
 *
 * @cssstate loading - No data yet.
 * @cssstate ready - Showing a number.
 * @cssstate empty - Nothing to show: below `threshold` (the element is then hidden) or no such metric.
 * @cssstate error - No data can be shown; the card says why.
 * @cssstate stale - The number shown may be out of date.
 * @cssstate paused - Polling is paused (page hidden or offline).
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class LiveCounter extends PulseElement<QuickstatsResponse> {
  static override styles: CSSResultGroup = [PulseElement.styles, liveCounterStyles];
  static override route: RouteName = 'quickstats';

  /** Set by live-counter-typical.ts (with the `compare` property), which the full bundle loads before any counter is made. */
  static typical?: (counter: LiveCounter) => TypicalComparison;

  #history: number[] = [];
  #typical = LiveCounter.typical?.(this);
  #announcedValue: number | undefined;

  /** Which count of the stats to show (`people`, `read`, `write`, `idle`, `new`, `search`, …). */
  @property() metric: CounterMetric = 'people';

  /** How many updates the sparkline keeps (0 hides it). */
  @property({ type: Number }) history = 40;

  /** Public mode: the counter is hidden while the number is below this. */
  @property({ type: Number }) threshold = 0;

  /** Public mode: the number is rounded to the nearest multiple of this step. */
  @property({ type: Number }) round = 0;

  protected override get defaultLabel(): string {
    return COUNTER_METRICS[this.metric] ?? this.metric;
  }

  protected override get emptyText(): string {
    return this.threshold > 0 ? '' : `This data has no “${this.metric}” figure.`;
  }

  protected override isEmpty(data: QuickstatsResponse): boolean {
    const raw = this.#raw(data);
    // The threshold reads the true count: rounding first would show 3 readers as "5" with round="5".
    return raw === undefined || (this.threshold > 0 && raw < this.threshold);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    if (changed.has('metric') && changed.get('metric') !== undefined) this.#restartHistory();
  }

  protected override dataChanged(data: QuickstatsResponse, previous: QuickstatsResponse | undefined, locale: string): string | undefined {
    if (previous === undefined) return this.#restartHistory();
    const value = this.#value(data);
    if (value === undefined) return undefined;
    this.#history = [...this.#history, value].slice(-Math.max(1, this.history));
    const last = this.#announcedValue;
    if (last !== undefined && Math.abs(value - last) < Math.max(1, last * ANNOUNCE_CHANGE)) return undefined;
    this.#announcedValue = value;
    return this.isEmpty(data) ? undefined : `${this.label || this.defaultLabel}: ${formatCount(locale, value)}`;
  }

  /** Several sites (`src` with several addresses): the counts add up (breakdowns and histograms are left out). */
  protected override merge(parts: readonly SourceData<QuickstatsResponse>[]): QuickstatsResponse {
    const counts = parts.map(({ data }) => Object.fromEntries(Object.entries(data.data.stats).filter(([, value]) => typeof value === 'number')));
    return { data: { ...parts[0]!.data.data, metrics: {}, stats: sumCounts(counts) as QuickstatsResponse['data']['stats'] } };
  }

  #restartHistory(): undefined {
    const data = this.snapshot.data;
    const value = data && this.#value(data);
    this.#history = value === undefined ? [] : [value];
    this.#announcedValue = value;
    return undefined;
  }

  /** The metric as displayed: rounded to `round` in public mode. */
  #value(data: QuickstatsResponse): number | undefined {
    const raw = this.#raw(data);
    if (raw === undefined) return undefined;
    return this.round > 1 ? Math.round(raw / this.round) * this.round : raw;
  }

  #raw(data: QuickstatsResponse): number | undefined {
    const raw = (data.data.stats as Record<string, unknown>)[this.metric];
    return typeof raw === 'number' ? raw : undefined;
  }

  #renderDelta(value: number, locale: string): TemplateResult | typeof nothing {
    const before = this.previousData && this.#value(this.previousData);
    if (before === undefined) return nothing;
    const change = value - before;
    const size = formatCount(locale, Math.abs(change));
    const [direction, arrow, words] = change > 0
      ? ['up', '▲', `up ${size}`]
      : change < 0 ? ['down', '▼', `down ${size}`] : ['flat', '→', 'no change'];
    return html`<p part="delta" class="delta ${direction}">
      <span aria-hidden="true">${arrow} ${change === 0 ? '0' : size}</span>
      <span class="visually-hidden">${words} since the previous update</span>
    </p>`;
  }

  #renderSparkline(locale: string): TemplateResult | typeof nothing {
    const points = this.history > 0 ? this.#history.slice(-this.history) : [];
    if (points.length < 2) return nothing;
    const low = Math.min(...points);
    const high = Math.max(...points);
    const span = high - low || 1;
    const step = 100 / (points.length - 1);
    const line = points.map((value, index) => `${(index * step).toFixed(2)},${(24 - ((value - low) / span) * 24).toFixed(2)}`).join(' ');
    const count = (value: number) => formatCount(locale, value);
    const description = `Trend over the last ${points.length} updates: from ${count(points[0]!)} to ${count(points.at(-1)!)}, lowest ${count(low)}, highest ${count(high)}.`;
    return html`<svg part="sparkline" class="sparkline" viewBox="0 0 100 24" preserveAspectRatio="none" role="img" aria-label=${description}>
      <polyline points=${line}></polyline>
    </svg>`;
  }

  protected override renderData(data: QuickstatsResponse, locale: string): TemplateResult {
    const value = this.#value(data)!;
    return html`<div class="figure">
        <p part="value" class="value">${formatCount(locale, value)}</p>
        ${this.#renderDelta(value, locale)}
      </div>
      ${this.#typical?.render(value) ?? this.#renderSparkline(locale)}`;
  }
}
