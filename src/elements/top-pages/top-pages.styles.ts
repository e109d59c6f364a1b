import { css } from 'lit';
import { barStyles } from '../../internal/bar.ts';

export const topPagesStyles = css`
  ${barStyles}

  :host {
    --pulse-top-pages-row-gap: 0.375em;
    --pulse-top-pages-bar-width: 5em;
  }

  .scroller {
    overflow-x: auto;
  }

  table {
    inline-size: 100%;
    border-collapse: collapse;
  }

  th {
    padding-block-end: var(--pulse-top-pages-row-gap);
    color: var(--_muted);
    font-size: 0.8em;
    font-weight: 600;
    text-align: start;
  }

  td {
    padding-block: var(--pulse-top-pages-row-gap);
    border-block-start: 1px solid var(--_track);
    vertical-align: top;
  }

  th + th,
  td + td {
    padding-inline-start: var(--_space);
  }

  .rank {
    white-space: nowrap;
    font-variant-numeric: tabular-nums;
  }

  .rank-change {
    margin-inline-start: 0.25em;
    font-size: 0.8em;
  }

  .new {
    color: var(--_accent);
    font-weight: 600;
  }

  .title {
    overflow-wrap: anywhere;
  }

  .people {
    inline-size: var(--pulse-top-pages-bar-width);
  }

  .people .bar {
    margin-block-start: 0.25em;
  }

  /* The open button, the title and the site side by side: touch targets that never overlap. */
  .line {
    display: flex;
    align-items: baseline;
    gap: 0.5em;
  }

  /* Where titles are kept to one line (white-space: nowrap on ::part(title)), they end in an ellipsis; the margin keeps focus rings. */
  .name {
    min-inline-size: 0;
    overflow: clip;
    overflow-clip-margin: 4px;
    text-overflow: ellipsis;
  }

`;
