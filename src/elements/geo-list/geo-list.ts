/** Registers <geo-list>; the class alone, registering nothing, is in geo-list.component.ts. */
import { GeoList } from './geo-list.component.ts';

export * from './geo-list.component.ts';

GeoList.define('geo-list');

declare global {
  interface HTMLElementTagNameMap {
    'geo-list': GeoList;
  }
}
