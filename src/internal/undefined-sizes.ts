/**
 * The box each element will take, for the page to give it before the element's script has run
 * (the CDN's `pulse-widgets.css`). Until then an element is an empty inline box: on a slow phone
 * the script runs after the first paint, and everything below an element moves when it fills.
 * These rules size an undefined element (`:not(:defined)`) from its attributes by the same sums
 * its shadow styles make (the card's padding, border, label and "updated" line around a body of
 * fixed rows); test/undefined-sizes.test.ts checks that both boxes agree in every engine.
 *
 * Every selector is inside `:where()`: no specificity, so whatever the page's own CSS says of an
 * element (a `block-size` it gives the slot) wins before the element is defined as after.
 *
 * What CSS cannot read is left to the page: an element with no `max` that lists an unbounded
 * number of rows (`<geo-list>`, `<referrer-bars>`), more than {@link MOST_ROWS} rows, and the
 * size properties (`--pulse-counter-size`, `--pulse-top-pages-*`) when a page sets them on an
 * ancestor rather than on the element itself (the element's own defaults then win once defined).
 */

/** Rows up to this many (`max`, or `limit=` in a `<top-pages>` address) get a rule each. */
export const MOST_ROWS = 20;

const rowCounts = Array.from({ length: MOST_ROWS }, (_, index) => index + 1);

/** The card around the body: padding and border, the label and its gap, the "updated" line and its gap. */
const CARD = `
:where(live-counter, top-pages, geo-list, referrer-bars):where(:not(:defined, [hidden])) {
  --_pulse-space: var(--pulse-spacing, 0.75rem);
  --_pulse-label: calc(1.4em + var(--_pulse-space) / 2);
  display: block;
  font-size: var(--pulse-font-size, 0.9375rem);
  block-size: calc(2 * var(--_pulse-space) + 2px + var(--_pulse-label) + var(--_pulse-body, 0px) + var(--_pulse-space) / 2 + 0.8em * 1.4);
}
:where(live-counter, top-pages, geo-list, referrer-bars):where(:not(:defined)[no-heading]) {
  --_pulse-label: 0px;
}`;

/** The counter's grid: the number, the sparkline (unless `history="0"`), the comparison (with `compare="typical"`). */
const COUNTER = `
:where(live-counter:not(:defined)) {
  --_pulse-sparkline: calc(var(--_pulse-space) / 2 + 2.5em);
  --_pulse-compare: 0px;
  --_pulse-body: calc(var(--pulse-counter-size, 2.5em) * 1.1 + var(--_pulse-sparkline) + var(--_pulse-compare));
}
:where(live-counter:not(:defined)[history="0"]) {
  --_pulse-sparkline: 0px;
}
:where(live-counter:not(:defined)[compare="typical"]) {
  --_pulse-compare: 1.4em;
}`;

/** The list's header line and its rows: `max`, else the address's `limit`, else 10. */
const TOP_PAGES = `
:where(top-pages:not(:defined)) {
  --_pulse-rows: 10;
  --_pulse-gap: var(--pulse-top-pages-row-gap, 0.375em);
  --_pulse-body: calc(0.8em * 1.4 + var(--_pulse-gap) + var(--_pulse-rows) * (var(--pulse-top-pages-title-lines, 2) * 1.4em + 2 * var(--_pulse-gap) + 2px));
}
${rowCounts.map((rows) => `:where(top-pages:not(:defined)):where([src*="limit=${rows}&"], [src$="limit=${rows}"]) { --_pulse-rows: ${rows}; }`).join('\n')}
${rowCounts.map((rows) => `:where(top-pages:not(:defined)[max="${rows}"]) { --_pulse-rows: ${rows}; }`).join('\n')}`;

/** A share list's rows, each a name line and its bar (thicker in `<referrer-bars>`), with `max` only. */
const SHARE_LISTS = `
:where(geo-list, referrer-bars):where(:not(:defined)) {
  --_pulse-row: calc(0.5em + 1.4em + 0.125em + 0.375em);
}
:where(referrer-bars:not(:defined)) {
  --_pulse-row: calc(0.5em + 1.4em + 0.125em + var(--pulse-referrer-bars-bar-size, 0.625em));
}
${rowCounts.map((rows) => `:where(geo-list, referrer-bars):where(:not(:defined)[max="${rows}"]) { --_pulse-body: calc(${rows} * var(--_pulse-row)); }`).join('\n')}`;

/** The style sheet, for a page to link before the elements' script. */
export function undefinedSizesCss(): string {
  return `/* pulse-widgets: the boxes of the elements before their script has run (no layout shift when they fill). */${CARD}${COUNTER}${TOP_PAGES}${SHARE_LISTS}\n`;
}
