import { css } from '../../internal/style-sheet.ts';
import { shareListStyles } from '../../internal/share-list.ts';

export const platformSplitStyles = [
  shareListStyles,
  css`
    :host {
      --pulse-platform-split-bar-color: var(--_bar);
    }

    .bar-fill {
      background: var(--pulse-platform-split-bar-color);
    }
  `,
];
