import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { PropertyDeclarations } from 'lit';
import type { RawDataResponse, RouteName, Shape } from '../../api/index.ts';
import { RAW_DATA_TTL_MS } from '../../api/constants.ts';
import { pageUrl } from '../../api/page-url.ts';
import { RAW_DATA_SHAPE } from '../../api/response-shapes.ts';
import { getHub, type SnapshotChange } from '../../client/index.ts';
import { Announcer } from '../../internal/announcer.ts';
import type { LocalizeController } from '../../internal/localize.ts';
import { cssProperties } from '../../internal/css-properties.ts';
import { formatCount, formatUnit } from '../../internal/format.ts';
import { formatOrNoData, noData } from '../../internal/no-data.ts';
import { OneShotSource } from '../../internal/one-shot-source.ts';
import type { Changes } from '../../internal/lean-element.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { PulseElement, type DataSource } from '../../internal/pulse-element.ts';
import { baseStyles } from '../../internal/styles.ts';
import { cardTerms, headlineTestsTerms, type TextTerm } from '../../locales/en.ts';
import { experimentsCsv, groupExperiments, interval, type Experiment } from './experiments.ts';
import { headlineTestsStyles } from './headline-tests.styles.ts';

/** The range shown when neither the attributes nor `src` give one: the last 7 days. */
const DEFAULT_DAYS = 7;
const DAY_MS = 86_400_000;

/**
 * @summary Headline tests (experiments) over a date range, each with its variants, status and
 * winner: click-through rate and engagement means with their intervals drawn as ranges, and each
 * variant's probability of being best, paged 25 tests at a time, with a CSV download of the
 * results. Shows headline-testing raw data v1, loaded once per date range (never polled).
 *
 * `src` is the cache endpoint's raw data address with `host` (and possibly other parameters);
 * the `start`, `end`, `tz` and `status` attributes set those parameters on it. Changing any of
 * them loads again, abandoning the load in progress.
 *
 * @csspart summary - The number of tests and variants in the range.
 * @csspart experiments - The ordered list of tests on this page.
 * @csspart experiment - One test.
 * @csspart headline - A test's first headline (always text).
 * @csspart meta - A test's status, type, dates and page.
 * @csspart link - The link to the tested page (http and https only).
 * @csspart variants - A test's table of variants.
 * @csspart winner - The "Winner" mark of the winning variant.
 * @csspart range - An interval drawn as a range, with a tick at the mean.
 * @csspart pagination - The page controls.
 * @csspart page-button - The previous and next page buttons.
 * @csspart download - The CSV download link.
 *
 * @cssproperty --pulse-color-accent - Links, highlights and the winner mark.
 * @cssproperty --pulse-color-bar - Interval fill.
 * @cssproperty --pulse-color-track - Range track and rules.
 * @cssproperty --pulse-headline-tests-range-width - Width of the interval ranges.
 *
 * @cssstate loading - Loading the range (a new range replaces what was shown).
 * @cssstate ready - Showing tests.
 * @cssstate empty - No test in the range.
 * @cssstate error - The range could not be loaded; the card says why.
 * @cssstate stale - The cache answered with data older than its 60 s lifetime.
 * @cssstate paused - Waiting for the page to be visible and online before loading.
 *
 * @fires pulse-data - The range was loaded ({@link PulseDataEvent}).
 * @fires pulse-error - The range could not be loaded or `src` is unusable ({@link PulseErrorEvent}).
 */
export class HeadlineTests extends PulseElement<RawDataResponse> {
  static override styles: Styles = [baseStyles, headlineTestsStyles];
  static override route: RouteName = 'raw_data';
  static override shape: Shape = RAW_DATA_SHAPE;
  static override terms = { ...cardTerms, ...headlineTestsTerms };

  /** Every load and page change is said at once: the reader asked for it. */
  protected override readonly announcer = new Announcer(this, 0);
  #experiments: { data: RawDataResponse; list: Experiment[] } | undefined;
  #csv: { data: RawDataResponse; headers: readonly string[]; href: string } | undefined;

  static override properties: PropertyDeclarations = {
    start: {},
    end: {},
    tz: {},
    status: {},
    pageSize: { type: Number, attribute: 'page-size' },
    page: { state: true },
  };

  /** First day, YYYY-MM-DD, in `tz` (default: `src`'s, else 6 days before `end`). */
  start = '';

  /** Last day, YYYY-MM-DD, inclusive (default: `src`'s, else today in `tz`). */
  end = '';

  /** Olson time zone of the days, such as Europe/Paris (default: `src`'s, else the reader's). */
  tz = '';

  /** Which tests: `active`, `archived` or `all` (default: `src`'s, else all). */
  status = '';

  /** Tests listed per page. */
  pageSize = 25;

  /** The page of tests shown, from 1. */
  private page = 1;

  protected override get defaultLabel(): string {
    return this.localize.term('testsLabel');
  }

  protected override get emptyText(): string {
    return this.localize.term('testsEmpty');
  }

  /** Loads each range once, abandoning the load in progress when the range changes. */
  protected override createSource(onChange: SnapshotChange<RawDataResponse>): DataSource<RawDataResponse> {
    // The cache keeps raw data RAW_DATA_TTL_MS: an answer older than that was served stale.
    return new OneShotSource(this, onChange, RAW_DATA_TTL_MS);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // The CSV link is revoked on disconnect; a reconnected element makes a new one.
    this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    if (this.#csv) URL.revokeObjectURL(this.#csv.href);
    this.#csv = undefined;
  }

  protected override willUpdate(changed: Changes): void {
    const url = this.source.url;
    super.willUpdate(changed);
    if (this.source.url !== url || changed.has('pageSize')) this.page = 1;
    this.#prepareCsv();
  }

  /** `src` with the attributes' parameters, filling in a default range and time zone. */
  protected override requestUrl(url: URL): URL {
    const query = url.searchParams;
    const tz = this.tz || query.get('tz') || Intl.DateTimeFormat().resolvedOptions().timeZone;
    const end = this.end || query.get('end') || today(tz, getHub().clock.now());
    const start = this.start || query.get('start') || daysBefore(end, DEFAULT_DAYS - 1);
    const status = this.status || query.get('status');
    query.set('start', start);
    query.set('end', end);
    query.set('tz', tz);
    if (status) query.set('status', status);
    return url;
  }

  protected override isEmpty(data: RawDataResponse): boolean {
    return data.data.length === 0;
  }

  /** Every load is said, the first one too: the reader asked for it. */
  protected override dataChanged(data: RawDataResponse): undefined {
    this.announcer.announce(
      this.localize.term('testsLoaded', this.localize.count(this.#experimentsOf(data).length)),
    );
    return undefined;
  }

  #experimentsOf(data: RawDataResponse): Experiment[] {
    if (this.#experiments?.data !== data) this.#experiments = { data, list: groupExperiments(data.data) };
    return this.#experiments.list;
  }

  /** One object URL per loaded answer (and language), for the download link; the previous one is released. */
  #prepareCsv(): void {
    const data = this.view === 'ready' ? this.snapshot.data : undefined;
    const headers = this.localize.term('testsCsvHeaders');
    if (this.#csv?.data === data && this.#csv?.headers === headers) return;
    if (this.#csv) URL.revokeObjectURL(this.#csv.href);
    this.#csv = data && {
      data,
      headers,
      href: URL.createObjectURL(
        new Blob(['\ufeff', experimentsCsv(this.#experimentsOf(data), headers)], {
          type: 'text/csv;charset=utf-8',
        }),
      ),
    };
  }

  #goTo(page: number, pages: number): void {
    if (page < 1 || page > pages) return;
    this.page = page;
    this.announcer.announce(this.#pageOf(page, pages));
  }

  #pageOf(page: number, pages: number): string {
    return this.localize.term('testsPage', formatCount(this.locale, page), formatCount(this.locale, pages));
  }

  #renderRange(
    value: number | undefined,
    bounds: readonly [number, number] | undefined,
    scale: readonly [number, number],
    format: (value: number) => string,
  ): TemplateResult {
    if (value === undefined) return noData(this.localize);
    const [low, high] = scale;
    const at = (amount: number) => (high > low ? (amount - low) / (high - low) : 0.5).toFixed(4);
    return html`<span class="mean-value">${format(value)}</span>
      ${
        bounds
          ? html`<span class="bounds">${format(bounds[0])} – ${format(bounds[1])}</span>
          <span part="range" class="range" aria-hidden="true">
            <span class="interval" ${cssProperties({ '--pulse-from': at(bounds[0]), '--pulse-to': at(bounds[1]) })}></span>
            <span class="tick" ${cssProperties({ '--pulse-at': at(value) })}></span>
          </span>`
          : nothing
      }`;
  }

  #renderExperiment(
    experiment: Experiment,
    index: number,
    locale: string,
    date: (iso: string | null) => string,
  ): TemplateResult {
    const t = this.localize;
    const { record, variants } = experiment;
    const ctr = scaleOf(variants.map((row) => [row.ctr_mean, interval(row.ctr_intervals)]));
    const engagement = scaleOf(
      variants.map((row) => [row.engagement_mean, interval(row.engagement_intervals)]),
    );
    const percent = (value: number) => formatUnit(locale, value * 100, 'percent');
    const count = (value: number) => formatCount(locale, value);
    const link = record.path === undefined ? undefined : pageUrl(record.path, record.host ?? '');
    const id = `experiment-${index}`;
    const headline = variants[0]?.content || record.path || record.experiment_id;
    // The scrolling region is named with its place in the list too: two tests of one headline
    // were two regions of one name (axe landmark-unique, in the 25-a-page story).
    return html`<li part="experiment" class="experiment">
      <p part="headline" class="headline" id=${id}>${headline}</p>
      <p part="meta" class="meta">
        <span class="status">${known(t, STATUS_TERMS, record.status) || noData(t)}</span>
        <span>${known(t, TYPE_TERMS, record.content_type || record.type) || noData(t)}</span>
        ${record.created_at ? html`<span>${t.term('testsCreated', date(record.created_at))}</span>` : nothing}
        ${record.completed_at ? html`<span>${t.term('testsCompleted', date(record.completed_at))}</span>` : nothing}
        ${link ? html`<a part="link" href=${link.href}>${record.path}</a>` : html`<span>${record.path ?? noData(t)}</span>`}
      </p>
      <div class="scroller" tabindex="0" role="region" aria-label=${`${t.count(index + 1)}. ${headline}`}>
        <table part="variants" aria-labelledby=${id}>
          <thead>
            <tr>
              <th scope="col">${t.term('testsVariant')}</th>
              <th scope="col">${t.term('testsClickThrough')}</th>
              <th scope="col">${t.term('testsEngagement')}</th>
              <th scope="col" class="count">${t.term('testsProbability')}</th>
            </tr>
          </thead>
          <tbody>
            ${variants.map(
              (row) => html`<tr>
              <th scope="row" class="variant">
                <span class="content">${row.content ?? noData(t)}</span>
                <span class="variant-id">${row.variant_id}</span>
                ${record.winning_variant != null && row.variant_id === record.winning_variant ? html`<span part="winner" class="winner">${t.term('testsWinner')}</span>` : nothing}
              </th>
              <td>${this.#renderRange(row.ctr_mean, interval(row.ctr_intervals), ctr, percent)}</td>
              <td>${this.#renderRange(row.engagement_mean, interval(row.engagement_intervals), engagement, count)}</td>
              <td class="count">${formatOrNoData(t, row.probability, percent)}</td>
            </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </li>`;
  }

  #renderPagination(page: number, pages: number): TemplateResult | typeof nothing {
    if (pages <= 1) return nothing;
    // aria-disabled rather than disabled: the button keeps focus when it reaches the last page.
    return html`<nav part="pagination" class="pagination" aria-label=${this.localize.term('testsPages')}>
      <button part="page-button" type="button" aria-disabled=${String(page <= 1)} @click=${() => this.#goTo(page - 1, pages)}>${this.localize.term('testsPrevious')}</button>
      <span class="page-status">${this.#pageOf(page, pages)}</span>
      <button part="page-button" type="button" aria-disabled=${String(page >= pages)} @click=${() => this.#goTo(page + 1, pages)}>${this.localize.term('testsNext')}</button>
    </nav>`;
  }

  protected override renderData(data: RawDataResponse, locale: string): TemplateResult {
    const experiments = this.#experimentsOf(data);
    const size = Math.max(1, Math.floor(this.pageSize) || 25);
    const pages = Math.ceil(experiments.length / size);
    const page = Math.min(Math.max(1, this.page), pages);
    const first = (page - 1) * size;
    const url = new URL(this.source.url!);
    const date = dateFormatter(locale, url.searchParams.get('tz')!);
    const t = this.localize;
    const query = url.searchParams;
    const day = dayFormatter(locale);
    return html`<p part="summary" class="summary">
        ${t.term('testsSummary', t.count(experiments.length), t.count(data.data.length), day(query.get('start')!), day(query.get('end')!), query.get('tz')!)}
      </p>
      <ol part="experiments" class="experiments" start=${first + 1} aria-labelledby="label">
        ${experiments.slice(first, first + size).map((experiment, index) => this.#renderExperiment(experiment, first + index, locale, date))}
      </ol>
      ${this.#renderPagination(page, pages)}
      ${
        this.#csv
          ? html`<a part="download" class="download" href=${this.#csv.href} download=${csvName(url)}>${t.term('testsDownload', t.count(data.data.length))}</a>`
          : nothing
      }`;
  }
}

/** The span every variant's range is drawn on: all means and intervals, a little padded. */
function scaleOf(
  points: readonly (readonly [number | undefined, readonly [number, number] | undefined])[],
): readonly [number, number] {
  const values = points
    .flatMap(([mean, bounds]) => [mean, ...(bounds ?? [])])
    .filter((value): value is number => Number.isFinite(value));
  if (values.length === 0) return [0, 1];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const pad = (high - low) * 0.05;
  return [low - pad, high + pad];
}

/** Today's date, YYYY-MM-DD, in `tz` (UTC when the runtime does not know `tz`; the cache then says why). */
function today(tz: string, now: number): string {
  let timeZone = tz;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    timeZone = 'UTC';
  }
  // Assembled from parts: how a locale orders them differs between ICU versions (WebKitGTK's
  // en-CA gives 01/01/2025, not 2025-01-01).
  const parts = new Intl.DateTimeFormat('en', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((one) => one.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** `date` minus `days`, YYYY-MM-DD; `date` itself when it is not a date (the cache says why). */
function daysBefore(date: string, days: number): string {
  const time = Date.parse(`${date}T00:00:00Z`);
  return Number.isFinite(time) ? new Date(time - days * DAY_MS).toISOString().slice(0, 10) : date;
}

function dateFormatter(locale: string, timeZone: string): (iso: string | null) => string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone });
  } catch {
    format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  }
  return (iso) => {
    const time = iso ? Date.parse(iso) : NaN;
    return Number.isFinite(time) ? format.format(time) : '–';
  };
}

/** A day of the range (YYYY-MM-DD, already in `tz`) in the locale; as it is when it is not a date. */
function dayFormatter(locale: string): (day: string) => string {
  const format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  return (day) => {
    const time = Date.parse(`${day}T00:00:00Z`);
    return Number.isFinite(time) ? format.format(time) : day;
  };
}

const STATUS_TERMS: Readonly<Record<string, TextTerm>> = {
  draft: 'testsStatusDraft',
  active: 'testsStatusActive',
  completed: 'testsStatusCompleted',
  archived: 'testsStatusArchived',
};
const TYPE_TERMS: Readonly<Record<string, TextTerm>> = { headline: 'testsTypeHeadline' };

/** A value of the service's vocabulary in words, or as sent when we do not know it. */
function known(
  localize: LocalizeController,
  terms: Readonly<Record<string, TextTerm>>,
  value: string | null | undefined,
): string {
  const term = value ? terms[value] : undefined;
  return term ? localize.term(term) : (value ?? '');
}

/** `headline-tests-example.com-2025-06-01-2025-06-07.csv`, only safe characters. */
function csvName(url: URL): string {
  const parts = [
    'headline-tests',
    url.searchParams.get('host'),
    url.searchParams.get('start'),
    url.searchParams.get('end'),
  ];
  return `${parts
    .filter(Boolean)
    .join('-')
    .replace(/[^\w.@-]/g, '_')}.csv`;
}
