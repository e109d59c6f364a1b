import { html, type TemplateResult } from 'lit';
import { cssProperties } from './css-properties.ts';

/**
 * A horizontal bar filled to `fraction` of its track. Decorative (`aria-hidden`): every bar sits
 * next to the number it draws, which is what assistive technology reads.
 */
export function bar(fraction: number): TemplateResult {
  const fill = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  return html`<span part="bar" class="bar" aria-hidden="true"><span part="bar-fill" class="bar-fill" ${cssProperties({ '--pulse-fill': String(fill) })}></span></span>`;
}
