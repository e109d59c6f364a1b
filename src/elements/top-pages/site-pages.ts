import type { TopPage } from '../../api/index.ts';
import { memoize } from '../../internal/memo.ts';

/** A page of a merge of several sites, with the site (the `host` of its source) it came from. */
export type SitePage = TopPage & { site?: string };

/** Pages of several sites can share a path: a row is its site and its path. */
export function rowKey(page: SitePage): string {
  return page.site === undefined ? page.path : `${page.site} ${page.path}`;
}

/** The site a list address is for: its `host`. */
export const siteHostOf = memoize((url: string) => new URL(url).searchParams.get('host') ?? '', 100);
