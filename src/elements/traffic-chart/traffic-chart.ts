/** Registers <traffic-chart>; the class alone, registering nothing, is in traffic-chart.component.ts. */
import { TrafficChart } from './traffic-chart.component.ts';

export * from './traffic-chart.component.ts';

TrafficChart.define('traffic-chart');

declare global {
  interface HTMLElementTagNameMap {
    'traffic-chart': TrafficChart;
  }
}
