/**
 * The board page (`/board/`): a full-screen wall of our elements for a TV or a kiosk browser,
 * configured by its URL only (board-config.ts). Everything is built with DOM calls and text
 * nodes: no parameter is ever parsed as markup.
 */
import '../index.ts';
import type { TextTerm } from '../locales/en.ts';
import {
  boardLanguage,
  boardViews,
  parseBoardParams,
  type BoardConfig,
  type Card,
  type Served,
  type Size,
} from './board-config.ts';
import { keepScreenAwake, loadServed } from './served.ts';

/** Rows of pages that fit each size at 16:9 without scrolling. */
const PAGE_ROWS: Record<Size, number> = { s: 12, m: 10, l: 7 };
/** Most rows of the other lists; fewer when the card has no room for them (fitRows). */
const LIST_ROWS: Record<Size, number> = { s: 8, m: 6, l: 5 };
/** Cards that show one site: the elements that do not merge several. */
const ONE_SITE_CARDS: ReadonlySet<Card> = new Set(['sources', 'platforms']);

const ROUTES: Record<Card, { tag: string; path: string; label: TextTerm; extra?: (size: Size) => string }> = {
  pages: {
    tag: 'top-pages',
    path: '/live/toppages/v3/',
    label: 'boardCardPages',
    extra: (size) => `&limit=${PAGE_ROWS[size]}`,
  },
  counter: { tag: 'live-counter', path: '/live/quickstats/v4/', label: 'boardCardCounter' },
  referrers: { tag: 'referrer-bars', path: '/live/referrers/v3/', label: 'boardCardReferrers' },
  geo: { tag: 'geo-list', path: '/live/top_geo/v1/', label: 'boardCardGeo' },
  sources: { tag: 'traffic-sources', path: '/live/quickstats/v4/', label: 'boardCardSources' },
  platforms: { tag: 'platform-split', path: '/live/quickstats/v4/', label: 'boardCardPlatforms' },
};
const params = new URLSearchParams(location.search);
const language = boardLanguage(params);
const { terms } = language;

const main = document.querySelector<HTMLElement>('#board')!;
const heading = document.querySelector<HTMLElement>('#title')!;
const scope = document.querySelector<HTMLElement>('#scope')!;
const notice = document.querySelector<HTMLElement>('#notice')!;
const setUp = document.querySelector<HTMLAnchorElement>('#set-up')!;

function say(lines: readonly string[]): void {
  notice.replaceChildren(
    ...lines.map((line) => Object.assign(document.createElement('span'), { textContent: line })),
  );
  notice.hidden = lines.length === 0;
}

function card(kind: Card, sites: readonly string[], config: BoardConfig, served: Served): HTMLElement {
  const { tag, path, label, extra } = ROUTES[kind];
  const el = document.createElement(tag);
  const query = extra?.(config.size) ?? '';
  el.setAttribute(
    'src',
    sites.map((site) => `${served.prefix}${path}?host=${encodeURIComponent(site)}${query}`).join(' '),
  );
  el.setAttribute('label', terms[label]);
  el.setAttribute('theme', config.theme);
  el.className = `card card-${kind}`;
  if (kind === 'pages') {
    el.setAttribute('strip-title', '');
    if (config.hideNumbers) el.setAttribute('hide-numbers', '');
  }
  if (kind !== 'counter') {
    // The board is the newsroom's own page: its lists have the editors' tools.
    el.setAttribute('tools', 'freeze drill-down');
    fitRows(el, kind === 'pages' ? PAGE_ROWS[config.size] : LIST_ROWS[config.size]);
  } else el.setAttribute('history', '30');
  return el;
}

/**
 * Shows as many rows as the card has room for, up to `most`: after each render, a card whose
 * content overflows drops its last row, so no row is ever cut in half on the wall. A resize
 * starts again from `most`.
 */
function fitRows(el: HTMLElement, most: number): void {
  const card = el as HTMLElement & { max: number; updateComplete: Promise<unknown> };
  card.setAttribute('max', String(most));
  // A pixel of rounding is not a row.
  const overflows = () => {
    const box = card.shadowRoot?.querySelector<HTMLElement>('[part=base]');
    return !!box && box.scrollHeight > box.clientHeight + 1;
  };
  let fitting = false;
  const fit = async () => {
    if (fitting) return;
    fitting = true;
    try {
      await card.updateComplete;
      await new Promise(requestAnimationFrame);
      while (overflows() && card.max > 1) {
        card.max -= 1;
        await card.updateComplete;
      }
    } finally {
      fitting = false;
    }
  };
  card.addEventListener('pulse-data', () => void fit());
  new ResizeObserver(() => {
    card.max = most;
    void fit();
  }).observe(card);
}

/** One view: the cards for `sites`, side by side. */
function view(sites: readonly string[], config: BoardConfig, served: Served): HTMLElement {
  const section = document.createElement('section');
  section.className = 'view';
  section.dataset.sites = sites.join(' ');
  const kinds = config.cards.filter((kind) => sites.length === 1 || !ONE_SITE_CARDS.has(kind));
  const cards = kinds.map((kind) => card(kind, sites, config, served));
  if (kinds[0] === 'pages' && cards.length > 1) {
    // The ranking takes the left, the other cards share a column on the right.
    const side = document.createElement('div');
    side.className = 'side';
    side.replaceChildren(...cards.slice(1));
    section.replaceChildren(cards[0]!, side);
  } else {
    section.replaceChildren(...cards);
  }
  return section;
}

function scopeText(sites: readonly string[]): string {
  return sites.length === 1
    ? sites[0]!
    : `${terms.boardSites(language.count(sites.length))}: ${sites.join(', ')}`;
}

async function start(): Promise<void> {
  const root = document.documentElement;
  root.lang = language.lang;
  root.dir = language.dir;
  // English words on a board in a language we lack say so; the elements still format in the board's language.
  if (language.english) for (const part of [heading.parentElement!, notice]) part.lang = 'en';
  say([terms.boardConnecting]);
  const served = await loadServed((seconds) => say([terms.boardRetrying(language.count(seconds))]));
  const { config, problems } = parseBoardParams(params, served, terms);
  if (config.sites.length === 0) problems.push(terms.boardNoSites);
  say(problems);

  root.dataset.theme = config.theme;
  root.dataset.size = config.size;
  heading.textContent = config.title || terms.boardTitle;
  document.title = heading.textContent;
  setUp.href = `builder.html${location.search}`;
  setUp.textContent = terms.boardSetUp;

  // Every view is built once and kept: its cards keep polling, so turning to it shows data at once.
  const views = boardViews(config).map((sites) => view(sites, config, served));
  main.replaceChildren(...views);
  let shown = 0;
  const show = (index: number) => {
    views.forEach((one, at) => (one.hidden = at !== index));
    scope.textContent = scopeText(boardViews(config)[index]!);
  };
  show(shown);
  if (views.length > 1) {
    setInterval(() => show((shown = (shown + 1) % views.length)), config.rotate * 1000);
  }
  keepScreenAwake();
}

void start();
