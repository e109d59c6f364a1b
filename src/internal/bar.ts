import { css } from './style-sheet.ts';
import { html, type TemplateResult } from 'lit/html.js';
import { cssProperties } from './css-properties.ts';

/**
 * A horizontal bar filled to `fraction` of its track. Decorative (`aria-hidden`): every bar sits
 * next to the number it draws, which is what assistive technology reads.
 */
export function bar(fraction: number): TemplateResult {
  const fill = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  return html`<span part="bar" class="bar" aria-hidden="true"><span part="bar-fill" class="bar-fill" ${cssProperties({ '--pulse-fill': String(fill) })}></span></span>`;
}

/** The styles of `bar()`, for the elements that draw bars (the base styles leave them out). */
export const barStyles = css`
  .bar {
    display: block;
    block-size: 0.375em;
    border-radius: 0.25em;
    background: var(--_track);
    overflow: hidden;
  }

  .bar-fill {
    display: block;
    block-size: 100%;
    background: var(--_bar);
    transform: scaleX(var(--pulse-fill, 0));
    transform-origin: left;
    transition: transform 0.4s ease-out;
  }

  /* The card may set the direction itself (Arabic on a page that sets none): :dir() sees it, :host() would not. */
  .bar-fill:dir(rtl) {
    transform-origin: right;
  }

  @media (prefers-reduced-motion: reduce) {
    .bar-fill {
      transition: none;
    }
  }
`;
