/** Registers <referrer-bars>; the class alone, registering nothing, is in referrer-bars.component.ts. */
import { ReferrerBars } from './referrer-bars.component.ts';

export * from './referrer-bars.component.ts';

ReferrerBars.define('referrer-bars');

declare global {
  interface HTMLElementTagNameMap {
    'referrer-bars': ReferrerBars;
  }
}
