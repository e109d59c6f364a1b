import type { PropertyDeclarations } from '@lit/reactive-element';
import { registerShape } from '../../api/check-response.ts';
import type { QuickstatsResponse, RouteName, Shape } from '../../api/index.ts';
import { QUICKSTATS_SHAPE } from '../../api/response-shapes.ts';
import { Announcer } from '../../internal/announcer.ts';
import { h, place, setAttribute, setText } from '../../internal/dom.ts';
import { featureOf } from '../../internal/features.ts';
import { formatCount } from '../../internal/format.ts';
import { Frame, FrameElement } from '../../internal/frame.ts';
import type { Changes } from '../../internal/lean-element.ts';
import { LocalizeController } from '../../internal/localize.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { baseStyles } from '../../internal/styles.ts';
import { cardTerms, liveCounterTerms, type TextTerm } from '../../locales/en.ts';
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

/** Points of a sparkline and its text alternative. */
export interface Trend {
  readonly points: readonly number[];
  readonly description: string;
}

/** The `points` of a sparkline's polyline in its 100 × 24 box: time across, the lowest value at the bottom. */
function sparklinePoints(points: readonly number[]): string {
  const low = Math.min(...points);
  const span = Math.max(...points) - low || 1;
  const step = 100 / (points.length - 1);
  return points
    .map((value, index) => `${(index * step).toFixed(2)},${(24 - ((value - low) / span) * 24).toFixed(2)}`)
    .join(' ');
}

/**
 * A change drawn as an arrow and words, not by colour alone: the delta since the previous update
 * and the comparison with a typical day. `<p part class="… up|down|flat"><span aria-hidden>
 * <span class=arrow>▲</span>shown</span>said<span class=visually-hidden>words</span></p>`.
 */
class Change {
  readonly #className: string;
  readonly #arrow = h('span', { class: 'arrow' });
  readonly #shown = document.createTextNode('');
  readonly #said = document.createTextNode('');
  readonly #words = h('span', { class: 'visually-hidden' });
  readonly node: Element;

  /** The comparison has the delta's look (weight, figures): `className` "compare delta". */
  constructor(part: string, className: string) {
    this.#className = className;
    this.node = h(
      'p',
      { part },
      h('span', { 'aria-hidden': 'true' }, this.#arrow, this.#shown),
      this.#said,
      this.#words,
    );
  }

  /** The change's direction by its sign (a rise, a fall, none), and its text. */
  draw(sign: number, shown: string, said: string, words: string): Element {
    const [direction, arrow] = sign > 0 ? ['up', '▲'] : sign < 0 ? ['down', '▼'] : ['flat', '→'];
    setAttribute(this.node, 'class', `${this.#className} ${direction}`);
    setText(this.#arrow, arrow);
    setText(this.#shown, shown);
    setText(this.#said, said);
    setText(this.#words, words);
    return this.node;
  }
}

/**
 * @summary The number of people on the site now, big, with its change since the last update
 * and a sparkline of recent updates. Shows quickstats v4 data. Drawn without Lit, on a lean base
 * of its own, so a page that shows only a counter loads a small file (`dist/cdn/live-counter.js`);
 * style it through its parts and custom properties.
 *
 * @csspart base - The card.
 * @csspart label - The text above the data.
 * @csspart message - The loading and empty messages.
 * @csspart error - The error message shown when there is no data.
 * @csspart value - The number.
 * @csspart delta - The change since the previous update, with an arrow and words.
 * @csspart sparkline - The trend line (an `svg` with a text alternative).
 * @csspart compare - With `compare="typical"`: how the number compares with a typical day at this time, in words.
 * @csspart partial - The note naming the sites missing from a merge of several (the network view, newsroom features).
 * @csspart updated - The "Updated N sec. ago" line, which becomes an "Out of date" notice.
 * @csspart live - The visually hidden polite live region.
 *
 * @attr {'' | 'typical'} compare - `typical`: says how the number compares with a typical day at this time (from the cache's `/history/v1/`), and the sparkline shows the day so far. Comes with the full bundle (`pulse-widgets.js`, `src/index.ts`) or `live-counter-typical.ts` imported before the counters are made (before or after the element is defined).
 * @prop {'' | 'typical'} compare - `typical`: says how the number compares with a typical day at this time (from the cache's `/history/v1/`), and the sparkline shows the day so far. Comes with the full bundle (`pulse-widgets.js`, `src/index.ts`) or `live-counter-typical.ts` imported before the counters are made (before or after the element is defined).
 *
 * @cssproperty --pulse-counter-size - Font size of the number.
 * @cssproperty --pulse-sparkline-color - Colour of the trend line.
 * @cssproperty --pulse-color-text - Text colour.
 * @cssproperty --pulse-color-muted - Secondary text colour.
 * @cssproperty --pulse-color-surface - Card background.
 * @cssproperty --pulse-color-border - Card border.
 * @cssproperty --pulse-color-accent - Links and highlights.
 * @cssproperty --pulse-color-track - Bar track and rules.
 * @cssproperty --pulse-color-up - Colour of a rise.
 * @cssproperty --pulse-color-down - Colour of a fall and of errors.
 * @cssproperty --pulse-color-warning - Text colour of the out-of-date notice.
 * @cssproperty --pulse-color-warning-surface - Background of the out-of-date notice.
 * @cssproperty --pulse-font-family - Font family.
 * @cssproperty --pulse-font-size - Base font size.
 * @cssproperty --pulse-radius - Card corner radius.
 * @cssproperty --pulse-spacing - Card padding and gaps.
 *
 * @cssstate loading - No data yet.
 * @cssstate ready - Showing a number.
 * @cssstate empty - Nothing to show: below `threshold` (the element is then hidden) or no such metric.
 * @cssstate error - No data can be shown; the card says why.
 * @cssstate stale - The number shown may be out of date.
 * @cssstate paused - Polling is paused (page hidden or offline).
 * @cssstate partial - Several sites are merged and one or more of them failed: their last data stays in, a note names them.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class LiveCounter extends FrameElement {
  static override styles: Styles = [baseStyles, liveCounterStyles];
  /** The route whose data the element shows; `src` must point at it. */
  static route: RouteName = 'quickstats';
  /** The response shape of `route`, which the hub checks every body against. */
  static shape: Shape = QUICKSTATS_SHAPE;
  /** The English the element bundles: the card's section of the catalog and its own. */
  static terms = { ...cardTerms, ...liveCounterTerms };

  /** Registers the shape of quickstats when the element is defined, before any body arrives. */
  protected static override finalize(): void {
    super.finalize();
    registerShape(this.route, this.shape);
  }

  readonly #localize = new LocalizeController(this, (this.constructor as typeof LiveCounter).terms);
  readonly #announcer = new Announcer(this);
  readonly #frame = new Frame<QuickstatsResponse>(this, {
    route: (this.constructor as typeof LiveCounter).route,
    localize: this.#localize,
    announcer: this.#announcer,
    isEmpty: (data) => this.#isEmpty(data),
    dataChanged: (data, previous, locale) => this.#dataChanged(data, previous, locale),
  });
  readonly #typical = featureOf(this, 'typicalComparison')?.(this);
  #history: number[] = [];
  /** The value the reader last heard (or saw first); a change of less than ANNOUNCE_CHANGE of it is not worth saying. */
  #saidValue: number | undefined;
  /** The last value put in words, and those words: said once the announcer has said them. */
  #toldValue: number | undefined;
  #told = '';

  // The card's nodes, made once and put in the shadow root by the first update; then only the text and attributes that change.
  readonly #label = h('p', { part: 'label', class: 'label', id: 'label' });
  readonly #body = h('div', { class: 'body' });
  readonly #partial = h('p', { part: 'partial', class: 'partial' });
  readonly #updated = h('p', { part: 'updated', class: 'updated' });
  readonly #live = h('div', { part: 'live', class: 'visually-hidden', role: 'status' });
  /** Between the label and the body, so the card's text reads "People on the site now 1,234". */
  readonly #gap = document.createTextNode(' ');
  readonly #card = h('div', { part: 'base', class: 'card' });
  readonly #message = h('p');
  readonly #value = h('p', { part: 'value', class: 'value' });
  /** A figure the answer lacks: "—" for the eye, "no data" for a screen reader. */
  readonly #dash = h('span', { 'aria-hidden': 'true' }, '—');
  readonly #noData = h('span', { class: 'visually-hidden' });
  readonly #delta = new Change('delta', 'delta');
  readonly #figure = h('div', { class: 'figure' }, this.#value);
  readonly #polyline = h('polyline');
  readonly #sparkline = h('svg', {
    part: 'sparkline',
    class: 'sparkline',
    viewBox: '0 0 100 24',
    preserveAspectRatio: 'none',
    role: 'img',
  });
  readonly #compare = new Change('compare', 'compare delta');

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

  constructor() {
    super();
    this.#sparkline.append(this.#polyline);
  }

  get #defaultLabel(): string {
    const term = COUNTER_METRICS[this.metric];
    return term ? this.#localize.term(term) : this.metric;
  }

  /** A figure we know that this answer lacks shows "—"; a metric we do not know says so. */
  #isEmpty(data: QuickstatsResponse): boolean {
    const raw = this.#raw(data);
    if (raw === undefined) return this.threshold > 0 || !(this.metric in COUNTER_METRICS);
    // The threshold reads the true count: rounding first would show 3 readers as "5" with round="5".
    return this.threshold > 0 && raw < this.threshold;
  }

  /**
   * The number in words when it moved by ANNOUNCE_CHANGE or more from the one the reader last
   * heard; else the words last heard, which cancels a change still waiting to be said.
   */
  #dataChanged(
    data: QuickstatsResponse,
    previous: QuickstatsResponse | undefined,
    locale: string,
  ): string | undefined {
    if (previous === undefined) {
      this.#restartHistory();
      return this.#tell(this.#saidValue, locale);
    }
    const value = this.#valueOf(data);
    if (value === undefined || this.#isEmpty(data)) return undefined;
    this.#history = [...this.#history, value].slice(-Math.max(1, this.history));
    if (this.#told === this.#announcer.said) this.#saidValue = this.#toldValue;
    const said = this.#saidValue;
    const worthSaying = said === undefined || Math.abs(value - said) >= Math.max(1, said * ANNOUNCE_CHANGE);
    return this.#tell(worthSaying ? value : said, locale);
  }

  #tell(value: number | undefined, locale: string): string | undefined {
    if (value === undefined) return undefined;
    this.#toldValue = value;
    return (this.#told = this.#localize.term(
      'counterAnnouncement',
      this.label || this.#defaultLabel,
      formatCount(locale, value),
    ));
  }

  #restartHistory(): void {
    const data = this.#frame.snapshot.data;
    const value = data && this.#valueOf(data);
    this.#history = value === undefined ? [] : [value];
    this.#saidValue = value;
  }

  /** The metric as displayed: rounded to `round` in public mode. */
  #valueOf(data: QuickstatsResponse): number | undefined {
    const raw = this.#raw(data);
    if (raw === undefined) return undefined;
    return this.round > 1 ? Math.round(raw / this.round) * this.round : raw;
  }

  #raw(data: QuickstatsResponse): number | undefined {
    const raw = (data.data.stats as Record<string, unknown>)[this.metric];
    return typeof raw === 'number' ? raw : undefined;
  }

  protected override update(changes: Changes): void {
    this.#frame.update(changes.size > 0);
    if (changes.has('metric') && changes.get('metric') !== undefined) this.#restartHistory();
    const localize = this.#localize;
    const locale = localize.locale;
    const view = this.#frame.view;
    // The language's direction when the page gives none; English text on a page in a language we lack says so.
    setAttribute(this.#card, 'dir', localize.dir);
    setAttribute(this.#card, 'lang', localize.lang);
    setText(this.#label, this.label || this.#defaultLabel);
    const note = view === 'ready' ? this.#frame.source.note?.() : undefined;
    if (note) setText(this.#partial, note);
    place(this.#card, [
      this.#label,
      this.#gap,
      this.#body,
      note ? this.#partial : undefined,
      this.#updated,
      this.#live,
    ]);
    setText(this.#live, this.#announcer.text);
    if (view === 'ready') {
      const value = this.#valueOf(this.#frame.shownData!);
      place(this.#body, this.#drawReady(value, locale));
    } else {
      const message = this.#message;
      setAttribute(message, 'part', view === 'error' ? 'error' : 'message');
      setAttribute(message, 'class', view === 'empty' ? 'message' : `message ${view}`);
      setText(
        message,
        view === 'loading'
          ? localize.term('loading')
          : view === 'error'
            ? this.#frame.errorText
            : this.threshold > 0
              ? ''
              : localize.term('counterNoMetric', this.metric),
      );
      place(this.#body, [message]);
    }
    if (!this.renderRoot.firstChild) this.renderRoot.append(this.#card);
  }

  /** The number, its change, and the comparison and trend: the nodes of the body, written. */
  #drawReady(value: number | undefined, locale: string): (Node | false | undefined)[] {
    const localize = this.#localize;
    if (value === undefined) {
      setText(this.#noData, localize.term('noData'));
      place(this.#value, [this.#dash, this.#noData]);
      place(this.#figure, [this.#value]);
      return [this.#figure, this.#drawTrend(this.#ownTrend(locale))];
    }
    setText(this.#value, formatCount(locale, value));
    const before = this.#frame.previousData && this.#valueOf(this.#frame.previousData);
    place(this.#figure, [this.#value, before !== undefined && this.#drawDelta(value - before, locale)]);
    const typical = this.#typical?.view(value, localize);
    return [
      this.#figure,
      typical?.comparison &&
        this.#compare.draw(
          typical.comparison.sign,
          '',
          ` ${typical.comparison.words}`,
          ` ${typical.comparison.context}`,
        ),
      this.#drawTrend(typical?.trend ?? this.#ownTrend(locale)),
    ];
  }

  #drawDelta(change: number, locale: string): Node {
    const localize = this.#localize;
    const size = formatCount(locale, Math.abs(change));
    return this.#delta.draw(
      change,
      ` ${change === 0 ? formatCount(locale, 0) : size}`,
      ' ',
      change > 0
        ? localize.term('counterUp', size)
        : change < 0
          ? localize.term('counterDown', size)
          : localize.term('counterSame'),
    );
  }

  /** The counter's own trend: its last `history` updates. */
  #ownTrend(locale: string): Trend {
    const points = this.history > 0 ? this.#history.slice(-this.history) : [];
    const count = (value: number) => formatCount(locale, value);
    return {
      points,
      description:
        points.length < 2
          ? ''
          : this.#localize.term(
              'counterTrend',
              this.#localize.count(points.length),
              count(points[0]!),
              count(points.at(-1)!),
              count(Math.min(...points)),
              count(Math.max(...points)),
            ),
    };
  }

  /** The sparkline of `trend`, unless `history="0"` or it has fewer than two points. */
  #drawTrend({ points, description }: Trend): Node | undefined {
    if (this.history <= 0 || points.length < 2) return undefined;
    setAttribute(this.#polyline, 'points', sparklinePoints(points));
    setAttribute(this.#sparkline, 'aria-label', description);
    return this.#sparkline;
  }
}
