/** Registers <top-pages>; the class alone, registering nothing, is in top-pages.component.ts. */
import { TopPages } from './top-pages.component.ts';
// An opened row shows its page's numbers with these elements.
import '../live-counter/live-counter.ts';
import '../referrer-bars/referrer-bars.ts';

export * from './top-pages.component.ts';

TopPages.define('top-pages');

declare global {
  interface HTMLElementTagNameMap {
    'top-pages': TopPages;
  }
}
