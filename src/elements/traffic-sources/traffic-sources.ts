/** Registers <traffic-sources>; the class alone, registering nothing, is in traffic-sources.component.ts. */
import { TrafficSources } from './traffic-sources.component.ts';

export * from './traffic-sources.component.ts';

TrafficSources.define('traffic-sources');

declare global {
  interface HTMLElementTagNameMap {
    'traffic-sources': TrafficSources;
  }
}
