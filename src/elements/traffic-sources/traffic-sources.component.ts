import type { PropertyDeclarations, TemplateResult } from 'lit';
import type { QuickstatsResponse, RouteName, Shape } from '../../api/index.ts';
import { QUICKSTATS_SHAPE } from '../../api/response-shapes.ts';
import { cardTerms, shareListTerms, trafficTerms, trafficSourcesTerms } from '../../locales/en.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { shareItems, shareList, type ShareItem } from '../../internal/share-list.ts';
import { SOURCE_TERMS, type Source } from '../../internal/stats-names.ts';
import { trafficSourcesStyles } from './traffic-sources.styles.ts';

const ALL_SOURCES = Object.keys(SOURCE_TERMS) as Source[];

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
  static override styles: Styles = [PulseElement.styles, trafficSourcesStyles];
  static override route: RouteName = 'quickstats';
  static override shape: Shape = QUICKSTATS_SHAPE;
  static override terms = { ...cardTerms, ...shareListTerms, ...trafficTerms, ...trafficSourcesTerms };

  static override properties: PropertyDeclarations = {
    sources: {},
  };

  /** Sources shown, space separated, among direct search social links internal subscr (default: all). */
  sources = '';

  protected override get defaultLabel(): string {
    return this.localize.term('sourcesLabel');
  }

  protected override get emptyText(): string {
    return this.localize.term('sourcesEmpty');
  }

  protected override isEmpty(data: QuickstatsResponse): boolean {
    return this.#items(data).length === 0;
  }

  protected override dataChanged(data: QuickstatsResponse): string | undefined {
    const [leader] = this.#items(data);
    return leader && this.localize.term('sourcesAnnouncement', leader.name);
  }

  #chosen(): Source[] {
    const wanted = this.sources.split(/[\s,]+/).filter((name): name is Source => name in SOURCE_TERMS);
    return wanted.length > 0 ? wanted : ALL_SOURCES;
  }

  /** Shares are of everyone on the site (`people`), which the six sources partition. */
  #items(data: QuickstatsResponse): ShareItem[] {
    const stats = data.data.stats;
    const entries = this.#chosen()
      .map((source) => [source, stats[source] ?? 0] as const)
      .filter(([, count]) => count > 0);
    return shareItems(
      entries,
      (source) => this.localize.term(SOURCE_TERMS[source as Source]),
      0,
      stats.people,
    );
  }

  protected override renderData(data: QuickstatsResponse): TemplateResult {
    return shareList(this.#items(data), this.localize);
  }
}
