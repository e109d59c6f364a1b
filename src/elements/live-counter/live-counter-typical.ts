/**
 * `<live-counter compare="typical">`, a separate module so counters without it never carry it:
 * importing it (the full bundle does) gives every counter made from then on the `compare`
 * property, whether <live-counter> was defined before or after. With `compare="typical"` a counter loads today's history for its metric
 * (the cache's `/history/v1/`, once and then once a minute), says how the number compares with
 * a typical day at this time, and its sparkline shows the day so far instead of starting empty.
 */
import { html, type ReactiveController, type TemplateResult } from 'lit';
import type { HistoryMetric } from '../../api/history-paths.ts';
import { getHub } from '../../client/index.ts';
import { formatCount, formatShare } from '../../internal/format.ts';
import { compareWithTypical, HistoryController, historyUrlFor } from '../../internal/history-controller.ts';
import type { LocalizeController } from '../../internal/localize.ts';
import { registerFeature } from '../../internal/pulse-element.ts';
import { typicalTerms } from '../../locales/en.ts';
import { LiveCounter } from './live-counter.component.ts';

declare module './live-counter.component.ts' {
  interface LiveCounter {
    /**
     * `typical`: say beside the number how it compares with a typical day at this time (from the
     * cache's `/history/v1/`), and draw the sparkline from the day so far.
     */
    compare?: '' | 'typical';
  }
}

/** Follows a counter's `compare`, `src` and `metric` before each of its updates (a reactive controller). */
export class TypicalComparison implements ReactiveController {
  readonly #counter: LiveCounter;
  readonly #history: HistoryController;

  constructor(counter: LiveCounter) {
    this.#counter = counter;
    this.#history = new HistoryController(counter);
    counter.addController(this);
  }

  hostUpdate(): void {
    const { src, metric } = this.#counter;
    // The attribute too: a page that loads this module after defining <live-counter> has no observed `compare`.
    const compare = this.#counter.compare || this.#counter.getAttribute('compare');
    let url: string | undefined;
    try {
      url =
        compare === 'typical' && src
          ? historyUrlFor(new URL(src, document.baseURI).href, metric as HistoryMetric)
          : undefined;
    } catch {
      // An unusable src is the counter's own error to show.
    }
    this.#history.url = url;
  }

  /** The comparison and the day's sparkline, or `undefined` (the counter's own sparkline) until history is in. */
  render(value: number, localize: LocalizeController): TemplateResult | undefined {
    const history = this.#history.url ? this.#history.data : undefined;
    if (!history) return undefined;
    const { locale } = localize;
    const comparison = compareWithTypical(history, getHub().clock.now(), value);
    let words: TemplateResult | undefined;
    if (comparison) {
      const [arrow, text] =
        comparison.direction === 'same'
          ? ['→', localize.term('typicalSame')]
          : [
              comparison.direction === 'above' ? '▲' : '▼',
              localize.term(
                comparison.direction === 'above' ? 'typicalAbove' : 'typicalBelow',
                formatShare(locale, comparison.share),
              ),
            ];
      // The delta's look (weight, figures); the arrow and the words carry the meaning, not the colour.
      words = html`<p part="compare" class="compare delta ${comparison.direction === 'above' ? 'up' : comparison.direction === 'below' ? 'down' : 'flat'}">
        <span aria-hidden="true">${arrow}</span> ${text}<span class="visually-hidden"> ${localize.term('typicalContext')}</span>
      </p>`;
    }
    return html`${words}${this.#counter.history > 0 ? this.#sparkline([...history.values.filter((point): point is number => point !== null), value], localize) : undefined}`;
  }

  #sparkline(points: number[], localize: LocalizeController): TemplateResult | undefined {
    if (points.length < 2) return undefined;
    const low = Math.min(...points);
    const high = Math.max(...points);
    const span = high - low || 1;
    const step = 100 / (points.length - 1);
    const line = points
      .map((point, index) => `${(index * step).toFixed(2)},${(24 - ((point - low) / span) * 24).toFixed(2)}`)
      .join(' ');
    const count = (point: number) => formatCount(localize.locale, point);
    const description = localize.term(
      'typicalSparkline',
      count(points[0]!),
      count(points.at(-1)!),
      count(low),
      count(high),
    );
    return html`<svg part="sparkline" class="sparkline" viewBox="0 0 100 24" preserveAspectRatio="none" role="img" aria-label=${description}>
      <polyline points=${line}></polyline>
    </svg>`;
  }
}

registerFeature(LiveCounter, 'typicalComparison', (counter) => new TypicalComparison(counter), {
  terms: typicalTerms,
  properties: { compare: {} },
});
