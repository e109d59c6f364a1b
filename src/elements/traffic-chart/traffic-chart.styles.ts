import { css } from '../../internal/style-sheet.ts';

export const trafficChartStyles = css`
  :host {
    --pulse-traffic-chart-height: 10rem;
    --pulse-traffic-chart-line: var(--_accent);
    --pulse-traffic-chart-band: color-mix(in srgb, var(--_accent) 28%, transparent);
    --pulse-traffic-chart-median: var(--_muted);
  }

  .summary {
    margin: 0 0 calc(var(--_space) / 2);
    font-weight: 600;
    font-variant-numeric: tabular-nums;
  }

  /* Time runs left to right in the plot whatever the page's direction: the axis labels follow it. */
  .plot {
    direction: ltr;
    container-type: inline-size;
    display: grid;
    grid-template-columns: auto 1fr;
    grid-template-rows: var(--pulse-traffic-chart-height) auto;
    column-gap: 0.375em;
  }

  .y-axis {
    display: flex;
    flex-direction: column;
    justify-content: space-between;
    text-align: end;
  }

  .x-axis {
    grid-column: 2;
    display: flex;
    justify-content: space-between;
  }

  .y-axis,
  .x-axis {
    color: var(--_muted);
    font-size: 0.8em;
    font-variant-numeric: tabular-nums;
    line-height: 1.2;
  }

  /* A narrow card keeps every other hour label (midnight, noon, midnight). */
  @container (max-width: 22rem) {
    .x-axis span:nth-child(even) {
      visibility: hidden;
    }
  }

  .chart {
    display: block;
    inline-size: 100%;
    block-size: 100%;
    overflow: visible;
    border-block-end: 1px solid var(--_border);
  }

  .chart path,
  .chart line,
  .swatch path {
    fill: none;
    vector-effect: non-scaling-stroke;
  }

  .grid {
    stroke: var(--_track);
    stroke-width: 1;
  }

  .chart .band,
  .swatch rect {
    fill: var(--pulse-traffic-chart-band);
    stroke: none;
  }

  /* Dashed, not only another colour: the median and today's line differ in pattern too. */
  .median,
  .swatch.median path {
    stroke: var(--pulse-traffic-chart-median);
    stroke-width: 1.5;
    stroke-dasharray: 4 3;
  }

  .line,
  .swatch.line path {
    stroke: var(--pulse-traffic-chart-line);
    stroke-width: 2.5;
    stroke-linejoin: round;
    stroke-linecap: round;
  }

  .now,
  .swatch.now path {
    stroke: var(--pulse-traffic-chart-line);
    stroke-width: 9;
    stroke-linecap: round;
  }

  .now {
    animation: pulse 3s ease-out infinite;
  }

  @keyframes pulse {
    0% { stroke-width: 13; }
    30%, 100% { stroke-width: 9; }
  }

  @media (prefers-reduced-motion: reduce) {
    .now {
      animation: none;
    }
  }

  .legend {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25em 1em;
    margin: calc(var(--_space) / 2) 0 0;
    padding: 0;
    list-style: none;
    color: var(--_muted);
    font-size: 0.85em;
  }

  .legend li {
    display: inline-flex;
    align-items: center;
    gap: 0.375em;
  }

  .swatch {
    inline-size: 1.5em;
    block-size: 0.75em;
    overflow: visible;
  }

  .table {
    margin-block-start: calc(var(--_space) / 2);
  }

  .table summary {
    cursor: pointer;
    color: var(--_accent);
  }

  .table table {
    inline-size: 100%;
    border-collapse: collapse;
    font-size: 0.9em;
  }

  .table caption {
    text-align: start;
    font-weight: 600;
    padding-block: 0.25em;
  }

  .table th,
  .table td {
    padding: 0.125em 0.375em;
    border-block-end: 1px solid var(--_track);
  }

  .table th {
    text-align: start;
  }
`;
