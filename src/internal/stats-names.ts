/** Readable names for the keys of the stats object (spec 2.2) that several elements break down. */

/** The six traffic sources, which partition `people` (docs/upstream-assumptions.md). */
export const SOURCE_NAMES = {
  direct: 'Direct',
  search: 'Search',
  social: 'Social',
  links: 'Links',
  internal: 'Internal',
  subscr: 'Subscriptions',
} as const;

export type Source = keyof typeof SOURCE_NAMES;

/**
 * Platform letters. The spec does not name them (2.2); `all_platforms=1` is documented as adding
 * desktop, mobile, tablet and app, and these four letters carry most visitors: our guess.
 */
export const PLATFORM_NAMES: Readonly<Record<string, string>> = { d: 'Desktop', m: 'Mobile', t: 'Tablet', a: 'App' };

/** A platform letter's name; a letter we cannot name is shown as itself. */
export function platformName(letter: string): string {
  return PLATFORM_NAMES[letter] ?? letter;
}

/** The `loyalty=1` block: new, returning and loyal visitors. */
export const LOYALTY_NAMES = { new: 'New', returning: 'Returning', loyal: 'Loyal' } as const;
