/**
 * The raw material the sites are made of: words for titles, people, referrers and places.
 * Some entries are hostile on purpose (markup, right-to-left text, bidi overrides) so that every
 * widget's escaping is exercised by the demo data itself.
 */

export const SECTIONS = [
  'News',
  'Politics',
  'Business',
  'Tech',
  'Sport',
  'Arts & Culture',
  'Science',
  'Travel',
  'Opinion',
] as const;

export const SUBJECTS = [
  'City council',
  'The school board',
  'The central bank',
  'A research team',
  'A local startup',
  'The national team',
  'The museum',
  "A farmers' union",
  'The rail operator',
  'The electorate',
  'The mayor',
  'An observatory',
  'The hospital',
  'A teenage chess prodigy',
  'The harbour authority',
  'A climate lab',
  'The union',
  'The film festival',
] as const;

export const VERBS = [
  'approves',
  'rejects',
  'unveils',
  'debates',
  'delays',
  'celebrates',
  'questions',
  'launches',
  'wins',
  'warns about',
  'rethinks',
  'bets on',
] as const;

export const OBJECTS = [
  'a new budget for parks',
  'a plan to extend the tram line',
  'a record harvest',
  'a rare comet',
  'a four-day school week',
  'cheaper night trains',
  'the future of the old library',
  'a heat-resistant wheat',
  'the last match of the season',
  'an AI assistant for tax forms',
  'a quieter airport',
  'a bridge made of timber',
  'free museum Sundays',
  'a vaccine for honeybees',
  'the housing shortage',
  'a solar-powered ferry',
] as const;

/** Appended to a few titles to make them very long. */
export const LONG_TAIL =
  ': what it means for you, your family and your neighbourhood, explained by our reporters after months of interviews, documents and data';

/** Titles that test the widgets' text handling; they replace generated titles at fixed pages. */
export const SPECIAL_TITLES = [
  '<img src=x onerror=alert(1)>',
  '"><script>alert("title")</script>',
  'الأسواق العالمية تغلق على ارتفاع بعد قرار البنك المركزي',
  'מזג האוויר: גל חום צפוי בסוף השבוע',
  'Bidi override: \u202Egpj.exe\u202C should read backwards',
  'Tom &amp; Jerry &lt;3 — entities stay text',
  '東京で新しい美術館が開館、週末は入場無料',
  "🚀 Launch day: the rocket that nearly wasn't",
  'javascript:alert(1)',
  '',
] as const;

export const AUTHORS = [
  'Ada Okafor',
  'José Álvarez',
  'Zoë Chen',
  'Łukasz Nowak',
  'Priya Raman',
  'Tomás Ó Briain',
  'Mei Ling',
  'Hannah Schmidt',
  'Kwame Mensah',
  'Sofia Rossi',
  'Yusuf Demir',
  'Emma Laurent',
  'Noah Becker',
  'Amina Al-Hassan',
  'Olga Petrova',
  'Lars Eriksen',
  'Isabela Souza',
  'Kenji Watanabe',
  '<b>Bold</b> Reporter',
  'Staff',
  'Wire Service',
  'Chidi Eze',
  "Grace O'Neil",
  'Ravi Kapoor',
] as const;

/** Traffic sources of the stats object (spec 2.2), in the order the model splits people into them. */
export const SOURCES = ['direct', 'links', 'search', 'social', 'internal', 'subscr'] as const;
export type Source = (typeof SOURCES)[number];

/** Referrer names per source. `""` is dark social (no referrer); `{host}` is the site itself. */
export const REFERRERS: Record<Source, readonly string[]> = {
  direct: [''],
  links: [
    'news.google.com',
    'flipboard.com',
    'apple.news',
    'smartnews.com',
    'news.ycombinator.com',
    'msn.com',
    'chatgpt.com',
    'perplexity.ai',
    'gemini.google.com',
    'copilot.microsoft.com',
    'claude.ai',
    'en.wikipedia.org',
  ],
  search: [
    'google.com',
    'bing.com',
    'duckduckgo.com',
    'search.yahoo.com',
    'yandex.ru',
    'ecosia.org',
    'baidu.com',
  ],
  social: [
    'facebook.com',
    't.co',
    'linkedin.com',
    'reddit.com',
    'instagram.com',
    'bsky.app',
    'threads.net',
    'youtube.com',
  ],
  internal: ['{host}'],
  subscr: ['newsletter.{host}', 'mail.google.com', 'outlook.live.com'],
};

/** Platform keys of spec 2.2 with our guess of their share (meanings are not given by the spec). */
export const PLATFORMS = ['a', 'e', 'd', 'g', 'f', 'i', 'm', 'r', 't'] as const;
export const PLATFORM_WEIGHTS = [6, 1, 38, 1, 1, 2, 42, 1, 8] as const;

export interface City {
  name: string;
  /** Nielsen DMA code, US only. */
  metro?: string;
}

export interface Country {
  code: string;
  weight: number;
  regions: readonly { code: string; weight: number; cities: readonly City[] }[];
}

export const COUNTRIES: readonly Country[] = [
  {
    code: 'US',
    weight: 40,
    regions: [
      {
        code: 'US-CA',
        weight: 12,
        cities: [
          { name: 'Los Angeles', metro: '803' },
          { name: 'San Francisco', metro: '807' },
        ],
      },
      { code: 'US-NY', weight: 9, cities: [{ name: 'New York', metro: '501' }] },
      {
        code: 'US-TX',
        weight: 8,
        cities: [
          { name: 'Houston', metro: '618' },
          { name: 'Dallas', metro: '623' },
        ],
      },
      { code: 'US-IL', weight: 4, cities: [{ name: 'Chicago', metro: '602' }] },
      { code: 'US-WA', weight: 3, cities: [{ name: 'Seattle', metro: '819' }] },
      { code: 'US-MA', weight: 3, cities: [{ name: 'Boston', metro: '506' }] },
      { code: 'US-GA', weight: 3, cities: [{ name: 'Atlanta', metro: '524' }] },
      { code: 'US-FL', weight: 5, cities: [{ name: 'Miami', metro: '528' }] },
      { code: 'US-DC', weight: 2, cities: [{ name: 'Washington', metro: '511' }] },
    ],
  },
  {
    code: 'GB',
    weight: 12,
    regions: [
      { code: 'GB-ENG', weight: 10, cities: [{ name: 'London' }, { name: 'Manchester' }] },
      { code: 'GB-SCT', weight: 2, cities: [{ name: 'Edinburgh' }] },
    ],
  },
  {
    code: 'CA',
    weight: 8,
    regions: [
      { code: 'CA-ON', weight: 5, cities: [{ name: 'Toronto' }] },
      { code: 'CA-QC', weight: 3, cities: [{ name: 'Montréal' }] },
    ],
  },
  {
    code: 'DE',
    weight: 7,
    regions: [
      { code: 'DE-BE', weight: 3, cities: [{ name: 'Berlin' }] },
      { code: 'DE-BY', weight: 3, cities: [{ name: 'München' }] },
    ],
  },
  { code: 'FR', weight: 6, regions: [{ code: 'FR-IDF', weight: 4, cities: [{ name: 'Paris' }] }] },
  { code: 'IN', weight: 6, regions: [{ code: 'IN-MH', weight: 3, cities: [{ name: 'Mumbai' }] }] },
  { code: 'AU', weight: 4, regions: [{ code: 'AU-NSW', weight: 2, cities: [{ name: 'Sydney' }] }] },
  { code: 'BR', weight: 4, regions: [{ code: 'BR-SP', weight: 3, cities: [{ name: 'São Paulo' }] }] },
  { code: 'JP', weight: 3, regions: [{ code: 'JP-13', weight: 3, cities: [{ name: '東京' }] }] },
  { code: 'NG', weight: 2, regions: [{ code: 'NG-LA', weight: 2, cities: [{ name: 'Lagos' }] }] },
  { code: 'EG', weight: 2, regions: [{ code: 'EG-C', weight: 2, cities: [{ name: 'القاهرة' }] }] },
  { code: 'NL', weight: 2, regions: [] },
  { code: 'SE', weight: 2, regions: [] },
  { code: 'MX', weight: 2, regions: [] },
];

/** Video player states reported by `metrics=video_state` (our assumption). */
export const VIDEO_STATES = ['playing', 'paused', 'buffering', 'ad', 'ended'] as const;
