import { css, type Styles } from '../../internal/style-sheet.ts';
import { buttonStyles } from '../../internal/button-styles.ts';

export const engagementHistogramStyles: Styles = [
  buttonStyles,
  css`
  :host {
    --pulse-histogram-height: 6em;
    --pulse-histogram-bar-color: var(--_bar);
    --pulse-histogram-median-color: var(--_text);
    --pulse-histogram-average-color: var(--_accent);
  }

  .chart {
    position: relative;
    block-size: var(--pulse-histogram-height);
    border-block-end: 1px solid var(--_border);
  }

  .columns {
    display: flex;
    align-items: flex-end;
    gap: 2px;
    block-size: 100%;
  }

  .column {
    flex: 1;
    block-size: calc(var(--pulse-height, 0) * 100%);
    min-block-size: 1px;
    border-start-start-radius: 2px;
    border-start-end-radius: 2px;
    background: var(--pulse-histogram-bar-color);
    transition: block-size 0.4s ease-out;
  }

  .marker {
    position: absolute;
    inset-block: 0;
    inset-inline-start: calc(var(--pulse-at, 0) * 100%);
    border-inline-start: 2px solid;
  }

  .median {
    border-color: var(--pulse-histogram-median-color);
  }

  .average {
    border-color: var(--pulse-histogram-average-color);
    border-inline-start-style: dashed;
  }

  .axis {
    display: flex;
    justify-content: space-between;
    gap: var(--_space);
    margin: 0.25em 0 0;
    color: var(--_muted);
    font-size: 0.8em;
  }

  .summary {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25em var(--_space);
    margin: calc(var(--_space) / 2) 0 0;
    padding: 0;
    list-style: none;
  }

  .key {
    display: inline-block;
    inline-size: 0.9em;
    margin-inline-end: 0.3em;
    vertical-align: middle;
    border-block-start: 2px solid;
  }

  .key.median {
    border-color: var(--pulse-histogram-median-color);
  }

  .key.average {
    border-color: var(--pulse-histogram-average-color);
    border-block-start-style: dashed;
  }

  .value {
    font-weight: 600;
    font-variant-numeric: tabular-nums;
  }

  .toggle {
    margin-block-start: calc(var(--_space) / 2);
    padding-inline: 0.5em;
    font-size: 0.8em;
  }

  table {
    inline-size: 100%;
    margin-block-start: calc(var(--_space) / 2);
    border-collapse: collapse;
    font-size: 0.875em;
  }

  th,
  td {
    padding-block: 0.125em;
    text-align: start;
  }

  th {
    color: var(--_muted);
    font-weight: 600;
  }

  @media (prefers-reduced-motion: reduce) {
    .column {
      transition: none;
    }
  }
`,
];
