import { type CSSResultGroup, type TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import type { ReferrersResponse, RouteName } from '../../api/index.ts';
import { newLeader } from '../../internal/announcer.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { shareItems, shareList, type ShareItem } from '../../internal/share-list.ts';
import { referrerBarsStyles } from './referrer-bars.styles.ts';

export type ReferrerCategory = 'search' | 'social' | 'news' | 'ai' | 'dark' | 'other';

const CATEGORY_NAMES: Record<ReferrerCategory, string> = {
  search: 'Search engines',
  social: 'Social networks',
  news: 'News aggregators',
  ai: 'AI assistants',
  dark: 'Dark social',
  other: 'Other sites',
};

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

/** A referrer's friendly name and category; the empty referrer is dark social (no referrer sent). */
export function describeReferrer(referrer: string): { name: string; category: ReferrerCategory } {
  const domain = referrer.trim().toLowerCase().replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/[/?#:].*$/, '').replace(/^www\./, '');
  if (!domain) return { name: 'Dark social (no referrer)', category: 'dark' };
  for (const [pattern, name, category] of KNOWN_REFERRERS) {
    const matches = typeof pattern === 'string' ? domain === pattern || domain.endsWith(`.${pattern}`) : pattern.test(domain);
    if (matches) return { name, category };
  }
  return { name: referrer.trim(), category: 'other' };
}

/**
 * @summary Where visitors come from right now: referrers as horizontal bars with counts and
 * shares, well-known domains under friendly names, optionally grouped into search, social,
 * news aggregators, AI assistants and dark social. Shows referrers v3 data.
 *
 * Parts, tokens, states and events common to every element are inherited from `PulseElement`.
 *
 * @csspart list - The ordered list.
 * @csspart item - One referrer or group.
 * @csspart name - The referrer's name (always text, never a link).
 * @csspart count - The number of visitors (may be fractional on sampled sites).
 * @csspart share - The share of all referred visitors, in percent.
 * @csspart bar - The track of a bar.
 * @csspart bar-fill - The filled part of a bar.
 *
 * @cssproperty --pulse-referrer-bars-bar-color - Bar fill.
 * @cssproperty --pulse-referrer-bars-bar-size - Bar thickness.
 *
 * @cssstate ready - Showing referrers.
 * @cssstate empty - No referred visitors right now.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class ReferrerBars extends PulseElement<ReferrersResponse> {
  static override styles: CSSResultGroup = [PulseElement.styles, referrerBarsStyles];
  static override route: RouteName = 'referrers';

  /** Most bars shown (0 shows all the data has). */
  @property({ type: Number }) max = 10;

  /** Adds up referrers by kind (search engines, social networks, …) instead of listing domains. */
  @property({ type: Boolean }) grouped = false;

  protected override get defaultLabel(): string {
    return this.grouped ? 'Visitors by kind of referrer' : 'Top referrers now';
  }

  protected override get emptyText(): string {
    return 'No referred visitors right now.';
  }

  protected override isEmpty(data: ReferrersResponse): boolean {
    return this.#items(data).length === 0;
  }

  protected override dataChanged(data: ReferrersResponse, previous: ReferrersResponse | undefined): string | undefined {
    const leader = newLeader(this.#items(data), previous && this.#items(previous), (item) => item.key);
    return leader && `Top referrer now: ${leader.name}`;
  }

  /**
   * With `by_type=1` each traffic source maps to its own referrer counts; grouping then uses
   * those sources, otherwise the categories of the well-known referrers.
   */
  #items(data: ReferrersResponse): ShareItem[] {
    const counts = new Map<string, number>();
    const names = new Map<string, string>();
    const add = (key: string, name: string, count: number) => {
      if (!(count > 0)) return;
      counts.set(key, (counts.get(key) ?? 0) + count);
      names.set(key, name);
    };
    for (const [referrer, value] of Object.entries(data.referrers)) {
      if (typeof value === 'number') {
        const { name, category } = describeReferrer(referrer);
        if (this.grouped) add(category, CATEGORY_NAMES[category], value);
        else add(name, name, value);
        continue;
      }
      for (const [domain, count] of Object.entries(value)) {
        const { name } = describeReferrer(domain);
        if (this.grouped) add(referrer, CATEGORY_NAMES[referrer as ReferrerCategory] ?? referrer, count);
        else add(name, name, count);
      }
    }
    return shareItems([...counts], (key) => names.get(key) ?? key, this.max);
  }

  protected override renderData(data: ReferrersResponse, locale: string): TemplateResult {
    return shareList(this.#items(data), locale, 'visitors');
  }
}
