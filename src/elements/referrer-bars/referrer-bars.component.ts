import { type CSSResultGroup, type TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import type { ReferrersResponse, RouteName } from '../../api/index.ts';
import type { SourceData } from '../../client/index.ts';
import { newLeader } from '../../internal/announcer.ts';
import { sumCounts } from '../../internal/network.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { shareItems, shareList, type ShareItem } from '../../internal/share-list.ts';
import { SOURCE_NAMES, type Source } from '../../internal/stats-names.ts';
import { describeReferrer, type ReferrerCategory } from './referrer-names.ts';
import { referrerBarsStyles } from './referrer-bars.styles.ts';

export { describeReferrer, type ReferrerCategory } from './referrer-names.ts';

const CATEGORY_NAMES: Record<ReferrerCategory, string> = {
  search: 'Search engines',
  social: 'Social networks',
  news: 'News aggregators',
  ai: 'AI assistants',
  dark: 'Dark social',
  other: 'Other sites',
};

/** A `by_type` group is a traffic source (`links`, `subscr`, …): named, never shown as the upstream's key. */
function groupName(key: string): string {
  return CATEGORY_NAMES[key as ReferrerCategory] ?? SOURCE_NAMES[key as Source] ?? key;
}

/**
 * @summary Where visitors come from right now: referrers as horizontal bars with counts and
 * shares, well-known domains under friendly names, optionally grouped into search, social,
 * news aggregators, AI assistants and dark social. Shows referrers v3 data.
 *
 * Parts, tokens, states and events common to every element are inherited from `PulseElement`.
 *
 * @csspart list - The ordered list.
 * @csspart item - One referrer or group.
 * @csspart name - The referrer's name (always text, never a link).
 * @csspart count - The number of visitors (may be fractional on sampled sites).
 * @csspart share - The share of all referred visitors, in percent.
 * @csspart bar - The track of a bar.
 * @csspart bar-fill - The filled part of a bar.
 *
 * @cssproperty --pulse-referrer-bars-bar-color - Bar fill.
 * @cssproperty --pulse-referrer-bars-bar-size - Bar thickness.
 *
 * @cssstate ready - Showing referrers.
 * @cssstate empty - No referred visitors right now.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class ReferrerBars extends PulseElement<ReferrersResponse> {
  static override styles: CSSResultGroup = [PulseElement.styles, referrerBarsStyles];
  static override route: RouteName = 'referrers';
  static override freezable = true;

  /** Most bars shown (0 shows all the data has). */
  @property({ type: Number }) max = 10;

  /** Adds up referrers by kind (search engines, social networks, …) instead of listing domains. */
  @property({ type: Boolean }) grouped = false;

  protected override get defaultLabel(): string {
    return this.grouped ? 'Visitors by kind of referrer' : 'Top referrers now';
  }

  protected override get emptyText(): string {
    return 'No referred visitors right now.';
  }

  protected override isEmpty(data: ReferrersResponse): boolean {
    return this.#items(data).length === 0;
  }

  protected override dataChanged(data: ReferrersResponse, previous: ReferrersResponse | undefined): string | undefined {
    const leader = newLeader(this.#items(data), previous && this.#items(previous), (item) => item.key);
    return leader && `Top referrer now: ${leader.name}`;
  }

  /** Several sites (`src` with several addresses): each referrer's visitors add up. */
  protected override merge(parts: readonly SourceData<ReferrersResponse>[]): ReferrersResponse {
    return sumCounts(parts.map((part) => part.data));
  }

  /**
   * With `by_type=1` each traffic source maps to its own referrer counts; grouping then uses
   * those sources, otherwise the categories of the well-known referrers.
   */
  #items(data: ReferrersResponse): ShareItem[] {
    const counts = new Map<string, number>();
    const names = new Map<string, string>();
    const add = (key: string, name: string, count: number) => {
      if (!(count > 0)) return;
      counts.set(key, (counts.get(key) ?? 0) + count);
      names.set(key, name);
    };
    for (const [referrer, value] of Object.entries(data.referrers)) {
      if (typeof value === 'number') {
        const { name, category } = describeReferrer(referrer);
        if (this.grouped) add(category, CATEGORY_NAMES[category], value);
        else add(name, name, value);
        continue;
      }
      for (const [domain, count] of Object.entries(value)) {
        const { name } = describeReferrer(domain);
        if (this.grouped) add(referrer, groupName(referrer), count);
        else add(name, name, count);
      }
    }
    return shareItems([...counts], (key) => names.get(key) ?? key, this.max);
  }

  protected override renderData(data: ReferrersResponse, locale: string): TemplateResult {
    return shareList(this.#items(data), locale, 'visitors');
  }
}
