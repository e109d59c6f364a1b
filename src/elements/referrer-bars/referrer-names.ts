/**
 * Friendly names of referrer domains, apart from the element: <top-pages> names its rows'
 * referrers with them without loading <referrer-bars>.
 */
export type ReferrerCategory = 'search' | 'social' | 'news' | 'ai' | 'dark' | 'other';

/**
 * Well-known referrers, most specific first (news.google.com before google.*). A string matches
 * the domain and its subdomains.
 */
const KNOWN_REFERRERS: readonly (readonly [string | RegExp, string, ReferrerCategory])[] = [
  ['gemini.google.com', 'Gemini', 'ai'],
  ['chatgpt.com', 'ChatGPT', 'ai'],
  ['chat.openai.com', 'ChatGPT', 'ai'],
  ['perplexity.ai', 'Perplexity', 'ai'],
  ['claude.ai', 'Claude', 'ai'],
  ['copilot.microsoft.com', 'Copilot', 'ai'],
  ['chat.deepseek.com', 'DeepSeek', 'ai'],
  ['meta.ai', 'Meta AI', 'ai'],
  ['news.google.com', 'Google News', 'news'],
  ['news.yahoo.com', 'Yahoo News', 'news'],
  ['apple.news', 'Apple News', 'news'],
  ['flipboard.com', 'Flipboard', 'news'],
  ['smartnews.com', 'SmartNews', 'news'],
  ['newsbreak.com', 'NewsBreak', 'news'],
  ['msn.com', 'MSN', 'news'],
  ['feedly.com', 'Feedly', 'news'],
  ['news.ycombinator.com', 'Hacker News', 'news'],
  [/(^|\.)google\.[a-z]{2,3}(\.[a-z]{2})?$/, 'Google', 'search'],
  ['bing.com', 'Bing', 'search'],
  ['duckduckgo.com', 'DuckDuckGo', 'search'],
  ['search.yahoo.com', 'Yahoo', 'search'],
  ['yahoo.com', 'Yahoo', 'search'],
  ['baidu.com', 'Baidu', 'search'],
  ['yandex.ru', 'Yandex', 'search'],
  ['yandex.com', 'Yandex', 'search'],
  ['ecosia.org', 'Ecosia', 'search'],
  ['search.brave.com', 'Brave Search', 'search'],
  ['qwant.com', 'Qwant', 'search'],
  ['startpage.com', 'Startpage', 'search'],
  ['facebook.com', 'Facebook', 'social'],
  ['fb.com', 'Facebook', 'social'],
  ['t.co', 'X (Twitter)', 'social'],
  ['twitter.com', 'X (Twitter)', 'social'],
  ['x.com', 'X (Twitter)', 'social'],
  ['instagram.com', 'Instagram', 'social'],
  ['linkedin.com', 'LinkedIn', 'social'],
  ['lnkd.in', 'LinkedIn', 'social'],
  ['reddit.com', 'Reddit', 'social'],
  [/(^|\.)pinterest\.[a-z.]+$/, 'Pinterest', 'social'],
  ['youtube.com', 'YouTube', 'social'],
  ['youtu.be', 'YouTube', 'social'],
  ['tiktok.com', 'TikTok', 'social'],
  ['threads.net', 'Threads', 'social'],
  ['bsky.app', 'Bluesky', 'social'],
  ['mastodon.social', 'Mastodon', 'social'],
  ['whatsapp.com', 'WhatsApp', 'social'],
  ['t.me', 'Telegram', 'social'],
];

/**
 * A referrer's friendly name and category. The empty referrer is dark social (no referrer sent):
 * its name is empty, for the element to say in the reader's language (`referrersNone`).
 */
export function describeReferrer(referrer: string): { name: string; category: ReferrerCategory } {
  const domain = referrer
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#:].*$/, '')
    .replace(/^www\./, '');
  if (!domain) return { name: '', category: 'dark' };
  for (const [pattern, name, category] of KNOWN_REFERRERS) {
    const matches =
      typeof pattern === 'string'
        ? domain === pattern || domain.endsWith(`.${pattern}`)
        : pattern.test(domain);
    if (matches) return { name, category };
  }
  return { name: referrer.trim(), category: 'other' };
}
