import { css } from '../../internal/style-sheet.ts';
import { shareListStyles } from '../../internal/share-list.ts';

export const referrerBarsStyles = [
  shareListStyles,
  css`
    :host {
      --pulse-referrer-bars-bar-color: var(--_bar);
      --pulse-referrer-bars-bar-size: 0.625em;
      --_bar-size: var(--pulse-referrer-bars-bar-size);
    }

    .bar-fill {
      background: var(--pulse-referrer-bars-bar-color);
    }
  `,
];
