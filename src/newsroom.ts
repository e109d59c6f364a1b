/**
 * pulse-widgets/newsroom: the features of a newsroom's dashboards and boards, kept out of the
 * element modules so that a public page showing a counter or a "most read" list loads none of
 * them. Importing this module, before or after the elements are defined, gives every element
 * made from then on (each feature registers with `registerFeature` on its element class):
 * - several sites in one `src` (the network view) on <live-counter>, <top-pages>, <geo-list> and
 *   <referrer-bars>: counts summed, pages ranked together with their site, one failing site
 *   marking the merge partial;
 * - the freeze control of the lists (<top-pages>, <geo-list>, <referrer-bars>), shown where
 *   `tools="freeze"` asks for it;
 * - the drill-down of a <top-pages> row into its page's own numbers, shown where
 *   `tools="drill-down"` asks for it, which registers <live-counter> and <referrer-bars>;
 * - <top-pages>' detail columns (`columns`) and custom metric columns (`metrics=` in `src`).
 * The full bundle (`pulse-widgets`, dist/cdn/pulse-widgets.js) includes it.
 */
import type { Merge, SnapshotChange } from './client/index.ts';
import { GeoList } from './elements/geo-list/geo-list.component.ts';
import { LiveCounter } from './elements/live-counter/live-counter.component.ts';
import { ReferrerBars } from './elements/referrer-bars/referrer-bars.component.ts';
import { RowDetail, rowDetailStyles } from './elements/top-pages/page-detail.ts';
import { siteLabel, siteLabelStyles } from './elements/top-pages/site-label.ts';
import { detailColumns, detailColumnStyles } from './elements/top-pages/top-pages-columns.ts';
import { TopPages } from './elements/top-pages/top-pages.component.ts';
import { FreezeControl, freezeStyles, type FreezeHost } from './internal/freeze-control.ts';
import { mergeCounts, mergePages, mergeSums } from './internal/network.ts';
import { registerFeature } from './internal/pulse-element.ts';
import { partialStyles, SitesSource, type SitesHost } from './internal/sites-source.ts';
import { networkTerms, pageDetailTerms, topPagesColumnTerms, trafficTerms } from './locales/en.ts';

/** The source of an element showing several sites, merging their bodies with `merge`. */
const sitesSource =
  <T>(merge: Merge<T>) =>
  (host: SitesHost, onChange: SnapshotChange<T>) =>
    new SitesSource(host, onChange, merge);
const network = { styles: partialStyles, terms: networkTerms };
const freeze = { styles: freezeStyles, terms: networkTerms };
const freezeControl = <Data>(host: FreezeHost<Data>) => new FreezeControl(host);

registerFeature(LiveCounter, 'sitesSource', sitesSource(mergeCounts), network);
registerFeature(TopPages, 'sitesSource', sitesSource(mergePages), network);
registerFeature(GeoList, 'sitesSource', sitesSource(mergeSums), network);
registerFeature(ReferrerBars, 'sitesSource', sitesSource(mergeSums), network);
for (const list of [TopPages, GeoList, ReferrerBars])
  registerFeature(list, 'freezeControl', freezeControl, freeze);
registerFeature(TopPages, 'rowDetail', (host) => new RowDetail(host), {
  styles: rowDetailStyles,
  terms: pageDetailTerms,
});
registerFeature(TopPages, 'siteLabel', siteLabel, { styles: siteLabelStyles });
registerFeature(TopPages, 'detailColumns', detailColumns, {
  styles: detailColumnStyles,
  terms: { ...topPagesColumnTerms, ...trafficTerms },
});

// An opened row shows its page's numbers with these.
LiveCounter.define('live-counter');
ReferrerBars.define('referrer-bars');
