import { css } from 'lit';
import { shareListStyles } from '../../internal/share-list.ts';

export const trafficSourcesStyles = [
  shareListStyles,
  css`
    :host {
      --pulse-traffic-sources-bar-color: var(--_bar);
    }

    .bar-fill {
      background: var(--pulse-traffic-sources-bar-color);
    }
  `,
];
