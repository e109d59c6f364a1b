import { type CSSResultGroup, type TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import type { QuickstatsResponse, RouteName } from '../../api/index.ts';
import { newLeader } from '../../internal/announcer.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { shareItems, shareList, type ShareItem } from '../../internal/share-list.ts';
import { SOURCE_NAMES, type Source } from '../../internal/stats-names.ts';
import { trafficSourcesStyles } from './traffic-sources.styles.ts';

const ALL_SOURCES = Object.keys(SOURCE_NAMES) as Source[];

/**
 * @summary Where the people on the site now came from: direct, search, social, links, internal
 * and subscriptions, each with a count, a share of everyone and a bar. Shows quickstats v4 data
 * (add `path=` to `src` for one page, `section=` for one section).
 *
 * Parts, tokens, states and events common to every element are inherited from `PulseElement`.
 *
 * @csspart list - The ordered list, largest source first.
 * @csspart item - One traffic source.
 * @csspart name - The source's name.
 * @csspart count - The number of visitors from it.
 * @csspart share - Its share of all visitors, in percent.
 * @csspart bar - The track of a bar.
 * @csspart bar-fill - The filled part of a bar.
 *
 * @cssproperty --pulse-traffic-sources-bar-color - Bar fill.
 *
 * @cssstate ready - Showing sources.
 * @cssstate empty - Nobody is on the site, or the data has none of the chosen sources.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class TrafficSources extends PulseElement<QuickstatsResponse> {
  static override styles: CSSResultGroup = [PulseElement.styles, trafficSourcesStyles];
  static override route: RouteName = 'quickstats';

  /** Sources shown, space separated, among direct search social links internal subscr (default: all). */
  @property() sources = '';

  protected override get defaultLabel(): string {
    return 'Visitors by traffic source';
  }

  protected override get emptyText(): string {
    return 'Nobody from these sources right now.';
  }

  protected override isEmpty(data: QuickstatsResponse): boolean {
    return this.#items(data).length === 0;
  }

  protected override dataChanged(data: QuickstatsResponse, previous: QuickstatsResponse | undefined): string | undefined {
    const leader = newLeader(this.#items(data), previous && this.#items(previous), (item) => item.key);
    return leader && `Most visitors now from ${leader.name.toLowerCase()}`;
  }

  #chosen(): Source[] {
    const wanted = this.sources.split(/[\s,]+/).filter((name): name is Source => name in SOURCE_NAMES);
    return wanted.length > 0 ? wanted : ALL_SOURCES;
  }

  /** Shares are of everyone on the site (`people`), which the six sources partition. */
  #items(data: QuickstatsResponse): ShareItem[] {
    const stats = data.data.stats;
    const entries = this.#chosen().map((source) => [source, stats[source] ?? 0] as const).filter(([, count]) => count > 0);
    return shareItems(entries, (source) => SOURCE_NAMES[source as Source], 0, stats.people);
  }

  protected override renderData(data: QuickstatsResponse, locale: string): TemplateResult {
    return shareList(this.#items(data), locale, 'visitors');
  }
}
