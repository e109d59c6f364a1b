import { css } from './style-sheet.ts';

/**
 * Shared tokens and the card every element draws. Tier 1: page-wide `--pulse-*` tokens the
 * page may set; their light and dark defaults live here (`light-dark()` follows the element's
 * `color-scheme`). Tier 2: per-element properties in each `*.styles.ts`.
 * Colour pairs meet WCAG AA (4.5:1) on their surface in both schemes.
 *
 * `theme="auto"` sets no `color-scheme`: the host inherits the page's, so a card is light unless
 * the page says it supports dark (`<meta name="color-scheme">`, or `color-scheme` on the root or
 * any ancestor, which is also how a page sets every element's theme at once); `light` and `dark`
 * force one.
 */
export const baseStyles = css`
  :host {
    --_text: var(--pulse-color-text, light-dark(#1f2328, #e6edf3));
    --_muted: var(--pulse-color-muted, light-dark(#57606a, #9198a1));
    --_surface: var(--pulse-color-surface, light-dark(#ffffff, #0d1117));
    --_border: var(--pulse-color-border, light-dark(#d0d7de, #3d444d));
    --_accent: var(--pulse-color-accent, light-dark(#0969da, #4493f8));
    --_bar: var(--pulse-color-bar, light-dark(#54aeff, #1f6feb));
    --_track: var(--pulse-color-track, light-dark(#eaeef2, #21262d));
    --_up: var(--pulse-color-up, light-dark(#1a7f37, #3fb950));
    --_down: var(--pulse-color-down, light-dark(#cf222e, #f85149));
    --_warning: var(--pulse-color-warning, light-dark(#7d4e00, #d29922));
    --_warning-surface: var(--pulse-color-warning-surface, light-dark(#fff8c5, #272115));
    --_radius: var(--pulse-radius, 0.5rem);
    --_space: var(--pulse-spacing, 0.75rem);

    display: block;
    color: var(--_text);
    font-family: var(--pulse-font-family, system-ui, sans-serif);
    font-size: var(--pulse-font-size, 0.9375rem);
    line-height: 1.4;

    /*
     * The text properties a page sets for its own prose stop here, so the cards read the same on
     * every site: WordPress Columns set word-break and overflow-wrap, which broke "Rank" mid-word.
     */
    font-style: normal;
    font-weight: normal;
    letter-spacing: normal;
    word-spacing: normal;
    text-transform: none;
    text-indent: 0;
    text-align: start;
    white-space: normal;
    word-break: normal;
    overflow-wrap: normal;
    hyphens: manual;
  }

  :host([theme='light']) {
    color-scheme: light;
  }

  :host([theme='dark']) {
    color-scheme: dark;
  }

  :host([hidden]) {
    display: none;
  }

  .card {
    box-sizing: border-box;
    block-size: 100%;
    padding: var(--_space);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_surface);
  }

  /* At least one line exactly: WebKit would round a line of 1.4 × 17px down to 23px, and the box would no longer be the one pulse-widgets.css reserves. */
  .label {
    min-block-size: 1.4em;
    margin: 0 0 calc(var(--_space) / 2);
    font-weight: 600;
  }

  /*
   * The body's size comes from the element's attributes, never from its data (each element's
   * styles set --_body-size, or size it as a grid), so the first data, an error and every poll
   * take the same box and nothing on the page moves.
   */
  .body {
    block-size: var(--_body-size, auto);
    overflow: clip;
    overflow-clip-margin: 4px;
  }

  .message {
    margin: 0;
    color: var(--_muted);
  }

  .error {
    padding-inline-start: calc(var(--_space) / 2);
    border-inline-start: 3px solid var(--_down);
    color: var(--_text);
  }

  .loading::after {
    content: '';
    display: block;
    block-size: 0.375em;
    margin-block-start: calc(var(--_space) / 2);
    border-radius: 0.25em;
    background: var(--_track);
    animation: pulse-fade 1.2s ease-in-out infinite alternate;
  }

  /* One line, there before the first data: its text coming, going or growing moves nothing. */
  .updated {
    block-size: 1.4em;
    margin: calc(var(--_space) / 2) 0 0;
    overflow: hidden;
    color: var(--_muted);
    font-size: 0.8em;
    line-height: 1.4;
    white-space: nowrap;
    text-overflow: ellipsis;
  }

  :host(:state(stale)) .updated {
    padding-inline: 0.5em;
    border-radius: calc(var(--_radius) / 2);
    background: var(--_warning-surface);
    color: var(--_warning);
    font-weight: 600;
  }

  a:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }

  .count {
    font-variant-numeric: tabular-nums;
    text-align: end;
    white-space: nowrap;
  }

  .up {
    color: var(--_up);
  }

  .down {
    color: var(--_down);
  }

  /* no-heading: the label is still the name of the list, for screen readers. */
  .visually-hidden,
  :host([no-heading]) .label {
    position: absolute;
    inline-size: 1px;
    block-size: 1px;
    min-block-size: 0;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
    border: 0;
  }

  a {
    color: var(--_accent);
  }

  @keyframes pulse-fade {
    from {
      opacity: 1;
    }
    to {
      opacity: 0.55;
    }
  }

  @media (prefers-reduced-motion: reduce) {
    .loading::after {
      animation: none;
    }
  }
`;
