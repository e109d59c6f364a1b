/** Reader-visible text of the board page and its builder, in English: one object, to move into the message catalog as it is. */
const plural = new Intl.PluralRules('en');

export const BOARD_STRINGS = {
  defaultTitle: 'Live audience',
  network: (count: number) => `${count} ${plural.select(count) === 'one' ? 'site' : 'sites'}`,
  unknownParam: (name: string) => `Unknown setting “${name}” ignored.`,
  badValue: (name: string, value: string, allowed: readonly string[]) => `“${value}” is not a value of ${name} (one of ${allowed.join(', ')}); ignored.`,
  siteNotServed: (site: string) => `Site “${site}” is not served here; left out.`,
  numbersHidden: (cards: readonly string[]) => `With numbers hidden, only ranks and titles show: ${cards.join(', ')} left out.`,
  badLang: (lang: string) => `“${lang}” is not a language tag; ignored.`,
  badRotate: (value: string, min: number, max: number) => `rotate must be a number of seconds from ${min} to ${max}, not “${value}”; not rotating.`,
  rotateNeedsSites: 'rotate needs several sites to rotate between; not rotating.',
  noSites: 'This endpoint serves no site.',
  loadingSites: 'Connecting to the cache…',
  retrying: (seconds: number) => `The cache cannot be reached; trying again in ${seconds} s.`,
  cardLabels: {
    pages: 'Most read now',
    counter: 'People on the site now',
    referrers: 'Top referrers',
    geo: 'Where readers are',
    sources: 'Where they came from',
    platforms: 'Platforms',
  },
  setUp: 'Set up this board',
} as const;
