import { css, type Styles } from './style-sheet.ts';
import { html, type TemplateResult } from 'lit/html.js';
import { bar, barStyles } from './bar.ts';
import { formatShare } from './format.ts';
import type { LocalizeController } from './localize.ts';

/** One line of a ranked list: a name, its count and its share of the whole. */
export interface ShareItem {
  readonly key: string;
  readonly name: string;
  readonly count: number;
  readonly share: number;
}

/** Items from `name -> count` pairs, largest first, shares of `total` (default: their sum). */
export function shareItems(
  entries: readonly (readonly [string, number])[],
  name: (key: string) => string,
  max: number,
  total?: number,
): ShareItem[] {
  const whole = total && total > 0 ? total : entries.reduce((sum, [, count]) => sum + count, 0);
  return [...entries]
    .sort((a, b) => b[1] - a[1])
    .slice(0, max > 0 ? max : undefined)
    .map(([key, count]) => ({ key, name: name(key), count, share: whole > 0 ? count / whole : 0 }));
}

/**
 * A real ordered list, labelled by the card's label. The count says what it counts ("42
 * visitors") to assistive technology; the bar draws the share printed next to it.
 */
export function shareList(items: readonly ShareItem[], localize: LocalizeController): TemplateResult {
  return html`<ol part="list" class="share-list" aria-labelledby="label">
    ${items.map((item) => {
      const count = localize.count(item.count);
      return html`<li part="item" class="item">
      <span part="name" class="name">${item.name}</span>
      <span part="count" class="count">${String(count)}<span class="visually-hidden"> ${localize.term('visitorsUnit', count)}</span></span>
      <span part="share" class="count share">${formatShare(localize.locale, item.share)}</span>
      ${bar(item.share)}
    </li>`;
    })}
  </ol>`;
}

export const shareListStyles: Styles = [
  barStyles,
  css`
  /* Every item is this tall (a one-line name and its bar), so the body is rows × this. */
  :host {
    --_row-size: calc(0.5em + 1.4em + 0.125em + var(--_bar-size, 0.375em));
    --_body-size: calc(var(--_rows) * var(--_row-size));
  }

  .share-list {
    margin: 0;
    padding: 0;
    list-style: none;
  }

  .item {
    display: grid;
    grid-template-columns: minmax(0, 1fr) auto 3.5em;
    gap: 0.125em var(--_space);
    align-items: baseline;
    box-sizing: border-box;
    block-size: var(--_row-size);
    padding-block: 0.25em;
  }

  .name {
    overflow: hidden;
    white-space: nowrap;
    text-overflow: ellipsis;
  }

  .share {
    color: var(--_muted);
  }

  .item .bar {
    grid-column: 1 / -1;
    block-size: var(--_bar-size, 0.375em);
  }
`,
];
