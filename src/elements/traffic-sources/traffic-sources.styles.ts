import { css } from '../../internal/style-sheet.ts';
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
