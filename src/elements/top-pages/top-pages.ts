/** Registers <top-pages>; the class alone, registering nothing, is in top-pages.component.ts. */
import { TopPages } from './top-pages.component.ts';

export * from './top-pages.component.ts';

TopPages.define('top-pages');

declare global {
  interface HTMLElementTagNameMap {
    'top-pages': TopPages;
  }
}
