/**
 * A value the answer lacks: "—" for the eye and the language's "no data" for a screen reader;
 * never 0, NaN or a statistic computed from a missing input.
 */
import { html, type TemplateResult } from 'lit/html.js';
import type { LocalizeController } from './localize.ts';

export function noData(localize: LocalizeController): TemplateResult {
  return html`<span aria-hidden="true">—</span><span class="visually-hidden">${localize.term('noData')}</span>`;
}

/** `format(value)`, or {@link noData} when the value is missing. */
export function formatOrNoData<T>(
  localize: LocalizeController,
  value: T | undefined,
  format: (value: T) => string,
): string | TemplateResult {
  return value === undefined ? noData(localize) : format(value);
}
