import { css } from '../../internal/style-sheet.ts';

export const summaryStatsStyles = css`
  :host {
    --pulse-summary-stats-row-gap: 0.25em;
  }

  .scroller {
    overflow-x: auto;
  }

  /* Focusable so a keyboard can scroll a table wider than a narrow card. */
  .scroller:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }

  .scroller + .scroller {
    margin-block-start: var(--_space);
  }

  table {
    inline-size: 100%;
    border-collapse: collapse;
  }

  caption {
    padding-block-end: var(--pulse-summary-stats-row-gap);
    font-weight: 600;
    text-align: start;
  }

  th {
    color: var(--_muted);
    font-size: 0.8em;
    font-weight: 600;
    text-align: start;
  }

  tbody th {
    color: inherit;
    font-size: inherit;
    font-weight: normal;
    overflow-wrap: anywhere;
  }

  th,
  td {
    padding-block: var(--pulse-summary-stats-row-gap);
    vertical-align: top;
  }

  td {
    border-block-start: 1px solid var(--_track);
  }

  tbody th {
    border-block-start: 1px solid var(--_track);
  }

  th + th,
  th + td,
  td + td {
    padding-inline-start: var(--_space);
  }

  .other {
    color: var(--_muted);
  }
`;
