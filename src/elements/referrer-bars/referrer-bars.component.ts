import type { PropertyDeclarations, TemplateResult } from 'lit';
import type { ReferrersResponse, RouteName, Shape } from '../../api/index.ts';
import { REFERRERS_SHAPE } from '../../api/response-shapes.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { shareItems, shareList, type ShareItem } from '../../internal/share-list.ts';
import { SOURCE_TERMS, type Source } from '../../internal/stats-names.ts';
import {
  cardTerms,
  shareListTerms,
  trafficTerms,
  referrerBarsTerms,
  type TextTerm,
} from '../../locales/en.ts';
import { describeReferrer, type ReferrerCategory } from './referrer-names.ts';
import { referrerBarsStyles } from './referrer-bars.styles.ts';

export { describeReferrer, type ReferrerCategory } from './referrer-names.ts';

const CATEGORY_TERMS: Record<ReferrerCategory, TextTerm> = {
  search: 'referrersSearch',
  social: 'referrersSocial',
  news: 'referrersNews',
  ai: 'referrersAi',
  dark: 'referrersDark',
  other: 'referrersOther',
};

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
  static override styles: Styles = [PulseElement.styles, referrerBarsStyles];
  static override route: RouteName = 'referrers';
  static override shape: Shape = REFERRERS_SHAPE;
  static override terms = { ...cardTerms, ...shareListTerms, ...trafficTerms, ...referrerBarsTerms };

  static override properties: PropertyDeclarations = {
    max: { type: Number },
    grouped: { type: Boolean },
  };

  /** Most bars shown (0 shows all the data has). */
  max = 10;

  /** Adds up referrers by kind (search engines, social networks, …) instead of listing domains. */
  grouped = false;

  protected override get rows(): number | undefined {
    return this.max > 0 ? this.max : undefined;
  }

  protected override get defaultLabel(): string {
    return this.localize.term(this.grouped ? 'referrersGroupedLabel' : 'referrersLabel');
  }

  protected override get emptyText(): string {
    return this.localize.term('referrersEmpty');
  }

  protected override isEmpty(data: ReferrersResponse): boolean {
    return this.#items(data).length === 0;
  }

  protected override dataChanged(data: ReferrersResponse): string | undefined {
    const [leader] = this.#items(data);
    return leader && this.localize.term('referrersAnnouncement', leader.name);
  }

  /**
   * With `by_type=1` each traffic source maps to its own referrer counts; grouping then uses
   * those sources, otherwise the categories of the well-known referrers.
   */
  #items(data: ReferrersResponse): ShareItem[] {
    const counts = new Map<string, number>();
    const names = new Map<string, string>();
    const categoryName = (key: string) => this.localize.term(CATEGORY_TERMS[key as ReferrerCategory]);
    const domainName = (name: string) => name || this.localize.term('referrersNone');
    // A by_type group is a traffic source (`links`, `subscr`, …): search and social read as their kinds of referrer, the others by their source name, never the upstream's key.
    const groupName = (source: string) => {
      if (source in CATEGORY_TERMS) return categoryName(source);
      return source in SOURCE_TERMS ? this.localize.term(SOURCE_TERMS[source as Source]) : source;
    };
    const add = (key: string, name: string, count: number) => {
      if (!(count > 0)) return;
      counts.set(key, (counts.get(key) ?? 0) + count);
      names.set(key, name);
    };
    for (const [referrer, value] of Object.entries(data.referrers)) {
      if (typeof value === 'number') {
        const { name, category } = describeReferrer(referrer);
        if (this.grouped) add(category, categoryName(category), value);
        else add(name, domainName(name), value);
        continue;
      }
      for (const [domain, count] of Object.entries(value)) {
        const { name } = describeReferrer(domain);
        if (this.grouped) add(referrer, groupName(referrer), count);
        else add(name, domainName(name), count);
      }
    }
    return shareItems([...counts], (key) => names.get(key) ?? key, this.max);
  }

  protected override renderData(data: ReferrersResponse): TemplateResult {
    return shareList(this.#items(data), this.localize);
  }
}
