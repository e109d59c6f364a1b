/** Registers <live-counter>; the class alone, registering nothing, is in live-counter.component.ts. */
import { LiveCounter } from './live-counter.component.ts';

export * from './live-counter.component.ts';

LiveCounter.define('live-counter');

declare global {
  interface HTMLElementTagNameMap {
    'live-counter': LiveCounter;
  }
}
