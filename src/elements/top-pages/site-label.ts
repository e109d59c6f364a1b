import { css } from '../../internal/style-sheet.ts';
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { LocalizeController } from '../../internal/localize.ts';
import { isRecord } from './custom-metrics.ts';

/** What names a row's site: the list's `site-names` and `site-icons`. */
export interface SiteSettings {
  readonly siteNames?: Record<string, string>;
  readonly siteIcons?: Record<string, string>;
}

/** The site of a row in the network view (a newsroom feature): its name, and its icon when the operator gives one. */
export function siteLabel(
  site: string,
  { siteNames, siteIcons }: SiteSettings,
  localize: LocalizeController,
): TemplateResult {
  const named = isRecord(siteNames) ? siteNames[site] : undefined;
  const name = typeof named === 'string' && named.trim() ? named : site;
  const icon = sameOriginIcon(isRecord(siteIcons) ? siteIcons[site] : undefined);
  return html`<span part="site" class="site">${icon ? html`<img part="site-icon" src=${icon} alt="" width="16" height="16">` : nothing}<span class="visually-hidden">${localize.term('pagesSite')}: </span>${name}</span>`;
}

export const siteLabelStyles = css`
  .site {
    display: inline-flex;
    flex: none;
    align-items: center;
    gap: 0.25em;
    margin-inline-start: auto;
    color: var(--_muted);
    font-size: 0.8em;
    white-space: nowrap;
  }
`;

/** An operator's icon address, if it is http(s) on this page's origin: nothing is fetched from third parties. */
function sameOriginIcon(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value, document.baseURI);
    return /^https?:$/.test(url.protocol) && url.origin === location.origin ? url.href : undefined;
  } catch {
    return undefined;
  }
}
