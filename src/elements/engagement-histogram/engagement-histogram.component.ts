import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { PropertyDeclarations } from 'lit';
import type { HistogramFields, QuickstatsResponse, RouteName, Shape } from '../../api/index.ts';
import { histogramFields } from '../../api/statistics.ts';
import { QUICKSTATS_SHAPE } from '../../api/response-shapes.ts';
import { cssProperties } from '../../internal/css-properties.ts';
import { formatCount, formatShare } from '../../internal/format.ts';
import { formatOrNoData } from '../../internal/no-data.ts';
import { cardTerms, engagementHistogramTerms } from '../../locales/en.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { engagementHistogramStyles } from './engagement-histogram.styles.ts';
import { axisPosition, buckets, formatBreak, HISTOGRAMS, type HistogramName } from './histogram-scale.ts';

/**
 * @summary A histogram of the people on the site now: engaged time, engaged or writing minutes
 * per visit, minutes per visit, scroll depth or page load time, as columns with the median and
 * the average marked, and the same numbers as a table. Shows quickstats v4 data; add `path=` to
 * `src` for one page.
 *
 * Bucket units follow the spec's table: seconds (engaged time), minutes (visits), tenths of the
 * page (scroll, shown as percentages) and milliseconds for quickstats' DOM load time.
 *
 * Parts, tokens, states and events common to every element are inherited from `PulseElement`.
 *
 * @csspart chart - The columns and markers (decorative: the table says the same).
 * @csspart column - One bucket's column.
 * @csspart median-marker - The line at the median.
 * @csspart average-marker - The line at the average.
 * @csspart axis - The labels under the chart: first and last bucket.
 * @csspart summary - The median, average and number of values, as text.
 * @csspart toggle - The button that shows or hides the table.
 * @csspart table - The table of buckets and counts (visually hidden until shown).
 *
 * @cssproperty --pulse-histogram-height - Height of the chart.
 * @cssproperty --pulse-histogram-bar-color - Column fill.
 * @cssproperty --pulse-histogram-median-color - Median line.
 * @cssproperty --pulse-histogram-average-color - Average line.
 *
 * @cssstate ready - Showing a histogram.
 * @cssstate empty - The data has no such histogram, or it counts no value.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class EngagementHistogram extends PulseElement<QuickstatsResponse> {
  static override styles: Styles = [PulseElement.styles, engagementHistogramStyles];
  static override route: RouteName = 'quickstats';
  static override shape: Shape = QUICKSTATS_SHAPE;
  static override terms = { ...cardTerms, ...engagementHistogramTerms };

  static override properties: PropertyDeclarations = {
    histogram: {},
    showTable: { type: Boolean, reflect: true, attribute: 'show-table' },
  };

  /** Which histogram: engaged_time, engaged_visit, visit, writing_visit, scroll or domload. */
  histogram: HistogramName = 'engaged_time';

  /** Shows the table of buckets below the chart (it is always there for assistive technology). */
  showTable = false;

  get #name(): HistogramName {
    return this.histogram in HISTOGRAMS ? this.histogram : 'engaged_time';
  }

  protected override get defaultLabel(): string {
    return this.localize.term(HISTOGRAMS[this.#name].label);
  }

  protected override get emptyText(): string {
    return this.localize.term('histogramEmpty');
  }

  protected override isEmpty(data: QuickstatsResponse): boolean {
    const histogram = this.#histogram(data);
    if (!histogram) return true;
    return histogram.hist
      ? histogram.hist.every((count) => count <= 0)
      : histogram.avg === undefined && histogram.median === undefined;
  }

  protected override dataChanged(
    data: QuickstatsResponse,
    _previous: QuickstatsResponse | undefined,
    locale: string,
  ): string | undefined {
    const histogram = this.#histogram(data);
    const median = histogram?.median;
    return median === undefined
      ? undefined
      : this.localize.term(
          'histogramAnnouncement',
          this.label || this.defaultLabel,
          formatBreak(locale, HISTOGRAMS[this.#name].unit, median),
        );
  }

  #histogram(data: QuickstatsResponse): HistogramFields | undefined {
    return histogramFields(data.data.stats[this.#name]);
  }

  #toggleTable(): void {
    this.showTable = !this.showTable;
  }

  protected override renderData(data: QuickstatsResponse, locale: string): TemplateResult {
    const histogram = this.#histogram(data)!;
    const unit = HISTOGRAMS[this.#name].unit;
    const { breaks, hist } = histogram;
    // A histogram sent as its average alone has no buckets to draw: its figures are still shown.
    const drawn = breaks && hist?.some((count) => count > 0) ? { breaks, hist } : undefined;
    const rows = drawn ? buckets(drawn, unit, this.localize) : [];
    const t = this.localize;
    const most = Math.max(...rows.map((row) => row.count));
    const total = rows.reduce((sum, row) => sum + row.count, 0);
    const value = (amount: number | undefined) =>
      formatOrNoData(t, amount, (known) => formatBreak(locale, unit, known));
    const marker = (name: 'median' | 'average', amount: number | undefined) =>
      drawn && amount !== undefined
        ? html`<span part="${name}-marker" class="marker ${name}" ${cssProperties({ '--pulse-at': axisPosition(drawn, amount).toFixed(4) })}></span>`
        : nothing;
    return html`${
      drawn
        ? html`<div part="chart" class="chart" aria-hidden="true">
            <div class="columns">
              ${rows.map((row) => html`<span part="column" class="column" ${cssProperties({ '--pulse-height': (row.count / most).toFixed(4) })}></span>`)}
            </div>
            ${marker('median', histogram.median)}${marker('average', histogram.avg)}
          </div>
          <p part="axis" class="axis" aria-hidden="true"><span>${rows[0]?.label}</span><span>${rows.at(-1)?.label}</span></p>`
        : nothing
    }
      <ul part="summary" class="summary">
        <li><span class="key median"></span>${t.term('histogramMedian')} <span class="value">${value(histogram.median)}</span></li>
        <li><span class="key average"></span>${t.term('histogramAverage')} <span class="value">${value(histogram.avg)}</span></li>
        ${histogram.num_values === undefined ? nothing : html`<li>${t.term('histogramValues', t.count(histogram.num_values))}</li>`}
      </ul>
      ${
        drawn
          ? html`<button part="toggle" class="toggle" type="button" aria-expanded=${String(this.showTable)} aria-controls="table" @click=${this.#toggleTable}>
            ${t.term(this.showTable ? 'histogramHideTable' : 'histogramShowTable')}
          </button>
          <table part="table" id="table" class=${this.showTable ? '' : 'visually-hidden'} aria-labelledby="label">
            <thead>
              <tr><th scope="col">${t.term('histogramRange')}</th><th scope="col" class="count">${t.term('histogramCount')}</th><th scope="col" class="count">${t.term('histogramShare')}</th></tr>
            </thead>
            <tbody>
              ${rows.map(
                (row) => html`<tr>
                <th scope="row">${row.label}</th>
                <td class="count">${formatCount(locale, row.count)}</td>
                <td class="count">${formatShare(locale, total > 0 ? row.count / total : 0)}</td>
              </tr>`,
              )}
            </tbody>
          </table>`
          : nothing
      }`;
  }
}
