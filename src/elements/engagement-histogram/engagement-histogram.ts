/** Registers <engagement-histogram>; the class alone, registering nothing, is in engagement-histogram.component.ts. */
import { EngagementHistogram } from './engagement-histogram.component.ts';

export * from './engagement-histogram.component.ts';

EngagementHistogram.define('engagement-histogram');

declare global {
  interface HTMLElementTagNameMap {
    'engagement-histogram': EngagementHistogram;
  }
}
