import { css } from '../../internal/style-sheet.ts';

export const liveCounterStyles = css`
  :host {
    --pulse-counter-size: 2.5em;
    --pulse-sparkline-color: var(--_accent);
    --_sparkline-row: calc(var(--_space) / 2 + 2.5em);
    --_compare-row: 0px;
  }

  :host([history='0']) {
    --_sparkline-row: 0px;
  }

  :host([compare='typical']) {
    --_compare-row: 1.4em;
  }

  /*
   * A fixed box from the attributes: the number's line, the sparkline's (unless history="0") and
   * the comparison's (with compare="typical"). Each part has its own row, so the delta, the
   * sparkline or the comparison arriving moves nothing; messages span the box.
   */
  .body {
    display: grid;
    grid-template-rows: calc(var(--pulse-counter-size) * 1.1) var(--_sparkline-row) var(--_compare-row);
  }

  .message {
    grid-row: 1 / -1;
  }

  .compare {
    grid-row: 3;
    overflow: hidden;
    white-space: nowrap;
    text-overflow: ellipsis;
  }

  /* Public "who's on now" mode: below the threshold the counter is not shown at all. */
  :host([threshold]:state(empty)) {
    display: none;
  }

  .figure {
    grid-row: 1;
    display: flex;
    align-items: baseline;
    gap: 0 var(--_space);
    min-inline-size: 0;
  }

  .value {
    margin: 0;
    font-size: var(--pulse-counter-size);
    font-weight: 700;
    line-height: 1.1;
    font-variant-numeric: tabular-nums;
  }

  .delta {
    min-inline-size: 0;
    margin: 0;
    overflow: hidden;
    white-space: nowrap;
    text-overflow: ellipsis;
    font-weight: 600;
    font-variant-numeric: tabular-nums;
  }

  .flat {
    color: var(--_muted);
  }

  .sparkline {
    grid-row: 2;
    display: block;
    inline-size: 100%;
    block-size: 2.5em;
    margin-block-start: calc(var(--_space) / 2);
    overflow: visible;
  }

  /* Time runs the way the text reads: right to left in Arabic, like the "no change" arrow. */
  .sparkline:dir(rtl),
  .flat .arrow:dir(rtl) {
    transform: scaleX(-1);
  }

  .flat .arrow {
    display: inline-block;
  }

  .sparkline polyline {
    fill: none;
    stroke: var(--pulse-sparkline-color);
    stroke-width: 2;
    stroke-linejoin: round;
    stroke-linecap: round;
    vector-effect: non-scaling-stroke;
  }
`;
