/** The terms naming the keys of the stats object (spec 2.2) that several elements break down. */
import type { TextTerm } from '../locales/en.ts';

/** The six traffic sources, which partition `people` (docs/upstream-assumptions.md). */
export const SOURCE_TERMS = {
  direct: 'sourceDirect',
  search: 'sourceSearch',
  social: 'sourceSocial',
  links: 'sourceLinks',
  internal: 'sourceInternal',
  subscr: 'sourceSubscriptions',
} as const satisfies Record<string, TextTerm>;

export type Source = keyof typeof SOURCE_TERMS;

/**
 * Platform letters. The spec does not name them (2.2); `all_platforms=1` is documented as adding
 * desktop, mobile, tablet and app, and these four letters carry most visitors: our guess.
 */
export const PLATFORM_TERMS: Readonly<Record<string, TextTerm>> = {
  d: 'platformDesktop',
  m: 'platformMobile',
  t: 'platformTablet',
  a: 'platformApp',
};

/** The `loyalty=1` block: new, returning and loyal visitors. */
export const LOYALTY_TERMS = {
  new: 'loyaltyNew',
  returning: 'loyaltyReturning',
  loyal: 'loyaltyLoyal',
} as const satisfies Record<string, TextTerm>;
