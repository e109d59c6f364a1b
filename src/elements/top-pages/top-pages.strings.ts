/** Reader-visible text <top-pages> adds for sites, drill-down and hidden numbers, in English: one object, to move into the message catalog as it is. */
export const TOP_PAGES_STRINGS = {
  site: 'Site',
  /** The accessible name of a row's expand button. */
  details: (title: string) => `Live numbers of ${title}`,
  people: 'People on this page now',
  sources: 'Where they came from',
  platforms: 'Platforms',
  topReferrers: 'Top referrers',
  opened: (title: string) => `Showing live numbers of ${title}`,
  closed: (title: string) => `Closed live numbers of ${title}`,
} as const;
