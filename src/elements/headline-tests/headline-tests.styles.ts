import { css, type Styles } from '../../internal/style-sheet.ts';
import { buttonStyles } from '../../internal/button-styles.ts';

export const headlineTestsStyles: Styles = [
  buttonStyles,
  css`
  :host {
    --pulse-headline-tests-range-width: 6em;
  }

  .summary {
    margin: 0 0 calc(var(--_space) / 2);
    color: var(--_muted);
    font-size: 0.875em;
  }

  .experiments {
    margin: 0;
    padding: 0;
    list-style: none;
  }

  .experiment + .experiment {
    margin-block-start: var(--_space);
    padding-block-start: var(--_space);
    border-block-start: 1px solid var(--_track);
  }

  .headline {
    margin: 0;
    font-weight: 600;
    overflow-wrap: anywhere;
  }

  .meta {
    display: flex;
    flex-wrap: wrap;
    gap: 0 var(--_space);
    margin: 0.125em 0 0.375em;
    color: var(--_muted);
    font-size: 0.8em;
    overflow-wrap: anywhere;
  }

  .status {
    font-weight: 600;
  }

  .scroller {
    overflow-x: auto;
  }

  /* Focusable so a keyboard can scroll a table wider than a narrow card. */
  .scroller:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }

  table {
    inline-size: 100%;
    border-collapse: collapse;
    font-size: 0.875em;
  }

  th {
    color: var(--_muted);
    font-size: 0.9em;
    font-weight: 600;
    text-align: start;
  }

  th,
  td {
    padding-block: 0.25em;
    vertical-align: top;
  }

  th + th,
  th + td,
  td + td {
    padding-inline-start: var(--_space);
  }

  tbody th {
    color: inherit;
    font-size: inherit;
    font-weight: normal;
    overflow-wrap: anywhere;
  }

  tbody th,
  td {
    border-block-start: 1px solid var(--_track);
  }

  .variant-id {
    margin-inline-start: 0.375em;
    color: var(--_muted);
    font-size: 0.85em;
  }

  .winner {
    margin-inline-start: 0.375em;
    padding: 0 0.375em;
    border-radius: calc(var(--_radius) / 2);
    background: var(--_accent);
    color: var(--_surface);
    font-size: 0.85em;
    font-weight: 600;
  }

  .mean-value {
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }

  .bounds {
    display: block;
    color: var(--_muted);
    font-size: 0.85em;
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }

  .range {
    position: relative;
    display: block;
    inline-size: var(--pulse-headline-tests-range-width);
    block-size: 0.5em;
    margin-block-start: 0.25em;
    border-radius: 0.25em;
    background: var(--_track);
  }

  .interval {
    position: absolute;
    inset-block: 0;
    inset-inline-start: calc(var(--pulse-from, 0) * 100%);
    inset-inline-end: calc((1 - var(--pulse-to, 1)) * 100%);
    border-radius: 0.25em;
    background: var(--_bar);
  }

  .tick {
    position: absolute;
    inset-block: -0.125em;
    inset-inline-start: calc(var(--pulse-at, 0.5) * 100%);
    border-inline-start: 2px solid var(--_text);
  }

  .pagination {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: calc(var(--_space) / 2);
    margin-block-start: var(--_space);
  }

  button[aria-disabled='true'] {
    color: var(--_muted);
    cursor: default;
  }

  .download {
    display: inline-block;
    margin-block-start: var(--_space);
    font-size: 0.875em;
  }
`,
];
