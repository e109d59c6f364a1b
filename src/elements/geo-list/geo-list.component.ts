import type { PropertyDeclarations, TemplateResult } from 'lit';
import type { RouteName, Shape, TopGeoResponse } from '../../api/index.ts';
import { TOP_GEO_SHAPE } from '../../api/response-shapes.ts';
import { regionName } from '../../internal/format.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { shareItems, shareList, type ShareItem } from '../../internal/share-list.ts';
import { cardTerms, shareListTerms, geoListTerms, type TextTerm } from '../../locales/en.ts';
import { geoListStyles } from './geo-list.styles.ts';

/** The segments of top_geo, and the terms of their labels. */
export const GEO_SEGMENTS = {
  countries: 'geoCountries',
  regions: 'geoRegions',
  cities: 'geoCities',
  metro_codes: 'geoMetroCodes',
} as const satisfies Record<string, TextTerm>;

export type GeoSegment = keyof typeof GEO_SEGMENTS;

/**
 * @summary Where visitors are right now: countries, regions, cities or metro areas, with counts
 * and each one's share of all visitors as a bar and a percentage. Shows top_geo v1 data.
 *
 * Parts, tokens, states and events common to every element are inherited from `PulseElement`.
 *
 * @csspart list - The ordered list.
 * @csspart item - One place.
 * @csspart name - The place name (localized for countries and regions).
 * @csspart count - The number of visitors.
 * @csspart share - The share of all visitors, in percent.
 * @csspart bar - The track of a bar.
 * @csspart bar-fill - The filled part of a bar.
 *
 * @cssproperty --pulse-geo-list-bar-color - Bar fill.
 *
 * @cssstate ready - Showing places.
 * @cssstate empty - No visitor has a known place in this segment.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class GeoList extends PulseElement<TopGeoResponse> {
  static override styles: Styles = [PulseElement.styles, geoListStyles];
  static override route: RouteName = 'top_geo';
  static override shape: Shape = TOP_GEO_SHAPE;
  static override terms = { ...cardTerms, ...shareListTerms, ...geoListTerms };

  static override properties: PropertyDeclarations = {
    segment: {},
    max: { type: Number },
  };

  /** Which places to list: `countries`, `regions`, `cities` or `metro_codes`. */
  segment: GeoSegment = 'countries';

  /** Most places shown (0 shows all the data has). */
  max = 10;

  protected override get rows(): number | undefined {
    return this.max > 0 ? this.max : undefined;
  }

  protected override get defaultLabel(): string {
    return this.localize.term(GEO_SEGMENTS[this.segment] ?? GEO_SEGMENTS.countries);
  }

  protected override get emptyText(): string {
    return this.localize.term('geoEmpty');
  }

  protected override isEmpty(data: TopGeoResponse): boolean {
    return this.#items(data, this.locale).length === 0;
  }

  protected override dataChanged(
    data: TopGeoResponse,
    _previous: TopGeoResponse | undefined,
    locale: string,
  ): string | undefined {
    const [leader] = this.#items(data, locale);
    return leader && this.localize.term('geoAnnouncement', leader.name);
  }

  #items(data: TopGeoResponse, locale: string): ShareItem[] {
    const counts = data.geo[this.segment in GEO_SEGMENTS ? this.segment : 'countries'];
    const entries = Object.entries(counts ?? {}).filter(([, count]) => count > 0);
    return shareItems(entries, (key) => this.#placeName(key, locale), this.max, data.geo.total);
  }

  /** Country and region names through Intl.DisplayNames; regions are `<country>-<subdivision>`. */
  #placeName(key: string, locale: string): string {
    switch (this.segment) {
      case 'regions': {
        const [country, subdivision] = key.split('-', 2);
        const countryName = country && regionName(locale, country);
        return countryName && subdivision ? `${subdivision}, ${countryName}` : key;
      }
      case 'metro_codes':
        return this.localize.term('geoMetroArea', key);
      case 'cities':
        return key;
      default:
        return regionName(locale, key) ?? key;
    }
  }

  protected override renderData(data: TopGeoResponse, locale: string): TemplateResult {
    return shareList(this.#items(data, locale), this.localize);
  }
}
