import { css } from 'lit';

export const liveCounterStyles = css`
  :host {
    --pulse-counter-size: 2.5em;
    --pulse-sparkline-color: var(--_accent);
  }

  /* Public "who's on now" mode: below the threshold the counter is not shown at all. */
  :host([threshold]:state(empty)) {
    display: none;
  }

  .figure {
    display: flex;
    flex-wrap: wrap;
    align-items: baseline;
    gap: 0 var(--_space);
  }

  .value {
    margin: 0;
    font-size: var(--pulse-counter-size);
    font-weight: 700;
    line-height: 1.1;
    font-variant-numeric: tabular-nums;
  }

  .delta {
    margin: 0;
    font-weight: 600;
    font-variant-numeric: tabular-nums;
  }

  .flat {
    color: var(--_muted);
  }

  .sparkline {
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
