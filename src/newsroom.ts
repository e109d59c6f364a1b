/**
 * pulse-widgets/newsroom: the features of a newsroom's dashboards and boards, kept out of the
 * element modules so that a public page showing a counter or a "most read" list loads none of
 * them. Importing this module, before the elements, gives every element made from then on:
 * - several sites in one `src` (the network view) on <live-counter>, <top-pages>, <geo-list> and
 *   <referrer-bars>: counts summed, pages ranked together with their site, one failing site
 *   marking the merge partial;
 * - the freeze control of the lists (<top-pages>, <geo-list>, <referrer-bars>);
 * - the drill-down of a <top-pages> row into its page's own numbers, which registers
 *   <live-counter> and <referrer-bars> to show them;
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
import { FreezeControl, freezeStyles } from './internal/freeze-control.ts';
import { mergeCounts, mergePages, mergeSums } from './internal/network.ts';
import { PulseElement } from './internal/pulse-element.ts';
import { partialStyles, SitesSource, type SitesHost } from './internal/sites-source.ts';
import { networkTerms, pageDetailTerms, topPagesColumnTerms, trafficTerms } from './locales/en.ts';

/** The source of an element showing several sites, merging their bodies with `merge`. */
const sitesSource = <T>(merge: Merge<T>) => (host: SitesHost, onChange: SnapshotChange<T>) => new SitesSource(host, onChange, merge);

LiveCounter.sitesSource = sitesSource(mergeCounts);
TopPages.sitesSource = sitesSource(mergePages);
GeoList.sitesSource = sitesSource(mergeSums);
ReferrerBars.sitesSource = sitesSource(mergeSums);
PulseElement.freezeControl = (host) => new FreezeControl(host);
TopPages.rowDetail = (host) => new RowDetail(host);
TopPages.siteLabel = siteLabel;
TopPages.detailColumns = detailColumns;

// Elements made from now on bring these features' English with their own (the terms object they read is this one),
// and elements defined from now on their styles (Lit reads `styles` when an element is defined).
for (const element of [LiveCounter, TopPages, GeoList, ReferrerBars]) {
  Object.assign(element.terms, networkTerms);
  element.styles = [element.styles, partialStyles, ...(element.freezable ? [freezeStyles] : [])];
}
Object.assign(TopPages.terms, topPagesColumnTerms, trafficTerms, pageDetailTerms);
TopPages.styles = [TopPages.styles, rowDetailStyles, siteLabelStyles, detailColumnStyles];

// An opened row shows its page's numbers with these.
LiveCounter.define('live-counter');
ReferrerBars.define('referrer-bars');
