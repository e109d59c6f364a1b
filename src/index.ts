/**
 * pulse-widgets: importing this module registers every element: <live-counter>, <top-pages>,
 * <geo-list>, <referrer-bars>, <traffic-sources>, <platform-split>, <engagement-histogram>,
 * <summary-stats>, <headline-tests> and <traffic-chart>, with `compare` on every counter and the
 * newsroom features (src/newsroom.ts), and exports what pulse-widgets/classes exports. Each
 * element module registers its own element, for pages that need only one.
 */
// The features register on the element classes, so they may come before or after the elements.
import './elements/live-counter/live-counter-typical.ts';
import './newsroom.ts';
import './elements/live-counter/live-counter.ts';
import './elements/top-pages/top-pages.ts';
import './elements/geo-list/geo-list.ts';
import './elements/referrer-bars/referrer-bars.ts';
import './elements/traffic-sources/traffic-sources.ts';
import './elements/platform-split/platform-split.ts';
import './elements/engagement-histogram/engagement-histogram.ts';
import './elements/summary-stats/summary-stats.ts';
import './elements/headline-tests/headline-tests.ts';
import './elements/traffic-chart/traffic-chart.ts';

export * from './classes.ts';
