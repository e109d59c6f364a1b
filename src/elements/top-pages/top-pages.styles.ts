import { css, type Styles } from '../../internal/style-sheet.ts';
import { barStyles } from '../../internal/bar.ts';

export const topPagesStyles: Styles = [
  barStyles,
  css`
  :host {
    --pulse-top-pages-row-gap: 0.375em;
    --pulse-top-pages-bar-width: 5em;
    --pulse-top-pages-title-lines: 2;
    /*
     * Every row is this tall whatever its title (clamped), so the body is rows × this plus the
     * header: the title's lines, the gaps, the 1px rule and 1px of room, since an engine that
     * rounds each gap to its layout unit (Firefox) would otherwise make some rows a unit taller.
     */
    --_row-size: calc(var(--pulse-top-pages-title-lines) * 1.4em + 2 * var(--pulse-top-pages-row-gap) + 2px);
    --_body-size: calc(0.8em * 1.4 + var(--pulse-top-pages-row-gap) + var(--_rows) * var(--_row-size));
  }

  .scroller {
    overflow-x: auto;
  }

  /* Separate borders: each cell owns its top rule, so every row is exactly --_row-size in every engine. */
  table {
    inline-size: 100%;
    border-collapse: separate;
    border-spacing: 0;
  }

  th {
    padding-block-end: var(--pulse-top-pages-row-gap);
    color: var(--_muted);
    font-size: 0.8em;
    font-weight: 600;
    text-align: start;
    white-space: nowrap;
  }

  td {
    box-sizing: border-box;
    block-size: var(--_row-size);
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

  /* A title takes at most --pulse-top-pages-title-lines lines, ending in an ellipsis; the margin keeps focus rings. */
  .name {
    display: -webkit-box;
    -webkit-box-orient: vertical;
    -webkit-line-clamp: var(--pulse-top-pages-title-lines);
    min-inline-size: 0;
    max-block-size: calc(var(--pulse-top-pages-title-lines) * 1.4em);
    overflow: clip;
    overflow-clip-margin: 4px;
    text-overflow: ellipsis;
  }

`,
];
