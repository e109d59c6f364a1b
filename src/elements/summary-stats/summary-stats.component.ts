import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { PropertyDeclarations } from 'lit';
import type { RouteName, Shape, SummaryMember, SummaryResponse } from '../../api/index.ts';
import { SUMMARY_SHAPE } from '../../api/response-shapes.ts';
import { isNumericMember, summaryStatistics } from '../../api/statistics.ts';
import { formatCount, formatDuration, formatShare } from '../../internal/format.ts';
import { formatOrNoData, noData } from '../../internal/no-data.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { cardTerms, summaryStatsTerms, trafficTerms, type TextTerm } from '../../locales/en.ts';
import { summaryStatsStyles } from './summary-stats.styles.ts';

type Measure = 'ms' | 's' | 'px' | 'share';

/** The summary keys (spec 4.2), the terms of their names, and the unit of numeric ones (docs/upstream-assumptions.md). */
const KEYS: Readonly<Record<string, { name: TextTerm; measure?: Measure }>> = {
  pagetimer: { name: 'summaryPagetimer', measure: 'ms' },
  time_spent: { name: 'summaryTimeSpent', measure: 's' },
  window_height: { name: 'summaryWindowHeight', measure: 'px' },
  scroll_top: { name: 'summaryScrollTop', measure: 'px' },
  page_height: { name: 'summaryPageHeight', measure: 'px' },
  read: { name: 'summaryRead', measure: 'share' },
  write: { name: 'summaryWrite', measure: 'share' },
  idle: { name: 'summaryIdle', measure: 'share' },
  domain: { name: 'summaryDomain' },
  uid: { name: 'summaryUid' },
  host: { name: 'summaryHost' },
  title: { name: 'summaryTitle' },
  new: { name: 'summaryNew' },
  path: { name: 'summaryPath' },
  referrer: { name: 'summaryReferrer' },
  token: { name: 'summaryToken' },
  user: { name: 'summaryUser' },
};

/** What a numeric member summarises; each figure undefined when the answer lacks what it needs. */
export interface NumericSummary {
  readonly observations: number | undefined;
  readonly min: number | undefined;
  readonly max: number | undefined;
  readonly mean: number | undefined;
  readonly deviation: number | undefined;
}

/**
 * Mean from sum / observations; population standard deviation from the sum of squares,
 * sqrt(sumOfSquares / n - mean²), where rounding can make the difference slightly negative.
 * Nothing is computed from a missing input: without a sum of squares there is no deviation.
 * With no observations there are no values, so no minimum or maximum either.
 */
export function summarise(data: Readonly<Record<string, number>>): NumericSummary {
  const { observations, min, max, sum, sumOfSquares } = summaryStatistics(data);
  if (observations === 0)
    return { observations, min: undefined, max: undefined, mean: undefined, deviation: undefined };
  const mean =
    observations !== undefined && observations > 0 && sum !== undefined ? sum / observations : undefined;
  const deviation =
    mean !== undefined && sumOfSquares !== undefined
      ? Math.sqrt(Math.max(0, sumOfSquares / observations! - mean * mean))
      : undefined;
  return { observations, min, max, mean, deviation };
}

/**
 * @summary Summaries of what visitors' pages report right now, for the fields named in the
 * `keys` of `src`: numeric fields (load time, time on page, heights, reading…) as minimum,
 * average, standard deviation and maximum; categorical ones (referrer, title, path…) as their
 * most frequent values with counts. Shows summary v3 data.
 *
 * Parts, tokens, states and events common to every element are inherited from `PulseElement`.
 *
 * @csspart numbers - The table of numeric fields.
 * @csspart values - The table of one categorical field's top values.
 * @csspart value - A categorical value (always text).
 * @csspart count - The count of a value.
 *
 * @cssproperty --pulse-summary-stats-row-gap - Vertical padding of a row.
 *
 * @cssstate ready - Showing summaries.
 * @cssstate empty - No field has any value right now.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class SummaryStats extends PulseElement<SummaryResponse> {
  static override styles: Styles = [PulseElement.styles, summaryStatsStyles];
  static override route: RouteName = 'summary';
  static override shape: Shape = SUMMARY_SHAPE;
  static override terms = { ...cardTerms, ...trafficTerms, ...summaryStatsTerms };

  static override properties: PropertyDeclarations = {
    max: { type: Number },
  };

  /** Most values listed per categorical field; the rest are added up as "Other values". */
  max = 5;

  protected override get defaultLabel(): string {
    return this.localize.term('summaryLabel');
  }

  protected override get emptyText(): string {
    return this.localize.term('summaryEmpty');
  }

  /** A field's name: ours when we know the key, else the key as the service sent it. */
  #fieldName(key: string): string {
    const term = KEYS[key]?.name;
    return term ? this.localize.term(term) : key;
  }

  protected override isEmpty(data: SummaryResponse): boolean {
    return this.#members(data).every(
      ([, member]) =>
        Object.keys(member.data).length === 0 ||
        (isNumericMember(member) && summarise(member.data).observations === 0),
    );
  }

  /** The members in the order `keys` names them in `src`, then any others the answer has. */
  #members(data: SummaryResponse): [string, SummaryMember][] {
    const asked =
      new URL(this.source.url ?? '', document.baseURI).searchParams
        .get('keys')
        ?.split(',')
        .map((key) => key.trim()) ?? [];
    const order = [...new Set([...asked, ...Object.keys(data)])];
    return order.flatMap((key) => (data[key] ? [[key, data[key]] as [string, SummaryMember]] : []));
  }

  #format(locale: string, key: string, value: number | undefined): string | TemplateResult {
    if (value === undefined) return noData(this.localize);
    switch (KEYS[key]?.measure) {
      case 'ms':
        return formatDuration(locale, value / 1000);
      case 's':
        return formatDuration(locale, value);
      case 'px':
        return `${formatCount(locale, value)} px`;
      case 'share':
        return formatShare(locale, value);
      default:
        return formatCount(locale, value);
    }
  }

  #renderNumbers(members: [string, SummaryMember][], locale: string): TemplateResult | typeof nothing {
    if (members.length === 0) return nothing;
    const t = this.localize;
    return html`<div class="scroller" tabindex="0" role="region" aria-labelledby="numbers">
      <table part="numbers">
        <caption id="numbers">${t.term('summaryMeasurements')}</caption>
        <thead>
          <tr>
            <th scope="col">${t.term('summaryField')}</th>
            <th scope="col" class="count">${t.term('summaryMin')}</th>
            <th scope="col" class="count">${t.term('summaryAverage')}</th>
            <th scope="col" class="count"><abbr title=${t.term('summaryDeviationLong')}>${t.term('summaryDeviation')}</abbr></th>
            <th scope="col" class="count">${t.term('summaryMax')}</th>
            <th scope="col" class="count">${t.term('summaryVisitors')}</th>
          </tr>
        </thead>
        <tbody>
          ${members.map(([key, member]) => {
            const summary = summarise(member.data);
            const format = (value: number | undefined) => this.#format(locale, key, value);
            return html`<tr>
              <th scope="row">${this.#fieldName(key)}</th>
              <td class="count">${format(summary.min)}</td>
              <td class="count">${format(summary.mean)}</td>
              <td class="count">${format(summary.deviation)}</td>
              <td class="count">${format(summary.max)}</td>
              <td class="count">${formatOrNoData(this.localize, summary.observations, (count) => formatCount(locale, count))}</td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>`;
  }

  #valueName(key: string, value: string): string {
    if (key === 'new' && (value === '1' || value === '0'))
      return this.localize.term(value === '1' ? 'loyaltyNew' : 'loyaltyReturning');
    return value === '' ? this.localize.term('summaryNoValue') : value;
  }

  #renderValues(key: string, member: SummaryMember, index: number, locale: string): TemplateResult {
    const values = Object.entries(member.data).sort((a, b) => b[1] - a[1]);
    const shown = this.max > 0 ? values.slice(0, this.max) : values;
    const others = values.slice(shown.length).reduce((sum, [, count]) => sum + count, 0);
    // Ids from the position, never from keys the answer chose.
    const id = `values-${index}`;
    return html`<div class="scroller" tabindex="0" role="region" aria-labelledby=${id}>
      <table part="values">
        <caption id=${id}>${this.#fieldName(key)}</caption>
        <thead>
          <tr><th scope="col">${this.localize.term('summaryValue')}</th><th scope="col" class="count">${this.localize.term('summaryVisitors')}</th></tr>
        </thead>
        <tbody>
          ${shown.map(
            ([value, count]) => html`<tr>
            <th scope="row" part="value">${this.#valueName(key, value)}</th>
            <td part="count" class="count">${formatCount(locale, count)}</td>
          </tr>`,
          )}
          ${
            others > 0
              ? html`<tr class="other">
                <th scope="row">${this.localize.term('summaryOtherValues', this.localize.count(values.length - shown.length))}</th>
                <td part="count" class="count">${formatCount(locale, others)}</td>
              </tr>`
              : nothing
          }
        </tbody>
      </table>
    </div>`;
  }

  protected override renderData(data: SummaryResponse, locale: string): TemplateResult {
    const members = this.#members(data);
    const numeric = members.filter(([, member]) => isNumericMember(member));
    const categorical = members.filter(
      ([, member]) => !isNumericMember(member) && Object.keys(member.data).length > 0,
    );
    return html`${this.#renderNumbers(numeric, locale)}${categorical.map(([key, member], index) => this.#renderValues(key, member, index, locale))}`;
  }
}
