import {
  html,
  nothing,
  type CSSResultGroup,
  type PropertyDeclarations,
  type PropertyValues,
  type TemplateResult,
} from 'lit';
import type { QuickstatsResponse, RouteName, Shape } from '../../api/index.ts';
import { QUICKSTATS_SHAPE } from '../../api/response-shapes.ts';
import { formatCount } from '../../internal/format.ts';
import { cardTerms, liveCounterTerms, type TextTerm } from '../../locales/en.ts';
import { noData } from '../../internal/no-data.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { liveCounterStyles } from './live-counter.styles.ts';
import type { TypicalComparison } from './live-counter-typical.ts';

/** Counts of the quickstats `stats` object the counter can show, and the terms of their labels. */
export const COUNTER_METRICS = {
  people: 'counterPeople',
  read: 'counterRead',
  write: 'counterWrite',
  idle: 'counterIdle',
  new: 'counterNew',
  article: 'counterArticle',
  recirc: 'counterRecirc',
  direct: 'counterDirect',
  links: 'counterLinks',
  search: 'counterSearch',
  social: 'counterSocial',
  internal: 'counterInternal',
  subscr: 'counterSubscr',
  visits: 'counterVisits',
  pages: 'counterPages',
} as const satisfies Record<string, TextTerm>;

export type CounterMetric = keyof typeof COUNTER_METRICS;

declare module '../../internal/features.ts' {
  interface Features {
    /** `compare="typical"`, registered by live-counter-typical.ts (the full bundle loads it). */
    typicalComparison: (counter: LiveCounter) => TypicalComparison;
  }
}

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
 * @attr {'' | 'typical'} compare - `typical`: says how the number compares with a typical day at this time (from the cache's `/history/v1/`), and the sparkline shows the day so far. Comes with the full bundle (`pulse-widgets.js`, `src/index.ts`) or `live-counter-typical.ts` imported before the counters are made (before or after the element is defined).
 * @prop {'' | 'typical'} compare - `typical`: says how the number compares with a typical day at this time (from the cache's `/history/v1/`), and the sparkline shows the day so far. Comes with the full bundle (`pulse-widgets.js`, `src/index.ts`) or `live-counter-typical.ts` imported before the counters are made (before or after the element is defined).
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
  static override shape: Shape = QUICKSTATS_SHAPE;
  static override terms = { ...cardTerms, ...liveCounterTerms };

  #history: number[] = [];
  #typical = this.feature('typicalComparison')?.(this);
  /** The value the reader last heard (or saw first); a change of less than ANNOUNCE_CHANGE of it is not worth saying. */
  #saidValue: number | undefined;
  /** The last value put in words, and those words: said once the announcer has said them. */
  #toldValue: number | undefined;
  #told = '';

  static override properties: PropertyDeclarations = {
    metric: {},
    history: { type: Number },
    threshold: { type: Number },
    round: { type: Number },
  };

  /** Which count of the stats to show (`people`, `read`, `write`, `idle`, `new`, `search`, …). */
  metric: CounterMetric = 'people';

  /** How many updates the sparkline keeps (0 hides it). */
  history = 40;

  /** Public mode: the counter is hidden while the number is below this. */
  threshold = 0;

  /** Public mode: the number is rounded to the nearest multiple of this step. */
  round = 0;

  protected override get defaultLabel(): string {
    const term = COUNTER_METRICS[this.metric];
    return term ? this.localize.term(term) : this.metric;
  }

  protected override get emptyText(): string {
    return this.threshold > 0 ? '' : this.localize.term('counterNoMetric', this.metric);
  }

  /** A figure we know that this answer lacks shows "—"; a metric we do not know says so. */
  protected override isEmpty(data: QuickstatsResponse): boolean {
    const raw = this.#raw(data);
    if (raw === undefined) return this.threshold > 0 || !(this.metric in COUNTER_METRICS);
    // The threshold reads the true count: rounding first would show 3 readers as "5" with round="5".
    return this.threshold > 0 && raw < this.threshold;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    if (changed.has('metric') && changed.get('metric') !== undefined) this.#restartHistory();
  }

  /**
   * The number in words when it moved by ANNOUNCE_CHANGE or more from the one the reader last
   * heard; else the words last heard, which cancels a change still waiting to be said.
   */
  protected override dataChanged(
    data: QuickstatsResponse,
    previous: QuickstatsResponse | undefined,
    locale: string,
  ): string | undefined {
    if (previous === undefined) {
      this.#restartHistory();
      return this.#tell(this.#saidValue, locale);
    }
    const value = this.#value(data);
    if (value === undefined || this.isEmpty(data)) return undefined;
    this.#history = [...this.#history, value].slice(-Math.max(1, this.history));
    if (this.#told === this.announcer.said) this.#saidValue = this.#toldValue;
    const said = this.#saidValue;
    const worthSaying = said === undefined || Math.abs(value - said) >= Math.max(1, said * ANNOUNCE_CHANGE);
    return this.#tell(worthSaying ? value : said, locale);
  }

  #tell(value: number | undefined, locale: string): string | undefined {
    if (value === undefined) return undefined;
    this.#toldValue = value;
    return (this.#told = this.localize.term(
      'counterAnnouncement',
      this.label || this.defaultLabel,
      formatCount(locale, value),
    ));
  }

  #restartHistory(): void {
    const data = this.snapshot.data;
    const value = data && this.#value(data);
    this.#history = value === undefined ? [] : [value];
    this.#saidValue = value;
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
    const [direction, arrow, words] =
      change > 0
        ? ['up', '▲', this.localize.term('counterUp', size)]
        : change < 0
          ? ['down', '▼', this.localize.term('counterDown', size)]
          : ['flat', '→', this.localize.term('counterSame')];
    return html`<p part="delta" class="delta ${direction}">
      <span aria-hidden="true"><span class="arrow">${arrow}</span> ${change === 0 ? formatCount(locale, 0) : size}</span>
      <span class="visually-hidden">${words}</span>
    </p>`;
  }

  #renderSparkline(locale: string): TemplateResult | typeof nothing {
    const points = this.history > 0 ? this.#history.slice(-this.history) : [];
    if (points.length < 2) return nothing;
    const low = Math.min(...points);
    const high = Math.max(...points);
    const span = high - low || 1;
    const step = 100 / (points.length - 1);
    const line = points
      .map((value, index) => `${(index * step).toFixed(2)},${(24 - ((value - low) / span) * 24).toFixed(2)}`)
      .join(' ');
    const count = (value: number) => formatCount(locale, value);
    const description = this.localize.term(
      'counterTrend',
      this.localize.count(points.length),
      count(points[0]!),
      count(points.at(-1)!),
      count(low),
      count(high),
    );
    return html`<svg part="sparkline" class="sparkline" viewBox="0 0 100 24" preserveAspectRatio="none" role="img" aria-label=${description}>
      <polyline points=${line}></polyline>
    </svg>`;
  }

  protected override renderData(data: QuickstatsResponse, locale: string): TemplateResult {
    const value = this.#value(data);
    if (value === undefined)
      return html`<div class="figure"><p part="value" class="value">${noData(this.localize)}</p></div>${this.#renderSparkline(locale)}`;
    return html`<div class="figure">
        <p part="value" class="value">${formatCount(locale, value)}</p>
        ${this.#renderDelta(value, locale)}
      </div>
      ${this.#typical?.render(value, this.localize) ?? this.#renderSparkline(locale)}`;
  }
}
