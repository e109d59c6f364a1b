import { html, nothing, svg, type SVGTemplateResult, type TemplateResult } from 'lit/html.js';
import type { PropertyDeclarations } from 'lit';
import type {
  HistoryMetric,
  HistoryRange,
  HistoryResponse,
  QuickstatsResponse,
  RouteName,
  Shape,
} from '../../api/index.ts';
import { QUICKSTATS_SHAPE } from '../../api/response-shapes.ts';
import { getHub } from '../../client/index.ts';
import { errorText } from '../../internal/error-text.ts';
import { formatCount, formatShare } from '../../internal/format.ts';
import {
  compareWithTypical,
  HistoryController,
  historyUrlFor,
  pointAt,
} from '../../internal/history-controller.ts';
import type { Changes } from '../../internal/lean-element.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { PulseErrorEvent } from '../../internal/events.ts';
import { cardTerms, liveCounterTerms, trafficChartTerms } from '../../locales/en.ts';
import { trafficChartStyles } from './traffic-chart.styles.ts';

/** Plot coordinates: x in minutes of the range, y from 0 (top) to HEIGHT (zero). */
const HEIGHT = 100;
const HOUR_MS = 3_600_000;

/** A round axis top at or above `value` whose half is round too: 1, 1.2, 1.6, 2, 3, 4, 5, 6, 8 times a power of ten. */
function niceCeiling(value: number): number {
  if (value <= 0) return 10;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 1.2, 1.6, 2, 3, 4, 5, 6, 8, 10].find((step) => step * power >= value) ?? 10) * power;
}

/**
 * @summary Today's audience since local midnight (or the last 24 hours or 7 days: `range`) against
 * the typical band for each weekday and time (median and 10th–90th percentile of the last 4 weeks), with the live point moving on the
 * page's 3 s clock. Reads quickstats v4 for the live point and the cache's `/history/v1/` beside
 * it (fetched once, then once a minute) for the day so far. A summary sentence and a data table
 * say what the chart shows.
 *
 * @csspart summary - The sentence comparing now with a typical day.
 * @csspart chart - The plot area (an `svg`, hidden from assistive technology: the summary and the table say the same).
 * @csspart band - The typical range (10th–90th percentile).
 * @csspart median - The typical median line (dashed).
 * @csspart line - Today's line (solid).
 * @csspart now - The live point.
 * @csspart axis - The axis labels.
 * @csspart legend - The legend.
 * @csspart table - The data table alternative (a `details` element).
 * @csspart notice - Why the day so far is missing (history loading or failing).
 *
 * @cssproperty --pulse-traffic-chart-height - Height of the plot.
 * @cssproperty --pulse-traffic-chart-line - Colour of today's line and the live point.
 * @cssproperty --pulse-traffic-chart-band - Fill of the typical range.
 * @cssproperty --pulse-traffic-chart-median - Colour of the typical median line.
 *
 * @cssstate loading - No data yet.
 * @cssstate ready - Showing the chart.
 * @cssstate empty - The data has no figure for `metric`.
 * @cssstate error - No data can be shown; the card says why.
 * @cssstate stale - The live figure may be out of date.
 * @cssstate paused - Polling is paused (page hidden or offline).
 *
 * @fires pulse-data - New live data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}); also when the history cannot be loaded.
 */
export class TrafficChart extends PulseElement<QuickstatsResponse> {
  static override styles: Styles = [PulseElement.styles, trafficChartStyles];
  static override route: RouteName = 'quickstats';
  static override shape: Shape = QUICKSTATS_SHAPE;
  static override terms = {
    ...cardTerms,
    ...trafficChartTerms,
    counterNoMetric: liveCounterTerms.counterNoMetric,
  };

  readonly #history = new HistoryController(this, () => {
    if (this.#history.error)
      this.dispatchEvent(new PulseErrorEvent(this.#history.error, this.snapshot.data !== undefined));
  });

  /** The comparison last announced (above, below, same, none), so the live region speaks when it turns. */
  #announced = '';
  /** Date formats in use, built once: the axis and the table format some thirty times per render. */
  readonly #formats = new Map<string, Intl.DateTimeFormat>();

  static override properties: PropertyDeclarations = {
    metric: {},
    range: {},
  };

  /** Which recorded count to chart (`people`, `read`, `write`, `idle`, `new`, `search`, …, `platform_m`). */
  metric: HistoryMetric = 'people';

  /** `today` (1-minute points since local midnight), or the last `24h` or `7d` (5-minute points). */
  range: HistoryRange = 'today';

  protected override get defaultLabel(): string {
    return this.localize.term('chartLabel', this.metric, this.range);
  }

  protected override get emptyText(): string {
    return this.localize.term('counterNoMetric', this.metric);
  }

  protected override isEmpty(data: QuickstatsResponse): boolean {
    return this.#live(data) === undefined;
  }

  /** Platform counts come with `all_platforms=1`. */
  protected override requestUrl(url: URL): URL {
    if (this.metric.startsWith('platform_')) url.searchParams.set('all_platforms', '1');
    return url;
  }

  protected override willUpdate(changed: Changes): void {
    super.willUpdate(changed);
    if (changed.size > 0)
      this.#history.url = this.source.url
        ? historyUrlFor(this.source.url, this.metric, this.range)
        : undefined;
  }

  /** The live figure of `metric` in a quickstats answer. */
  #live(data: QuickstatsResponse): number | undefined {
    const stats = data.data.stats as Record<string, unknown>;
    const raw = this.metric.startsWith('platform_')
      ? (stats.platform as Record<string, unknown> | undefined)?.[this.metric.slice(9)]
      : stats[this.metric];
    return typeof raw === 'number' ? raw : undefined;
  }

  protected override dataChanged(
    data: QuickstatsResponse,
    _previous: QuickstatsResponse | undefined,
    locale: string,
  ): string | undefined {
    const history = this.#history.data;
    const value = this.#live(data);
    if (!history || value === undefined) return undefined;
    const comparison = compareWithTypical(history, getHub().clock.now(), value);
    // Said when the comparison turns (above, below, about the same), not every 3 s.
    const direction = comparison?.direction ?? 'none';
    if (direction === this.#announced) return undefined;
    this.#announced = direction;
    return this.#summary(history, value, locale);
  }

  #time(history: HistoryResponse, t: number, locale: string, options: Intl.DateTimeFormatOptions): string {
    const key = `${locale} ${history.timeZone} ${JSON.stringify(options)}`;
    let format = this.#formats.get(key);
    if (!format)
      this.#formats.set(
        key,
        (format = new Intl.DateTimeFormat(locale, { timeZone: history.timeZone, ...options })),
      );
    return format.format(t);
  }

  #summary(history: HistoryResponse, value: number, locale: string): string {
    const now = getHub().clock.now();
    const comparison = compareWithTypical(history, now, value);
    const weekday = this.#time(history, now, locale, { weekday: 'long' });
    const time = this.#time(history, now, locale, { hour: 'numeric', minute: '2-digit' });
    const phrase = !comparison
      ? this.localize.term('chartNoTypical')
      : comparison.direction === 'same'
        ? this.localize.term('chartSame', weekday, time)
        : this.localize.term(
            comparison.direction === 'above' ? 'chartAbove' : 'chartBelow',
            formatShare(locale, comparison.share),
            weekday,
            time,
          );
    const { weeks } = history.typical;
    const footing =
      comparison && weeks > 0 && weeks < 4
        ? this.localize.term('chartWeeks', this.localize.count(weeks))
        : '';
    return this.#sentence(value, locale, phrase, footing);
  }

  /** "1,240 people now", then how that compares with a typical day and on how many weeks that stands, if known. */
  #sentence(value: number, locale: string, comparison = '', footing = ''): string {
    return this.localize.term(
      'chartSummary',
      this.localize.term('chartNow', formatCount(locale, value), this.metric),
      comparison,
      footing,
    );
  }

  /** One path per unbroken run of points: gaps stay gaps. */
  #linePath(
    values: readonly (number | null)[],
    x: (index: number) => number,
    y: (value: number) => number,
  ): string {
    let path = '';
    let drawing = false;
    values.forEach((value, index) => {
      if (value === null) {
        drawing = false;
        return;
      }
      path += `${drawing ? 'L' : 'M'}${x(index).toFixed(1)} ${y(value).toFixed(2)}`;
      drawing = true;
    });
    return path;
  }

  /** The band between low and high, closed per unbroken run. */
  #bandPath(
    low: readonly (number | null)[],
    high: readonly (number | null)[],
    x: (index: number) => number,
    y: (value: number) => number,
  ): string {
    let path = '';
    let run: number[] = [];
    const close = () => {
      if (run.length > 1) {
        path += run
          .map((index, n) => `${n === 0 ? 'M' : 'L'}${x(index).toFixed(1)} ${y(high[index]!).toFixed(2)}`)
          .join('');
        path += [...run]
          .reverse()
          .map((index) => `L${x(index).toFixed(1)} ${y(low[index]!).toFixed(2)}`)
          .join('');
        path += 'Z';
      }
      run = [];
    };
    low.forEach((value, index) => {
      if (value === null || high[index] === null) close();
      else run.push(index);
    });
    close();
    return path;
  }

  #renderChart(history: HistoryResponse, live: number, locale: string): TemplateResult {
    const { values, typical } = history;
    const total = typical.median.length;
    const now = getHub().clock.now();
    const nowIndex = (now - history.start) / (history.stepSeconds * 1000);
    const top = niceCeiling(
      Math.max(live, ...values.map((value) => value ?? 0), ...typical.high.map((value) => value ?? 0)) * 1.05,
    );
    const x = (index: number) => index;
    const y = (value: number) => HEIGHT - (value / top) * HEIGHT;
    // Today's line runs on to the live figure at the current moment, while the moment is in the
    // range (just after midnight the day's history is reloaded within seconds).
    const inRange = nowIndex >= 0 && nowIndex < total;
    const liveEnd = inRange
      ? `${values.at(-1) === null || values.length === 0 ? 'M' : 'L'}${nowIndex.toFixed(1)} ${y(live).toFixed(2)}`
      : '';
    const line = `${this.#linePath(values, x, y)}${liveEnd}`;
    const hours = Math.round((total * history.stepSeconds) / 3600);
    const every = hours > 24 ? 24 : 6;
    const ticks = Array.from(
      { length: Math.floor(hours / every) + 1 },
      (_, n) => history.start + n * every * HOUR_MS,
    );
    const tickFormat: Intl.DateTimeFormatOptions =
      hours > 24
        ? { weekday: 'short' }
        : this.range === 'today'
          ? { hour: 'numeric' }
          : { hour: 'numeric', minute: '2-digit' };
    const plot: SVGTemplateResult = svg`
      <path part="band" class="band" d=${this.#bandPath(typical.low, typical.high, x, y)}></path>
      <path part="median" class="median" d=${this.#linePath(typical.median, x, y)}></path>
      <path part="line" class="line" d=${line}></path>
      <path part="now" class="now" d=${inRange ? `M${nowIndex.toFixed(1)} ${y(live).toFixed(2)}l0 0` : ''}></path>`;
    return html`<div class="plot">
        <div part="axis" class="y-axis" aria-hidden="true">
          <span>${formatCount(locale, top)}</span><span>${formatCount(locale, top / 2)}</span><span>${formatCount(locale, 0)}</span>
        </div>
        <svg part="chart" class="chart" viewBox=${`0 0 ${total} ${HEIGHT}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
          <line class="grid" x1="0" x2=${total} y1=${HEIGHT / 2} y2=${HEIGHT / 2}></line>
          ${plot}
        </svg>
        <div part="axis" class="x-axis" aria-hidden="true">
          ${ticks.map((tick) => html`<span>${this.#time(history, tick, locale, tickFormat)}</span>`)}
        </div>
      </div>
      ${this.#renderLegend()}`;
  }

  #renderLegend(): TemplateResult {
    const swatch = (
      kind: string,
    ) => html`<svg class="swatch ${kind}" viewBox="0 0 24 12" aria-hidden="true" focusable="false">
      ${kind === 'band' ? svg`<rect x="0" y="2" width="24" height="8"></rect>` : kind === 'now' ? svg`<path d="M12 6l0 0"></path>` : svg`<path d="M0 6H24"></path>`}
    </svg>`;
    return html`<ul part="legend" class="legend">
      <li>${swatch('line')}${this.#recordedTerm()}</li>
      <li>${swatch('now')}${this.localize.term('chartNowLegend')}</li>
      <li>${swatch('median')}${this.localize.term('chartMedian')}</li>
      <li>${swatch('band')}${this.localize.term('chartBand')}</li>
    </ul>`;
  }

  /** The recorded line and column: today's, or what was recorded over the range. */
  #recordedTerm(): string {
    return this.localize.term(this.range === 'today' ? 'chartToday' : 'chartRecorded');
  }

  #renderTable(history: HistoryResponse, locale: string): TemplateResult {
    const every = this.range === '7d' ? 6 * HOUR_MS : HOUR_MS;
    const rowTime: Intl.DateTimeFormatOptions =
      this.range === '7d' ? { weekday: 'short', hour: 'numeric' } : { hour: 'numeric', minute: '2-digit' };
    const weekday = this.#time(history, getHub().clock.now(), locale, { weekday: 'long' });
    const count = (value: number | null | undefined) =>
      value === null || value === undefined ? this.localize.term('chartNoData') : formatCount(locale, value);
    const rows: TemplateResult[] = [];
    for (let t = history.start; pointAt(history, t) !== -1; t += every) {
      const index = pointAt(history, t);
      const low = history.typical.low[index];
      const high = history.typical.high[index];
      rows.push(html`<tr>
        <th scope="row">${this.#time(history, t, locale, rowTime)}</th>
        <td class="count">${index < history.values.length ? count(history.values[index]) : ''}</td>
        <td class="count">${count(history.typical.median[index])}</td>
        <td class="count">${low === null || low === undefined || high === null || high === undefined ? this.localize.term('chartNoData') : this.localize.term('chartRange', count(low), count(high))}</td>
      </tr>`);
    }
    return html`<details part="table" class="table">
      <summary>${this.localize.term('chartTableToggle')}</summary>
      <table>
        <caption>${this.range === '7d' ? this.localize.term('chartCaption7d') : this.range === '24h' ? this.localize.term('chartCaption24h') : this.localize.term('chartCaptionToday', weekday)}</caption>
        <thead><tr>
          <th scope="col">${this.localize.term('chartTime')}</th><th scope="col">${this.#recordedTerm()}</th>
          <th scope="col">${this.localize.term('chartTypical')}</th><th scope="col">${this.localize.term('chartTypicalRange')}</th>
        </tr></thead>
        <tbody>${rows}</tbody>
      </table>
    </details>`;
  }

  protected override renderData(data: QuickstatsResponse, locale: string): TemplateResult {
    const live = this.#live(data)!;
    const history = this.#history.data;
    if (!history) {
      const error = this.#history.error;
      return html`<p part="summary" class="summary">${this.#sentence(live, locale)}</p>
        <p part="notice" class="message ${error ? 'error' : 'loading'}">${error ? this.localize.term('chartHistoryError', errorText(this.localize, error)) : this.localize.term('chartHistoryLoading')}</p>`;
    }
    return html`<p part="summary" class="summary">${this.#summary(history, live, locale)}</p>
      ${this.#renderChart(history, live, locale)}
      ${this.#renderTable(history, locale)}
      ${this.#history.error ? html`<p part="notice" class="message error">${this.localize.term('chartHistoryError', errorText(this.localize, this.#history.error))}</p>` : nothing}`;
  }
}
