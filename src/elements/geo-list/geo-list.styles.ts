import { css } from '../../internal/style-sheet.ts';
import { shareListStyles } from '../../internal/share-list.ts';

export const geoListStyles = [
  shareListStyles,
  css`
    :host {
      --pulse-geo-list-bar-color: var(--_bar);
    }

    .bar-fill {
      background: var(--pulse-geo-list-bar-color);
    }
  `,
];
