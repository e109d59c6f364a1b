/**
 * `<live-counter compare="typical">`, a separate module so counters without it never carry it:
 * importing it (the full bundle does) gives every counter made from then on the `compare`
 * property, whether <live-counter> was defined before or after. With `compare="typical"` a counter loads today's history for its metric
 * (the cache's `/history/v1/`, once and then once a minute), says how the number compares with
 * a typical day at this time, and its sparkline shows the day so far instead of starting empty.
 */
import type { ReactiveController } from '@lit/reactive-element';
import type { HistoryMetric } from '../../api/history-paths.ts';
import { getHub } from '../../client/index.ts';
import { registerFeature } from '../../internal/features.ts';
import { formatCount, formatShare } from '../../internal/format.ts';
import { compareWithTypical, HistoryController, historyUrlFor } from '../../internal/history-controller.ts';
import type { LocalizeController } from '../../internal/localize.ts';
import { typicalTerms } from '../../locales/en.ts';
import { LiveCounter, type Trend } from './live-counter.component.ts';

declare module './live-counter.component.ts' {
  interface LiveCounter {
    /**
     * `typical`: say beside the number how it compares with a typical day at this time (from the
     * cache's `/history/v1/`), and draw the sparkline from the day so far.
     */
    compare?: '' | 'typical';
  }
}

/** What a counter with `compare="typical"` shows from today's history. */
export interface TypicalView {
  /** How the number compares with a typical day at this time (1 above, −1 below, 0 about the same), in words. */
  readonly comparison?: { readonly sign: number; readonly words: string; readonly context: string };
  /** The day so far and the number now, for the sparkline. */
  readonly trend: Trend;
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

  /** The comparison and the day's trend, or `undefined` (the counter's own trend) until history is in. */
  view(value: number, localize: LocalizeController): TypicalView | undefined {
    const history = this.#history.url ? this.#history.data : undefined;
    if (!history) return undefined;
    const { locale } = localize;
    const comparison = compareWithTypical(history, getHub().clock.now(), value);
    const points = [...history.values.filter((point): point is number => point !== null), value];
    const count = (point: number) => formatCount(locale, point);
    return {
      comparison: comparison && {
        sign: comparison.direction === 'above' ? 1 : comparison.direction === 'below' ? -1 : 0,
        words:
          comparison.direction === 'same'
            ? localize.term('typicalSame')
            : localize.term(
                comparison.direction === 'above' ? 'typicalAbove' : 'typicalBelow',
                formatShare(locale, comparison.share),
              ),
        context: localize.term('typicalContext'),
      },
      trend: {
        points,
        description: localize.term(
          'typicalSparkline',
          count(points[0]!),
          count(points.at(-1)!),
          count(Math.min(...points)),
          count(Math.max(...points)),
        ),
      },
    };
  }
}

registerFeature(LiveCounter, 'typicalComparison', (counter) => new TypicalComparison(counter), {
  terms: typicalTerms,
  properties: { compare: {} },
});
