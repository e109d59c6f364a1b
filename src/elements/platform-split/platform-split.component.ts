import type { PropertyDeclarations, TemplateResult } from 'lit';
import type { QuickstatsResponse, RouteName, Shape } from '../../api/index.ts';
import { QUICKSTATS_SHAPE } from '../../api/response-shapes.ts';
import { cardTerms, shareListTerms, trafficTerms, platformSplitTerms } from '../../locales/en.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { shareItems, shareList, type ShareItem } from '../../internal/share-list.ts';
import { LOYALTY_TERMS, PLATFORM_TERMS } from '../../internal/stats-names.ts';
import { platformSplitStyles } from './platform-split.styles.ts';

/** What each breakdown shows, and the quickstats flag that makes the service send it. */
export const BREAKDOWNS = {
  platform: { label: 'splitPlatform', flag: 'all_platforms' },
  platform_engaged: { label: 'splitPlatformEngaged', flag: 'all_platforms' },
  loyalty: { label: 'splitLoyalty', flag: 'loyalty' },
} as const;

export type Breakdown = keyof typeof BREAKDOWNS;

/**
 * @summary How the people on the site now split by platform (desktop, mobile, tablet, app), by
 * platform among those engaging, or into new, returning and loyal visitors: counts, shares and
 * bars. Shows quickstats v4 data; the element adds the `all_platforms=1` or `loyalty=1` its
 * breakdown needs to the address it polls.
 *
 * Platform letters are not named by the service: `d`, `m`, `t` and `a` are shown as Desktop,
 * Mobile, Tablet and App (our documented guess), any other letter as itself.
 *
 * Parts, tokens, states and events common to every element are inherited from `PulseElement`.
 *
 * @csspart list - The ordered list, largest group first.
 * @csspart item - One platform or loyalty group.
 * @csspart name - The group's name.
 * @csspart count - The number of visitors in it.
 * @csspart share - Its share of the whole, in percent.
 * @csspart bar - The track of a bar.
 * @csspart bar-fill - The filled part of a bar.
 *
 * @cssproperty --pulse-platform-split-bar-color - Bar fill.
 *
 * @cssstate ready - Showing the breakdown.
 * @cssstate empty - Nobody is on the site, or the data has no such breakdown.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class PlatformSplit extends PulseElement<QuickstatsResponse> {
  static override styles: Styles = [PulseElement.styles, platformSplitStyles];
  static override route: RouteName = 'quickstats';
  static override shape: Shape = QUICKSTATS_SHAPE;
  static override terms = { ...cardTerms, ...shareListTerms, ...trafficTerms, ...platformSplitTerms };

  static override properties: PropertyDeclarations = {
    breakdown: {},
    max: { type: Number },
  };

  /** Which split: `platform`, `platform_engaged` (those engaging now) or `loyalty`. */
  breakdown: Breakdown = 'platform';

  /** Most groups shown (0 shows all the data has). */
  max = 0;

  get #breakdown(): Breakdown {
    return this.breakdown in BREAKDOWNS ? this.breakdown : 'platform';
  }

  protected override get defaultLabel(): string {
    return this.localize.term(BREAKDOWNS[this.#breakdown].label);
  }

  protected override get emptyText(): string {
    return this.localize.term('splitEmpty');
  }

  /** Asks for the block the breakdown reads; a page author need not know the flag. */
  protected override requestUrl(url: URL): URL {
    url.searchParams.set(BREAKDOWNS[this.#breakdown].flag, '1');
    return url;
  }

  protected override isEmpty(data: QuickstatsResponse): boolean {
    return this.#items(data).length === 0;
  }

  protected override dataChanged(data: QuickstatsResponse): string | undefined {
    const [leader] = this.#items(data);
    return leader && this.localize.term('splitAnnouncement', leader.name);
  }

  #items(data: QuickstatsResponse): ShareItem[] {
    const stats = data.data.stats;
    const breakdown = this.#breakdown;
    const entries =
      breakdown === 'loyalty'
        ? Object.keys(LOYALTY_TERMS).map(
            (key) => [key, stats.loyalty?.[key as keyof typeof LOYALTY_TERMS] ?? 0] as const,
          )
        : Object.entries(stats[breakdown] ?? {});
    // A platform letter we cannot name is shown as itself.
    const name = (key: string) => {
      const term =
        breakdown === 'loyalty' ? LOYALTY_TERMS[key as keyof typeof LOYALTY_TERMS] : PLATFORM_TERMS[key];
      return term ? this.localize.term(term) : key;
    };
    return shareItems(
      entries.filter(([, count]) => count > 0),
      name,
      this.max,
    );
  }

  protected override renderData(data: QuickstatsResponse): TemplateResult {
    return shareList(this.#items(data), this.localize);
  }
}
