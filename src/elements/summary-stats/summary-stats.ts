/** Registers <summary-stats>; the class alone, registering nothing, is in summary-stats.component.ts. */
import { SummaryStats } from './summary-stats.component.ts';

export * from './summary-stats.component.ts';

SummaryStats.define('summary-stats');

declare global {
  interface HTMLElementTagNameMap {
    'summary-stats': SummaryStats;
  }
}
